"""The release workflow (.github/workflows/release.yaml), its build steps run here as the runner would run
them: in a copy of the checkout, each `run:` step with bash -eo pipefail, the tag in GITHUB_REF_NAME and
RUNNER_TEMP set. The version check (right and wrong tag), the sdist and the wheel built with the
hash-pinned toolchain, and each installed in a fresh venv that renders an example. The image steps run
with podman in tests/container/test_release_image.py; pushing, the GitHub release and the pin pull
request need GitHub and are not run (scripts/pin_image.py is tested in test_pinned_sources.py).

Needs a package index for the toolchain and the dependencies (as tests/conftest.py's world-readable
venv does); pip's cache makes later runs local.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
import yaml

import kpt_fn

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "release.yaml"
BUILD_STEPS = ("The tag is the version and has its CHANGELOG section", "Build the sdist and the wheel",
               "Install each in a fresh venv and render an example")


def _steps() -> dict:
    job = yaml.safe_load(WORKFLOW.read_text())["jobs"]["release"]
    return {s["name"]: s for s in job["steps"] if "name" in s}


def _checkout(tmp_path: Path) -> Path:
    """The repository's files as a checkout of the tag has them (tracked and untracked, minus ignored)."""
    src = tmp_path / "checkout"
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        if (ROOT / rel).is_file():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            (src / rel).write_bytes((ROOT / rel).read_bytes())
            (src / rel).chmod((ROOT / rel).stat().st_mode)
    return src


def _runner_env(tmp_path: Path, python_bin: Path, tag: str) -> dict:
    temp = tmp_path / "runner-temp"
    temp.mkdir(exist_ok=True)
    keep = {k: v for k, v in os.environ.items() if k.startswith(("PIP_", "HOME", "LANG", "XDG_CACHE"))}
    return {**keep, "PATH": f"{python_bin}{os.pathsep}/usr/bin:/bin", "GITHUB_REF_NAME": tag,
            "RUNNER_TEMP": str(temp), "GITHUB_ACTIONS": "true", "CI": "true"}


def _run_step(step: dict, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    script = cwd.parent / "step.sh"
    script.write_text(step["run"])
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def python_bin(tmp_path_factory) -> Path:
    """setup-python: a bare venv of this interpreter; the build step installs the toolchain into it."""
    venv = tmp_path_factory.mktemp("setup-python") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    return venv / "bin"


def test_the_workflow_runs_on_a_release_tag_and_pins_its_actions():
    doc = yaml.safe_load(WORKFLOW.read_text())
    assert doc[True] == {"push": {"tags": ["v[0-9]+.[0-9]+.[0-9]+"]}}  # YAML 1.1 reads `on` as true
    assert doc["env"]["IMAGE"] == kpt_fn.IMAGE
    assert set(BUILD_STEPS) <= set(_steps())


@pytest.mark.parametrize("tag, ok", [(f"v{kpt_fn.__version__}", True), ("v9.9.9", False)])
def test_the_tag_must_be_the_version(tmp_path, python_bin, tag, ok):
    src = _checkout(tmp_path)
    done = _run_step(_steps()[BUILD_STEPS[0]], src, _runner_env(tmp_path, python_bin, tag))
    assert (done.returncode == 0) == ok, done.stdout + done.stderr
    if not ok:
        assert f"::error::tag {tag} is not v{kpt_fn.__version__}" in done.stdout


def test_sdist_and_wheel_are_built_installed_in_fresh_venvs_and_render(tmp_path, python_bin):
    src = _checkout(tmp_path)
    env = _runner_env(tmp_path, python_bin, f"v{kpt_fn.__version__}")
    for name in BUILD_STEPS:
        done = _run_step(_steps()[name], src, env)
        assert done.returncode == 0, f"{name}\n{done.stdout}\n{done.stderr}"
    version = kpt_fn.__version__
    dist = sorted(p.name for p in (src / "dist").iterdir())
    assert dist == [f"expand_trainjobs-{version}-py3-none-any.whl", f"expand_trainjobs-{version}.tar.gz"]
    with zipfile.ZipFile(src / "dist" / dist[0]) as whl:
        names = whl.namelist()
    assert f"expand_trainjobs-{version}.dist-info/licenses/LICENSE" in names or \
        f"expand_trainjobs-{version}.dist-info/LICENSE" in names
    assert "kpt_fn/upstream/v2_3_0/schemas.json" in names
    assert not [n for n in names if "/schemas/" in n]  # the kubeconform files are the repository's, not package data
    with tarfile.open(src / "dist" / dist[1]) as sdist:
        assert f"expand_trainjobs-{version}/LICENSE" in sdist.getnames()
    # each fresh venv ran --version and rendered the example (the step greps the JobSet)
    assert done.stdout.count(f"expand-trainjobs, version {version}") == 2
