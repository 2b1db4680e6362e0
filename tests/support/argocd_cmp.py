"""An emulation of Argo CD's config-management-plugin contract, for tests (docs/clients.md, Argo CD).

Argo CD itself is not run. This module does what its cmp-server and repo-server do around a plugin's
`generate` command, as read from argo-cd v3.5's source (reposerver/repository/repository.go
runConfigManagementPluginSidecars and getPluginEnvs, util/cmp/stream.go ReceiveRepoStream,
cmpserver/plugin/plugin.go generateManifest and runCommand): validate plugin.yaml, copy the repo into a fresh
work dir with 0644 files, build the environment (build env, ARGOCD_ENV_*, parameters), discover,
run init and generate without a shell in the app dir (as uid 999 when we are root), and decode
stdout the way the repo-server does (YAML 1.1 with y/n booleans, `items` lists expanded, every
document must have a kind).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import yaml

SIDECAR_UID = 999
SIDECAR_ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/home/argocd"}


class CMPError(Exception):
    """Manifest generation failed, with the message Argo CD would show."""


# --- plugin.yaml -------------------------------------------------------------------------------


def load_plugin(path) -> dict:
    """plugin.yaml, checked as argo-cd's ValidatePluginConfig does."""
    with open(path, encoding="utf-8") as f:
        cfg = yaml.safe_load(f)
    if not isinstance(cfg, dict) or cfg.get("kind") != "ConfigManagementPlugin":
        raise CMPError(f"invalid plugin configuration file. kind should be ConfigManagementPlugin, found {cfg.get('kind') if isinstance(cfg, dict) else cfg!r}")
    if not (cfg.get("metadata") or {}).get("name"):
        raise CMPError("invalid plugin configuration file. metadata.name should be non-empty.")
    if not ((cfg.get("spec") or {}).get("generate") or {}).get("command"):
        raise CMPError("invalid plugin configuration file. spec.generate command should be non-empty")
    return cfg


def plugin_name(cfg: dict) -> str:
    name = cfg["metadata"]["name"]
    version = (cfg.get("spec") or {}).get("version")
    return f"{name}-{version}" if version else name


# --- environment -------------------------------------------------------------------------------


def _special(c: str) -> bool:
    return c in "*#$@!?-" or c.isdigit()


def _alnum(c: str) -> bool:
    return c == "_" or ("0" <= c <= "9") or ("a" <= c <= "z") or ("A" <= c <= "Z")


def _shell_name(s: str) -> tuple[str, int]:
    if s[0] == "{":
        if len(s) > 2 and _special(s[1]) and s[2] == "}":
            return s[1:2], 3
        for i in range(1, len(s)):
            if s[i] == "}":
                return ("", 2) if i == 1 else (s[1:i], i + 1)
        return "", 1
    if _special(s[0]):
        return s[0:1], 1
    i = 0
    while i < len(s) and _alnum(s[i]):
        i += 1
    return s[:i], i


def go_expand(s: str, mapping) -> str:
    """Go's os.Expand: $NAME and ${NAME}, shell-special one-character names, bad syntax eaten."""
    buf: list[str] | None = None
    i = j = 0
    while j < len(s):
        if s[j] == "$" and j + 1 < len(s):
            if buf is None:
                buf = []
            buf.append(s[i:j])
            name, w = _shell_name(s[j + 1 :])
            if name == "" and w > 0:
                pass
            elif name == "":
                buf.append(s[j])
            else:
                buf.append(mapping(name))
            j += w
            i = j + 1
        j += 1
    if buf is None:
        return s
    return "".join(buf) + s[i:]


def envsubst(value: str, env: dict) -> str:
    """Env.Envsubst: variables of the build env, `$$` is a literal `$`, unknown ones are empty."""
    return go_expand(value, lambda n: "$" if n == "$" else env.get(n, ""))


def _escaped(name: str) -> str:
    return re.sub(r"[^A-Z0-9_]", "_", name.upper())


def _go_json(value) -> str:
    # encoding/json: compact, struct fields in declaration order (the dicts are built that way),
    # map keys sorted (done where maps are copied), HTML-significant characters escaped.
    out = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return out.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def parameters_environ(parameters: list) -> dict:
    """ApplicationSourcePluginParameters.Environ: ARGOCD_APP_PARAMETERS plus PARAM_* variables.
    No parameters at all marshal as `null` (a nil slice)."""
    env = {"ARGOCD_APP_PARAMETERS": _go_json([_param_json(p) for p in parameters] if parameters else None)}
    for p in parameters:
        base = f"PARAM_{_escaped(p.get('name', ''))}"
        if p.get("string") is not None:
            env[base] = p["string"]
        for key, value in (p.get("map") or {}).items():
            env[f"{base}_{_escaped(key)}"] = value
        for i, value in enumerate(p.get("array") or []):
            env[f"{base}_{i}"] = value
    return env


