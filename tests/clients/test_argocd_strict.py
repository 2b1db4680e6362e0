"""`strict` through the emulated Argo CD sidecar (tests/support/argocd_cmp.py): a successful generate's stderr
never reaches the user (argo-cd v3.5 cmpserver/plugin/plugin.go runCommand logs it only), so a warning
is lost; with the `strict` parameter it fails the generate, and the failure carries the message."""

from __future__ import annotations

import shutil
import tempfile

import pytest

from support import argocd_cmp as cmp
from clients import kit
from kpt_fn import yamlio

pytestmark = pytest.mark.clients

TRAINJOB = {
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
    "metadata": {"name": "mnist", "annotations": {kit.LOCAL_CONFIG: "true"}},
    "spec": {"runtimeRef": {"name": "torch-distributed"}},
}
ODD = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJobTemplate", "metadata": {"name": "t"}}


@pytest.fixture
def generate(fn, tmp_path):
    app = tmp_path / "repo" / "apps" / "train"
    app.mkdir(parents=True)
    (app / "expand-trainjobs.yaml").write_text("")
    (app / "trainjob.yaml").write_text(yamlio.dump_all([TRAINJOB, ODD]))
    work_root = tempfile.mkdtemp(prefix="argocd-cmp-strict-")

    def _generate(**kw):
        return cmp.generate(kit.PLUGIN_YAML, tmp_path / "repo", "apps/train", work_root=work_root,
                            command_map={kit.IMAGE_PATH_IN_PLUGIN_YAML: fn}, **kw)

    yield _generate
    shutil.rmtree(work_root, ignore_errors=True)


def test_a_warning_is_lost_without_strict_and_fails_the_sync_with_it(generate):
    result = generate()
    assert any(m["kind"] == "JobSet" for m in result.manifests)
    assert ": warning: " in result.stderr  # written, but only the sidecar's log would ever hold it
    with pytest.raises(cmp.CMPError) as e:
        generate(parameters=[{"name": "strict", "string": "true"}])
    assert "failed exit status 1" in str(e.value) and "TrainJobTemplate" in str(e.value)
