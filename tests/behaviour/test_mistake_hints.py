"""Typical mistakes get a hint after the upstream text; the runtime lookups are in
tests/unit/test_resolve.py, the end-to-end run here."""

from __future__ import annotations

from kpt_fn import upstream
from kpt_fn import validation
from support.door import run_with

API = "trainer.kubeflow.org/v1alpha1"


def test_misspelt_field_gets_did_you_mean():
    # The API server's text verbatim, then the declared field it most likely meant (case slips
    # first; a field the object already has is not offered).
    tj = {"apiVersion": API, "kind": "TrainJob", "metadata": {"name": "j", "namespace": "a"},
          "spec": {"runtimeRef": {"name": "torch-distributed"}, "trainer": {"numNode": 2, "numprocpernode": 1, "image": "x", "imagee": "y", "zzz": 1}}}
    got = sorted((p.path, p.message) for p in validation.check_object(tj, upstream.bundle("v2.3.0")))
    assert got == [
        ("spec.trainer.imagee", 'unknown field "spec.trainer.imagee"'),
        ("spec.trainer.numNode", 'unknown field "spec.trainer.numNode"; did you mean "numNodes"?'),
        ("spec.trainer.numprocpernode", 'unknown field "spec.trainer.numprocpernode"; did you mean "numProcPerNode"?'),
        ("spec.trainer.zzz", 'unknown field "spec.trainer.zzz"'),
    ]


def test_typical_mistakes_end_to_end():
    rt = {"apiVersion": API, "kind": "TrainingRuntime", "metadata": {"name": "mine", "namespace": "team-a", "annotations": {"internal.config.kubernetes.io/path": "rt.yaml"}},
          "spec": {"mlPolicy": {"numNodes": 1, "torch": {}}, "template": {"spec": {"replicatedJobs": [{"name": "node", "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}}, "spec": {"template": {"spec": {"containers": [{"name": "node", "image": "x"}]}}}}}]}}}}

    def tj(job, ns, **ref):
        return {"apiVersion": API, "kind": "TrainJob", "metadata": {"name": job, "namespace": ns}, "spec": {"runtimeRef": ref}}

    out = run_with([rt, tj("a", "team-a", name="torch-distribted"), tj("b", "team-b", name="mine", kind="TrainingRuntime"),
                    tj("c", "team-a", name="mine", kind="TrainingRuntimes"), tj("d", "team-a", name="mine")], None)
    errors = {r["resourceRef"]["name"]: r["message"] for r in out.results if r.get("severity") == "error"}
    assert errors["a"].endswith('; did you mean "torch-distributed"?')
    assert errors["b"].startswith('TrainingRuntime.trainer.kubeflow.org "mine" not found: specified trainingRuntime must be created '
                                  'before the TrainJob is created; ')
    assert 'exists in namespace "team-a" (rt.yaml)' in errors["b"]
    assert errors["c"].startswith("unsupported runtime: TrainingRuntimes.trainer.kubeflow.org; ")
    assert errors["c"].endswith('did you mean "TrainingRuntime"?')
    assert errors["d"].endswith('; a TrainingRuntime "mine" in namespace "team-a" exists: set spec.runtimeRef.kind to TrainingRuntime')
