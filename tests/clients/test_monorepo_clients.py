"""examples/monorepo run by the clients that run its apps (docs/clients.md, "Several paths"): the Argo CD
sidecar (emulated, tests/support/argocd_cmp.py) for every Application that names the plugin, with the
ARGOCD_APP_* environment Argo CD derives from it; kpt on the kpt package; kubectl kustomize (legacy exec
plugin) and kustomize v4.5.4 (exec KRM function) on the kustomization. Every client must give the objects
the command line gives for the same app, in the app's namespace."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from fnmatch import fnmatch
from pathlib import Path

import pytest

from clients import kit
from kpt_fn import apps, yamlio
from support import argocd_cmp as cmp
from support import shipped_examples as ex

pytestmark = pytest.mark.clients

EXAMPLE = ex.EXAMPLES / "monorepo"
APPLICATIONS = sorted((EXAMPLE / "platform" / "argocd").glob("*.yaml"))
KPT_PACKAGE = "apps/team-a/mnist"
KUSTOMIZATION = "apps/team-b/eval"


def _application(path: Path) -> dict:
    return yamlio.load(path.read_text())


def _with_plugin(path: Path) -> bool:
    return "plugin" in _application(path)["spec"]["source"]


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """The example as a clone of the platform repository (its top level is the root of every app)."""
    repo = tmp_path_factory.mktemp("monorepo") / "repo"
    shutil.copytree(EXAMPLE, repo, ignore=shutil.ignore_patterns(".expected"))
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "v1"]):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
    return repo


def _render(fn: str, repo: Path, app: str) -> list:
    """What `expand-trainjobs render APP` prints in the clone, normalised."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "EXPAND_TRAINJOBS_"))}
    return kit.normalize(kit.run([fn, "render", app], cwd=repo, env=env).ok().stdout)


def _sidecar(fn: str, application: Path) -> cmp.CMPResult:
    request = ex.argocd_request(EXAMPLE, application)
    work_root = tempfile.mkdtemp(prefix="argocd-cmp-monorepo-")
    try:
        return cmp.generate(kit.PLUGIN_YAML, EXAMPLE, request.pop("app_path"), work_root=work_root,
                            command_map={kit.IMAGE_PATH_IN_PLUGIN_YAML: fn}, **request)
    finally:
        shutil.rmtree(work_root, ignore_errors=True)


def test_every_app_has_its_application_and_every_application_an_app():
    paths = sorted(_application(p)["spec"]["source"]["path"] for p in APPLICATIONS)
    assert paths == apps.find(".", str(EXAMPLE))
    for p in APPLICATIONS:
        app = _application(p)
        assert p.stem == app["metadata"]["name"]
        assert app["spec"]["destination"]["namespace"] == app["spec"]["source"]["path"].split("/")[1]  # the team's


@pytest.mark.parametrize("application", [p for p in APPLICATIONS if _with_plugin(p)], ids=lambda p: p.stem)
def test_the_sidecar_renders_each_app_in_its_namespace(application, fn, clone):
    app = _application(application)
    result = _sidecar(fn, application)
    # Argo CD hides a successful render's stderr: nothing in it may need reading
    assert result.stderr.startswith("expand-trainjobs: ok: 0 error(s), 0 warning(s)"), result.stderr
    jobsets = [m for m in result.manifests if m["kind"] == "JobSet"]
    assert jobsets and {m["metadata"]["namespace"] for m in result.manifests} == {app["spec"]["destination"]["namespace"]}
    # the same objects as the command line in a clone, where the git top level is the root
    assert kit.normalize(result.manifests) == _render(fn, clone, app["spec"]["source"]["path"])