def _param_json(p: dict) -> dict:
    # Go's omitempty: empty name/map/array are left out; a string is kept when set, even if empty.
    out = {}
    if p.get("name"):
        out["name"] = p["name"]
    if p.get("string") is not None:
        out["string"] = p["string"]
    if p.get("map"):
        out["map"] = dict(sorted(p["map"].items()))
    if p.get("array"):
        out["array"] = p["array"]
    return out


def build_env_for_app(
    app_name: str = "train",
    namespace: str = "team-a",
    project: str = "default",
    revision: str = "0123456789abcdef0123456789abcdef01234567",
    repo_url: str = "https://git.example.com/ml/deploy.git",
    source_path: str = "apps/train",
    target_revision: str = "HEAD",
    kube_version: str = "1.32.4",
    api_versions: tuple = ("v1", "apps/v1", "batch/v1", "jobset.x-k8s.io/v1alpha2"),
) -> dict:
    """The build environment the repo-server computes for an Application."""
    return {
        "ARGOCD_APP_NAME": app_name,
        "ARGOCD_APP_NAMESPACE": namespace,
        "ARGOCD_APP_PROJECT_NAME": project,
        "ARGOCD_APP_REVISION": revision,
        "ARGOCD_APP_REVISION_SHORT": revision[:7],
        "ARGOCD_APP_REVISION_SHORT_8": revision[:8],
        "ARGOCD_APP_SOURCE_REPO_URL": repo_url,
        "ARGOCD_APP_SOURCE_PATH": source_path,
        "ARGOCD_APP_SOURCE_TARGET_REVISION": target_revision,
        "KUBE_VERSION": kube_version,
        "KUBE_API_VERSIONS": ",".join(api_versions),
    }


def plugin_env(build_env: dict, env_entries: list, parameters: list, drop_empty: bool = False) -> dict:
    """What the repo-server sends to the sidecar: build env, ARGOCD_ENV_*, parameters.

    `env_entries` are (name, value) of the Application's spec.source.plugin.env. Entries with an
    empty name are dropped; `drop_empty` models Argo CD <= 2.6, which also dropped empty values.
    """
    env = dict(build_env)
    for name, value in env_entries:
        if name:
            env[f"ARGOCD_ENV_{name}"] = envsubst(value, build_env)
    env.update(parameters_environ(parameters))
    return {k: v for k, v in env.items() if k and not (drop_empty and v == "")}


# --- the repo copy -----------------------------------------------------------------------------


