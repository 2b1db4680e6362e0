"""The function under container constraints at process level: uid 65534
(`nobody`, as kpt and kustomize run containers: kpt internal/fnruntime/container.go, kustomize
kyaml/runfn/runfn.go getUIDGID), no network, an empty environment and cwd `/`,
from an install made the way the Dockerfile makes it."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from clients import kit

pytestmark = pytest.mark.clients

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
EMPTY_ENV = ["env", "-i", "PATH=/usr/bin:/bin", "HOME=/nonexistent", "LOG_TO_STDERR=true", "STRUCTURED_RESULTS=true"]


@pytest.fixture
def sandbox(readable_fn):
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed")
    return ["unshare", "-n", *NOBODY, *EMPTY_ENV, readable_fn]


def test_krm_as_nobody_without_network(kpt, sandbox, demo, env, tmp_path, demo_objects):
    rl = kit.run([kpt, "fn", "source", demo], cwd=tmp_path, env=env).ok().stdout
    r = kit.run(sandbox, cwd="/", input=rl).ok()
    assert r.stdout.startswith("apiVersion:")
    kit.assert_same_objects(kit.normalize(kit.resource_list_items(r.stdout)), demo_objects, "as nobody without network")
    assert r.stderr.startswith("expand-trainjobs: ok:")


def test_help_and_render_as_nobody_in_a_read_only_tree(sandbox):
    assert kit.run([*sandbox, "--help"], cwd="/").ok().stdout.startswith("Usage: expand-trainjobs")
    # render writes nothing: a tree nobody cannot write to is enough.
    d = tempfile.mkdtemp(prefix="expand-trainjobs-ro-")
    try:
        os.chmod(d, 0o755)
        app = kit.copy_tree(kit.FIXTURES / "examples" / "torch-job", os.path.join(d, "app"))
        r = kit.run([*sandbox, "render"], cwd=app).ok()
        assert ("JobSet", "default", "torch-job") in kit.ids(kit.load_stream(r.stdout))
    finally:
        shutil.rmtree(d)