def test_kpt_renders_the_package_into_what_is_committed(kpt, fn, clone, tmp_path):
    repo = kit.copy_tree(clone, tmp_path / "repo")
    env = kit.client_env(tmp_path)
    env["PATH"] = os.pathsep.join([os.path.dirname(fn), env["PATH"]])
    kit.run([kpt, "fn", "render", KPT_PACKAGE, "--allow-exec"], cwd=repo, env=env).ok()
    assert kit.run(["git", "status", "--porcelain"], cwd=repo).ok().stdout == ""  # nothing to commit: CI's check agrees
    kit.run([fn, "check-generated", KPT_PACKAGE], cwd=repo, env=env).ok()
    # Argo CD applies the committed output as plain files (no plugin): what its `include` picks
    (application,) = [p for p in APPLICATIONS if not _with_plugin(p)]
    source = _application(application)["spec"]["source"]
    assert source["path"] == KPT_PACKAGE
    applied = [f for f in sorted(os.listdir(repo / KPT_PACKAGE)) if fnmatch(f, source["directory"]["include"])]
    assert applied == ["mnist.generated.yaml"]
    objects = kit.normalize((repo / KPT_PACKAGE / "mnist.generated.yaml").read_text())
    assert [(o["kind"], o["metadata"]["namespace"]) for o in objects] == [("JobSet", "team-a")]
    assert objects == _render(fn, clone, KPT_PACKAGE)


def _sidecar_of(fn: str, app_path: str) -> list:
    (application,) = [p for p in APPLICATIONS if _application(p)["spec"]["source"]["path"] == app_path]
    return kit.normalize(_sidecar(fn, application).manifests)


def test_kubectl_kustomize_builds_what_the_sidecar_renders(kubectl, fn, tmp_path):
    env = kit.client_env(tmp_path, KUSTOMIZE_PLUGIN_HOME=kit.PLUGIN_HOME, EXPAND_TRAINJOBS=fn)
    built = kit.run([kubectl, "kustomize", "--enable-alpha-plugins", EXAMPLE / KUSTOMIZATION], env=env).ok()
    kit.assert_local_config_dropped(built.stdout, "kubectl kustomize, legacy plugin")
    objects = kit.normalize(built.stdout)
    assert [(o["kind"], o["metadata"]["namespace"]) for o in objects] == [("JobSet", "team-b")]
    assert objects == _sidecar_of(fn, KUSTOMIZATION)


def test_kustomize_v4_builds_the_same_with_an_exec_function(kustomize454, fn, tmp_path):
    app = kit.copy_tree(EXAMPLE / KUSTOMIZATION, tmp_path / "eval")
    config = yamlio.load((app / "expand-trainjobs.yaml").read_text())
    config["metadata"]["annotations"] = {"config.kubernetes.io/function": yamlio.dump({"exec": {"path": os.path.relpath(fn, app)}})}
    (app / "expand-trainjobs.yaml").write_text(yamlio.dump(config))
    built = kit.run([kustomize454, "build", "--enable-alpha-plugins", "--enable-exec", app], env=kit.client_env(tmp_path)).ok()
    assert kit.normalize(built.stdout) == _sidecar_of(fn, KUSTOMIZATION)


def test_a_guardrail_violation_fails_the_sidecar_of_that_app_only(fn, tmp_path):
    """team-b over its own 4-GPU limit: Argo CD fails team-b's app (the plugin exits 1 with the finding);
    team-a's app, with a TrainJob of the same name and 16 GPUs, renders."""
    repo = kit.copy_tree(EXAMPLE, tmp_path / "repo")
    trainjob = repo / "apps/team-b/llm-finetune/trainjob.yaml"
    trainjob.write_text(trainjob.read_text().replace("numNodes: 1", "numNodes: 2"))
    work_root = tempfile.mkdtemp(prefix="argocd-cmp-monorepo-")
    try:
        for name, fails in (("team-b-llm-finetune", True), ("team-a-llm-finetune", False)):
            request = ex.argocd_request(repo, repo / "platform" / "argocd" / f"{name}.yaml")
            run = lambda: cmp.generate(kit.PLUGIN_YAML, repo, request.pop("app_path"), work_root=work_root,  # noqa: E731
                                       command_map={kit.IMAGE_PATH_IN_PLUGIN_YAML: fn}, **request)
            if fails:
                with pytest.raises(cmp.CMPError, match=r"requests 8 GPUs in all, more than 4"):
                    run()
            else:
                assert run().stderr.startswith("expand-trainjobs: ok")
    finally:
        shutil.rmtree(work_root, ignore_errors=True)
