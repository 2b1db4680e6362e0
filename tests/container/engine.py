"""The container engine for the `container` tests: podman configured for these machines, a local
Debian base image made with mmdebstrap, and the function image built with deploy/build-image.sh.

Both images are built once per machine under a file lock (pytest-xdist workers and concurrent runs
share them) and tagged with a hash of their inputs, so an unchanged checkout reuses them and any
change to the sources, the Dockerfile, the pins or the build script makes a new one.

Why podman is configured this way (found by trying it on a Debian bookworm VM as root without a
daemon): crun cannot set rlimits without CAP_SYS_RESOURCE and trips on hybrid cgroups, so runc with
the cgroupfs manager and explicit ulimits; no journald/systemd, so events go to a file. The
configuration is a file of our own named by CONTAINERS_CONF, never the machine's /etc/containers.
kubectl's kustomize calls `docker run`: a `docker` shim that execs podman is put first on PATH.
The docker CLI must NOT talk to podman's API socket instead: with `--rm` it loses the exit code,
and a failing function looks like success.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from support.build_inputs import file_lock, source_files

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "expand-trainjobs-tests" / "container"

CONTAINERS_CONF = """\
# Written by tests/container/engine.py for the container tests (CONTAINERS_CONF points here).
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
"""

# `docker` for clients that only know docker (kubectl kustomize): the same command line, run by
# podman in this process (exit code and streams intact). DOCKER_SHIM_LOG records each call.
DOCKER_SHIM = """\
#!/bin/sh
if [ -n "$DOCKER_SHIM_LOG" ]; then printf 'docker %s\\n' "$*" >> "$DOCKER_SHIM_LOG"; fi
exec podman "$@"
"""

BASE_SUITE = "bookworm"
BASE_PACKAGES = "python3,python3-venv,ca-certificates"
BASE_REPO = "localhost/expand-trainjobs-test-base"
IMAGE_REPO = "localhost/expand-trainjobs"

# What deploy/build-image.sh puts into the image: the package's sources (as pip builds them), the
# Dockerfile, the pins, the plugin configuration and the schemas. Tests, fixtures and docs are not.
_NOT_IMAGE_INPUTS = {".git", ".venv", "venv", "build", "dist", "node_modules", "tests", "fixtures", "bench", "examples", "deploy", "docs"}


class Unavailable(Exception):
    """No container can be run or built here; the message says why."""



def run(argv, *, env=None, timeout=600, input=None, check=True) -> subprocess.CompletedProcess:
    p = subprocess.run([str(a) for a in argv], env=env, input=input, capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, argv))} exited {p.returncode}\n--- stdout\n{p.stdout[-3000:]}\n--- stderr\n{p.stderr[-3000:]}")
    return p


# --- podman -------------------------------------------------------------------------------------------


def setup_dir() -> Path:
    """containers.conf and the docker shim, (re)written on every session: never edited by hand."""
    d = CACHE / "engine"
    d.mkdir(parents=True, exist_ok=True)
    with file_lock(CACHE / "engine.lock"):
        _write_if_changed(d / "containers.conf", CONTAINERS_CONF, 0o644)
        (d / "bin").mkdir(exist_ok=True)
        _write_if_changed(d / "bin" / "docker", DOCKER_SHIM, 0o755)
    return d


def _write_if_changed(path: Path, text: str, mode: int) -> None:
    if not path.exists() or path.read_text() != text:
        tmp = path.with_name(path.name + f".{os.getpid()}")
        tmp.write_text(text)
        tmp.chmod(mode)
        os.replace(tmp, path)


def engine_env(base_env: dict | None = None) -> dict:
    """An environment in which `podman`, kpt (KPT_FN_RUNTIME) and `docker` all run our podman."""
    d = setup_dir()
    env = dict(os.environ if base_env is None else base_env)
    env["CONTAINERS_CONF"] = str(d / "containers.conf")
    env["KPT_FN_RUNTIME"] = "podman"
    env["PATH"] = f"{d / 'bin'}{os.pathsep}{env.get('PATH', os.defpath)}"
    return env


def check_engine() -> None:
    """Raise Unavailable unless podman can start a container here."""
    if shutil.which("podman") is None:
        raise Unavailable("podman is not installed (.ci/run installs podman, runc and mmdebstrap with apt)")
    if os.geteuid() != 0:
        raise Unavailable("the container tests run rootful podman: run them as root")
    env = engine_env()
    try:
        p = run(["podman", "info", "--format", "{{.Host.OCIRuntime.Name}}"], env=env, timeout=120, check=False)
    except subprocess.TimeoutExpired:
        raise Unavailable("`podman info` timed out") from None
    if p.returncode != 0:
        raise Unavailable(f"podman cannot start: {p.stderr.strip()[-800:]}")
    if p.stdout.strip() != "runc":
        raise Unavailable(f"podman uses OCI runtime {p.stdout.strip()!r}, not runc: is runc installed?")


def image_exists(ref: str, env: dict) -> bool:
    return run(["podman", "image", "exists", ref], env=env, check=False, timeout=120).returncode == 0


# --- the base image -----------------------------------------------------------------------------------


def base_ref() -> str:
    key = hashlib.sha256(f"mmdebstrap --variant=minbase --include={BASE_PACKAGES} {BASE_SUITE}".encode()).hexdigest()[:12]
    return f"{BASE_REPO}:{BASE_SUITE}-{key}"


def ensure_base(env: dict) -> str:
    """A Debian bookworm with python3 (3.11), venv and CA certificates, made from Debian packages."""
    ref = base_ref()
    with file_lock(CACHE / "base.lock"):
        if image_exists(ref, env):
            return ref
        if shutil.which("mmdebstrap") is None:
            raise Unavailable("mmdebstrap is not installed (.ci/run installs it with apt)")
        with tempfile.TemporaryDirectory(prefix="expand-trainjobs-base-") as tmp:
            tar = Path(tmp) / "base.tar"
            run(["mmdebstrap", "--quiet", "--variant=minbase", f"--include={BASE_PACKAGES}", BASE_SUITE, tar], env=env, timeout=1500)
            run(["podman", "import", "--quiet", "--change", 'CMD ["/bin/sh"]', tar, ref], env=env, timeout=600)
    return ref


# --- the function image -------------------------------------------------------------------------------


def _image_input_files():
    yield from source_files(_NOT_IMAGE_INPUTS)
    yield ROOT / "deploy" / "build-image.sh"


def image_key(base: str) -> str:
    h = hashlib.sha256(base.encode() + b"\0")
    for f in _image_input_files():
        h.update(str(f.relative_to(ROOT)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def ensure_image(env: dict) -> str:
    """The function image of this checkout (without kubeconform: no internet here)."""
    base = ensure_base(env)
    ref = f"{IMAGE_REPO}:test-{image_key(base)}"
    with file_lock(CACHE / "image.lock"):
        if image_exists(ref, env):
            return ref
        build_env = {**env, "PYTHON": sys.executable, "PIP_NO_INPUT": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        run([ROOT / "deploy" / "build-image.sh", "--engine", "podman", "--base", base, "--pull", "never", "--no-kubeconform", ref],
            env=build_env, timeout=1500)
        _prune_images(ref, env)
    return ref


def _prune_images(keep: str, env: dict) -> None:
    # Test images of earlier source states, unused for a day (another run may still use a recent one).
    p = run(["podman", "images", "--format", "{{.Repository}}:{{.Tag}}", "--filter", "until=24h", "--filter", f"reference={IMAGE_REPO}"], env=env, check=False)
    for ref in p.stdout.split():
        if ref.startswith(f"{IMAGE_REPO}:test-") and ref != keep:
            run(["podman", "rmi", ref], env=env, check=False)
