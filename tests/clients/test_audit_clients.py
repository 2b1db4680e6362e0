"""Audit findings through the real clients (see tests/test_audit.py): runs that said ok while a
TrainJob was not rendered."""

from __future__ import annotations

import pytest

from clients import kit

pytestmark = pytest.mark.clients

JOB = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
  namespace: team-a
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  runtimeRef:
    name: torch-distributed
"""


def test_kubectl_kustomize_generator_with_trainjobs_under_resources_fails(kubectl, fn, tmp_path):
    """kustomize hands a generator none of the resources: the local-config TrainJob listed there used to
    vanish from the output, exit 0."""
    app = tmp_path / "app"
    app.mkdir()
    (app / "jobs.yaml").write_text(JOB.format(name="mnist"))
    (app / "other.yaml").write_text(JOB.format(name="other"))
    (app / "expander.yaml").write_text(
        "apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nmetadata:\n  name: expand\nspec:\n  files: [other.yaml]\n"
    )
    (app / "kustomization.yaml").write_text("resources: [jobs.yaml]\ngenerators: [expander.yaml]\n")
    env = kit.client_env(tmp_path, KUSTOMIZE_PLUGIN_HOME=kit.PLUGIN_HOME, EXPAND_TRAINJOBS=fn)
    r = kit.run([kubectl, "kustomize", "--enable-alpha-plugins", app], env=env).failed()
    assert "TrainJob team-a/mnist in jobs.yaml" in r.stderr and "listed under resources:" in r.stderr
    # Listed under transformers:, the same kustomization renders both.
    (app / "kustomization.yaml").write_text("resources: [jobs.yaml]\ntransformers: [expander.yaml]\n")
    r = kit.run([kubectl, "kustomize", "--enable-alpha-plugins", app], env=env).ok()
    assert sorted(n for k, _, n in kit.ids(kit.load_stream(r.stdout)) if k == "JobSet") == ["mnist", "other"]