def copy_repo(src, dst, preserve_file_mode: bool = False, owner: int | None = None) -> None:
    """The tar round trip: no .git, files 0644 and directories 0755 (unless preserveFileMode),
    symlinks kept as links; owned by `owner` when given (the sidecar's uid)."""
    src, dst = Path(src), Path(dst)
    dst.mkdir(parents=True, exist_ok=True)
    os.chmod(dst, 0o755)
    for root, dirs, files in os.walk(src, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        rel = Path(root).relative_to(src)
        for d in dirs:
            target = dst / rel / d
            if (Path(root) / d).is_symlink():
                os.symlink(os.readlink(Path(root) / d), target)
                continue
            target.mkdir()
            os.chmod(target, (os.stat(Path(root) / d).st_mode & 0o7777) if preserve_file_mode else 0o755)
        for f in sorted(files):
            s, t = Path(root) / f, dst / rel / f
            if s.is_symlink():
                os.symlink(os.readlink(s), t)
                continue
            shutil.copyfile(s, t)
            os.chmod(t, (os.stat(s).st_mode & 0o7777) if preserve_file_mode else 0o644)
    if owner is not None:
        for root, dirs, files in os.walk(dst):
            for n in dirs + files:
                os.lchown(os.path.join(root, n), owner, owner)
        os.lchown(dst, owner, owner)


def application_root_path(app_path: str, manifest_generate_paths: str = "") -> str:
    """What the repo-server streams, relative to the repository root: with its
    `--plugin-use-manifest-generate-paths`, the common root of the app path and the paths of the
    `argocd.argoproj.io/manifest-generate-paths` annotation (`;`-separated; relative ones are relative
    to the app path, absolute ones to the repository), else the whole repository ("").
    (argo-cd v3.5 reposerver/repository/utils.go getApplicationRootPath and getPaths)"""
    paths = []
    for p in manifest_generate_paths.split(";"):
        if not p:
            continue
        joined = os.path.normpath(p.lstrip("/") if p.startswith("/") else os.path.join(app_path, p))
        # securejoin keeps the path inside the repository: a leading `..` stays at its root.
        parts = [x for x in joined.split("/") if x not in ("", ".", "..")]
        paths.append(parts)
    if not paths:
        return ""
    common = [x for x in os.path.normpath(app_path).split("/") if x not in ("", ".")]
    disjoint = False  # upstream's flag: once set, a later shorter path no longer shortens the root
    for parts in paths:
        shortest = min(len(common), len(parts))
        for i in range(shortest):
            if common[i] != parts[i]:
                common, disjoint = common[:i], True
                break
        if not disjoint and shortest < len(common):
            common = common[:shortest]
    return "/".join(common)


def resolve_app_dir(work_dir: str, app_path: str) -> str:
    app_dir = os.path.normpath(os.path.join(work_dir, app_path))
    if not app_dir.startswith(work_dir):
        raise CMPError("illegal appPath: out of workDir bound")
    return app_dir


# --- discovery and commands --------------------------------------------------------------------


def _zglob(pattern: str) -> list:
    # zglob: `**` matches any number of directories.
    from glob import glob

    return glob(pattern, recursive=True)


def discover(cfg: dict, app_dir: str, env: dict, runner) -> bool:
    spec = (cfg.get("spec") or {}).get("discover") or {}
    if spec.get("fileName"):
        from glob import glob

        return bool(glob(os.path.join(app_dir, spec["fileName"])))
    find = spec.get("find") or {}
    if find.get("glob"):
        return bool(_zglob(os.path.join(app_dir, find["glob"])))
    if find.get("command"):
        try:
            out, _ = runner(find, app_dir, env)
        except CMPError:
            return False
        return out != ""
    return False


def run_command(command: dict, cwd: str, env: dict, *, uid: int | None, timeout: float, unshare_net: bool = False):
    """(stdout without one trailing newline, stderr) of command + args, no shell; CMPError on failure."""
    argv = list(command.get("command") or []) + list(command.get("args") or [])
    if not argv:
        raise CMPError("Command is empty")
    prefix = []
    if unshare_net:
        prefix += ["unshare", "-n"]
    if uid is not None:
        prefix += ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
    proc = subprocess.Popen(
        prefix + argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, killed as a whole on timeout
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise CMPError(f"`{' '.join(argv)}` failed signal: killed: {err.decode(errors='replace').strip()}") from None
    stdout, stderr = out.decode("utf-8", errors="replace"), err.decode("utf-8", errors="replace")
    if proc.returncode != 0:
        message = f"`{' '.join(argv)}` failed exit status {proc.returncode}"
        if stderr.strip():
            message += f": {stderr.strip()}"
        raise CMPError(message)
    return stdout.removesuffix("\n"), stderr


# --- decoding stdout ---------------------------------------------------------------------------


class ArgoLoader(yaml.SafeLoader):
    """sigs.k8s.io/yaml as Argo CD uses it: YAML 1.1 (on/yes/y/n are booleans, 1e3 is a float);
    timestamps stay strings because the JSON conversion keeps them as text."""

    yaml_implicit_resolvers = {
        ch: [(tag, rx) for tag, rx in lst if tag != "tag:yaml.org,2002:timestamp"]
        for ch, lst in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }


ArgoLoader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:y|Y|n|N)$"), list("yYnN"))
ArgoLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float", re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"), list("-+0123456789")
)


def _bool_y_n(loader, node):
    value = loader.construct_scalar(node)
    return value.lower() in ("y", "yes", "true", "on")


def _float_1e3(loader, node):
    return float(loader.construct_scalar(node).replace("_", ""))


ArgoLoader.add_constructor("tag:yaml.org,2002:bool", _bool_y_n)
ArgoLoader.add_constructor("tag:yaml.org,2002:float", _float_1e3)


def argo_load(text: str):
    return yaml.load(text, Loader=ArgoLoader)


_SEPARATOR = re.compile(r"^---(\s.*)?$")


def _split_yaml(text: str) -> list[str]:
    """apimachinery's YAMLReader: documents end at a `---` line (a comment may follow it); each
    document keeps the line breaks of its lines."""
    docs, current = [], []
    for line in text.splitlines(keepends=True):
        m = _SEPARATOR.match(line.rstrip("\r\n"))
        if m:
            rest = (m.group(1) or "").strip()
            if rest and not rest.startswith("#"):
                raise CMPError(f"error converting YAML to JSON: yaml: did not find expected <document start>: {line.strip()!r}")
            docs.append("".join(current))
            current = []
        else:
            current.append(line)
    docs.append("".join(current))
    return docs


