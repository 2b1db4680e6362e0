"""Fixtures of the `container` tests: a podman that can run containers here, the function image
built from this checkout (once per machine, see engine.py), and client environments using them."""

from __future__ import annotations

import pytest

from clients import kit
from container import engine


@pytest.fixture(scope="session")
def engine_ready() -> dict:
    """The process environment with our podman configuration; skipped only where no container can start."""
    try:
        engine.check_engine()
    except engine.Unavailable as e:
        pytest.skip(f"no container runtime: {e}")
    return engine.engine_env()


@pytest.fixture(scope="session")
def image(engine_ready) -> str:
    """Reference of the function image of this checkout (built on first use, then reused)."""
    try:
        return engine.ensure_image(engine_ready)
    except engine.Unavailable as e:
        pytest.skip(f"cannot build the image here: {e}")


@pytest.fixture
def cenv(tmp_path, engine_ready) -> dict:
    """A client environment (kit.client_env) in which kpt, kubectl and `docker` run our podman."""
    return engine.engine_env(kit.client_env(tmp_path))


@pytest.fixture(scope="session")
def exec_unwrap(kpt, fn, tmp_path_factory) -> kit.Run:
    """The exec route's `kpt fn eval demo --exec FN -o unwrap`: what the image must print too."""
    tmp = tmp_path_factory.mktemp("exec-unwrap")
    pkg = kit.copy_tree(kit.DEMO, tmp / "demo")
    return kit.run([kpt, "fn", "eval", pkg, "--exec", fn, "-o", "unwrap"], cwd=tmp, env=kit.client_env(tmp)).ok()
