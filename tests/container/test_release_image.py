"""The release workflow's image step (.github/workflows/release.yaml, "Build the image for amd64 and arm64")
run here as the other container tests build the image: with podman, the local Debian base, no pull and
no kubeconform download (offline). The step's own command line is run, with only the engine and the
offline options put in; arm64 needs an emulator (the workflow sets up QEMU) and runs only where podman
can run arm64 containers."""

from __future__ import annotations

import platform
import shlex
import sys

import pytest
import yaml

import kpt_fn
from container import engine

pytestmark = pytest.mark.container

WORKFLOW = engine.ROOT / ".github" / "workflows" / "release.yaml"
STEP = "Build the image for amd64 and arm64"


def _build_line() -> str:
    step = next(s for s in yaml.safe_load(WORKFLOW.read_text())["jobs"]["release"]["steps"] if s.get("name") == STEP)
    lines = [line.strip() for line in step["run"].splitlines() if "build-image.sh" in line]
    assert len(lines) == 1 and "--engine docker" in lines[0], step["run"]
    return lines[0]


def test_the_release_image_builds_offline_and_runs(engine_ready, tmp_path):
    arch = {"x86_64": "amd64", "aarch64": "arm64"}.get(platform.machine())
    if arch is None:
        pytest.skip(f"no image architecture for {platform.machine()}")
    base = engine.ensure_base(engine_ready)
    tag = f"v{kpt_fn.__version__}"
    ref = f"{engine.IMAGE_REPO}:release-test-{arch}"
    line = _build_line().replace('"$IMAGE:$GITHUB_REF_NAME-$arch"', ref).replace('"$arch"', arch)
    argv = shlex.split(line)
    argv[0] = str(engine.ROOT / argv[0])
    argv[argv.index("docker")] = "podman"
    # The local base is Debian's Python 3.11, not python:3.12-slim: the script asks the base instead.
    i = argv.index("--python")
    del argv[i:i + 2]
    argv[1:1] = ["--base", base, "--pull", "never", "--no-kubeconform"]
    engine.run(argv, env={**engine_ready, "PYTHON": sys.executable, "PIP_NO_INPUT": "1",
                          "PIP_DISABLE_PIP_VERSION_CHECK": "1"}, timeout=1500)
    done = engine.run(["podman", "run", "--rm", "--network", "none", ref, "--version"], env=engine_ready)
    assert done.stdout.startswith(f"expand-trainjobs, version {kpt_fn.__version__}\n")
    assert tag in done.stdout
    engine.run(["podman", "rmi", ref], env=engine_ready, check=False)
