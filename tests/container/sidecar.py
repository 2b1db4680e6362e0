"""Argo CD's CMP sidecar with the function image: what the cmp-server does around `generate`
(tests/support/argocd_cmp.py), with every plugin command exec'd inside the image as the sidecar runs it."""

from __future__ import annotations

import os
import shutil
import uuid

from support import argocd_cmp as cmp
from container import engine

WORK_DIR_IN_SIDECAR = "/tmp/_cmp_server"


def sidecar_generate(image, env, plugin_yaml, repo, app_path, work_root, *, build_env=None, env_entries=(), parameters=()):
    """One generate request, the commands run in the image as the cmp-server runs them."""
    cfg = cmp.load_plugin(plugin_yaml)
    request = str(uuid.uuid4())
    work_dir = work_root / request
    try:
        cmp.copy_repo(repo, work_dir, preserve_file_mode=bool(cfg["spec"].get("preserveFileMode")))
        app_dir = cmp.resolve_app_dir(str(work_dir), app_path)
        inside = f"{WORK_DIR_IN_SIDECAR}/{request}"
        # The repo-server sets ARGOCD_APP_SOURCE_PATH from the app's path (tests/support/argocd_cmp.py generate).
        build = {**(build_env or cmp.build_env_for_app(namespace="apps-ns")), "ARGOCD_APP_SOURCE_PATH": app_path}
        added = cmp.plugin_env(build, list(env_entries), list(parameters))

        def runner(command, cwd, _env):
            argv = list(command.get("command") or []) + list(command.get("args") or [])
            podman = [
                "podman", "run", "--rm", "--network", "none", "--user", f"{cmp.SIDECAR_UID}:{cmp.SIDECAR_UID}",
                # deploy/argocd's securityContext: read-only root filesystem, no privilege escalation.
                "--read-only", "--security-opt=no-new-privileges", "--cap-drop=all", "-v", f"{work_dir}:{inside}:ro",
                "-w", f"{inside}/{os.path.relpath(cwd, work_dir)}", "--entrypoint", argv[0],
            ]
            for k, v in added.items():
                podman += ["-e", f"{k}={v}"]
            p = engine.run([*podman, image, *argv[1:]], env=env, check=False, timeout=120)
            if p.returncode != 0:
                raise cmp.CMPError(f"`{' '.join(argv)}` failed exit status {p.returncode}: {p.stderr.strip()}")
            return p.stdout.removesuffix("\n"), p.stderr

        if not cmp.discover(cfg, app_dir, added, runner):
            raise cmp.CMPError(f"plugin {cmp.plugin_name(cfg)} does not match the application (discover)")
        stdout, stderr = runner(cfg["spec"]["generate"], app_dir, added)
        return cmp.CMPResult(cmp.plugin_name(cfg), True, added, stdout, stderr, cmp.parse_manifests(stdout))
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)
