"""Session-wide outputs the client tests compare against each other."""

from __future__ import annotations

import pytest

from clients import kit


@pytest.fixture(scope="session")
def demo_unwrap(kpt, fn, tmp_path_factory) -> kit.Run:
    """`kpt fn eval demo --exec FN -o unwrap` once per session: the reference every client must match."""
    tmp = tmp_path_factory.mktemp("demo-unwrap")
    pkg = kit.copy_tree(kit.DEMO, tmp / "demo")
    return kit.run([kpt, "fn", "eval", pkg, "--exec", fn, "-o", "unwrap"], cwd=tmp, env=kit.client_env(tmp)).ok()


@pytest.fixture(scope="session")
def demo_objects(demo_unwrap) -> list:
    return kit.normalize(demo_unwrap.stdout)


@pytest.fixture
def env(tmp_path) -> dict:
    return kit.client_env(tmp_path)


@pytest.fixture
def demo(tmp_path):
    return kit.copy_tree(kit.DEMO, tmp_path / "demo")