def _json_stream(text: str) -> list:
    decoder, pos, out = json.JSONDecoder(), 0, []
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return out
        try:
            obj, pos = decoder.raw_decode(text, pos)
        except ValueError as e:
            raise CMPError(f"failed to unmarshal manifest: {e}") from None
        out.append(obj)


def parse_manifests(stdout: str) -> list[dict]:
    """Objects as the repo-server gets them from the plugin's stdout."""
    text = stdout.removesuffix("\n")
    if text.lstrip().startswith("{"):
        docs = _json_stream(text)
    else:
        docs = []
        for chunk in _split_yaml(text):
            try:
                doc = argo_load(chunk)
            except yaml.YAMLError as e:
                raise CMPError(f"failed to unmarshal manifest: {e}") from None
            docs.append(doc)
    manifests = []
    for doc in docs:
        if doc is None:
            continue
        if not isinstance(doc, dict):
            raise CMPError(f"failed to unmarshal manifest: cannot unmarshal {type(doc).__name__} into Go value of type map[string]interface {{}}")
        if not doc.get("kind"):
            raise CMPError(f"Object 'Kind' is missing in '{json.dumps(doc, separators=(',', ':'), default=str)}'")
        if isinstance(doc.get("items"), list):
            for item in doc["items"]:
                if not isinstance(item, dict) or not item.get("kind"):
                    raise CMPError(f"Object 'Kind' is missing in '{json.dumps(item, separators=(',', ':'), default=str)}'")
                manifests.append(item)
        else:
            manifests.append(doc)
    return manifests


# --- one generate request ----------------------------------------------------------------------


@dataclass
class CMPResult:
    plugin_name: str
    discovered: bool
    env_added: dict
    stdout: str
    stderr: str
    manifests: list = field(default_factory=list)


def generate(
    plugin_yaml,
    repo_dir,
    app_path: str,
    *,
    work_root,
    build_env: dict | None = None,
    env_entries: list = (),
    parameters: list = (),
    command_map: dict | None = None,
    run_as: int | None = None,
    sidecar_env: dict | None = None,
    drop_empty: bool = False,
    unshare_net: bool = False,
    timeout: float = 60,
    require_discovery: bool = True,
    manifest_generate_paths: str | None = None,
) -> CMPResult:
    """Generate manifests for the app at `app_path` of `repo_dir`, as Argo CD would.

    `command_map` replaces command[0] of plugin.yaml (e.g. the image path /opt/fn/bin/...) by a
    local executable. `run_as` is the uid for init/generate (None: the current user).
    `manifest_generate_paths`: the Application's annotation, with the repo-server's
    `--plugin-use-manifest-generate-paths` on (only their common root is streamed); None: off.
    ARGOCD_APP_SOURCE_PATH is always `app_path`, as the repo-server sets it from the same source.
    """
    cfg = load_plugin(plugin_yaml)
    spec = cfg["spec"]
    work_dir = os.path.join(str(work_root), "_cmp_server", str(uuid.uuid4()))
    os.makedirs(work_dir)
    try:
        root = application_root_path(app_path, manifest_generate_paths) if manifest_generate_paths is not None else ""
        copy_repo(os.path.join(repo_dir, root), work_dir, preserve_file_mode=bool(spec.get("preserveFileMode")), owner=run_as)
        app_dir = resolve_app_dir(work_dir, os.path.relpath(os.path.normpath(app_path), root or "."))
        build = {**(build_env or build_env_for_app()), "ARGOCD_APP_SOURCE_PATH": app_path}
        added = plugin_env(build, list(env_entries), list(parameters), drop_empty)
        env = {**(sidecar_env or SIDECAR_ENV), **added}

        def mapped(command: dict) -> dict:
            argv = list(command.get("command") or [])
            if argv and command_map and argv[0] in command_map:
                argv[0] = command_map[argv[0]]
            return {**command, "command": argv}

        def runner(command, cwd, run_env):
            return run_command(mapped(command), cwd, run_env, uid=run_as, timeout=timeout, unshare_net=unshare_net)

        discovered = discover(cfg, app_dir, env, runner)
        if require_discovery and not discovered:
            # A named plugin with discovery configured must still match (argo-cd v3.5
            # util/app/discovery/discovery.go cmpSupports); the error DetectConfigManagementPlugin gives.
            raise CMPError(f"could not find cmp-server plugin with name {plugin_name(cfg)!r} supporting the given repository")
        if (spec.get("init") or {}).get("command"):
            runner(spec["init"], app_dir, env)
        stdout, stderr = runner(spec["generate"], app_dir, env)
        manifests = parse_manifests(stdout)
        return CMPResult(plugin_name(cfg), discovered, added, stdout, stderr, manifests)
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)
