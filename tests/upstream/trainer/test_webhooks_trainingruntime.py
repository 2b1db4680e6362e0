"""Runtime-webhook family, ported from upstream pkg/webhooks/{trainingruntime,clustertrainingruntime}
_webhook_test.go and test/integration/webhooks (values and indices as there, objects in YAML)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from support import upstream_data
import yaml

from kpt_fn import upstream, validation
from kpt_fn.problems import WARNING

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "validation"
RUNTIMES = upstream_data.TRAINER / "manifests" / "base" / "runtimes"

RJOBS = "spec.template.spec.replicatedJobs"
DEPRECATED = ('ClusterTrainingRuntime "test-runtime" is deprecated and will be removed in a future release of '
              "Kubeflow Trainer. See runtime deprecation policy: "
              "https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html#runtime-deprecation-policy")


def runtime() -> dict:
    return yaml.safe_load((FIXTURES / "trainingruntime_minimal.yaml").read_text())


def launcher() -> dict:
    """upstream JobSetWrapper.LauncherReplica(): a launcher job without ancestor label, before node."""
    return {"name": "launcher", "groupName": "default", "template": {"spec": {"template": {"spec": {
        "containers": [{"name": "node", "image": "mpi", "command": ["mpirun"], "args": ["echo.sh"]}]}}}}}


def problems(rt):
    return [(p.path, p.message) for p in validation.check_runtime_webhook(rt, upstream.bundle("v2.3.0"))]


def test_valid_replicated_jobs():
    rt = runtime()
    rt["spec"]["template"]["spec"]["replicatedJobs"].insert(2, launcher())
    assert problems(rt) == []


def test_absent_replicas_default_to_one():
    rt = runtime()
    for rjob in rt["spec"]["template"]["spec"]["replicatedJobs"]:
        del rjob["replicas"]
    assert problems(rt) == []


def test_unknown_user_specified_ancestor_is_not_checked():
    rt = runtime()
    for rjob in rt["spec"]["template"]["spec"]["replicatedJobs"]:
        rjob["replicas"] = 2
        rjob["template"]["metadata"]["labels"]["trainer.kubeflow.org/trainjob-ancestor-step"] = "user-specified"
    assert problems(rt) == []


def test_invalid_replicas():
    rt = runtime()
    rjobs = rt["spec"]["template"]["spec"]["replicatedJobs"]
    rjobs.insert(2, launcher())
    for rjob in rjobs:
        rjob["replicas"] = 2
    assert problems(rt) == [
        (f"{RJOBS}[0].replicas", "always must be 1"),
        (f"{RJOBS}[1].replicas", "always must be 1"),
        (f"{RJOBS}[3].replicas", "always must be 1"),
    ]


def test_zero_replicas_is_not_defaulted():
    rt = runtime()
    rt["spec"]["template"]["spec"]["replicatedJobs"][2]["replicas"] = 0
    assert problems(rt) == [(f"{RJOBS}[2].replicas", "always must be 1")]


def test_missing_required_container():
    rt = runtime()
    for rjob in rt["spec"]["template"]["spec"]["replicatedJobs"]:
        rjob["template"]["spec"]["template"]["spec"]["containers"][0]["name"] = "test"
    containers = "template.spec.template.spec.containers"
    assert problems(rt) == [
        (f"{RJOBS}[0].{containers}", "must contain the required container for the ancestor: dataset-initializer"),
        (f"{RJOBS}[1].{containers}", "must contain the required container for the ancestor: model-initializer"),
        (f"{RJOBS}[2].{containers}", "must contain the required container for the ancestor: trainer"),
    ]


def test_init_container_does_not_count():
    rt = runtime()
    pod = rt["spec"]["template"]["spec"]["replicatedJobs"][2]["template"]["spec"]["template"]["spec"]
    pod["initContainers"] = pod.pop("containers")
    assert problems(rt) == [(f"{RJOBS}[2].template.spec.template.spec.containers",
                             "must contain the required container for the ancestor: trainer")]


def cluster_runtime(labels=None) -> dict:
    rt = runtime()
    rt["kind"] = "ClusterTrainingRuntime"
    rt["metadata"] = {"name": "test-runtime"}
    if labels:
        rt["metadata"]["labels"] = labels
    return rt


def test_cluster_runtime_without_deprecation_label():
    # upstream test/integration/webhooks: "Should succeed to create ClusterTrainingRuntime"
    assert validation.check_runtime_webhook(cluster_runtime(), upstream.bundle("v2.3.0")) == []
    assert validation.check_object(cluster_runtime(), upstream.bundle("v2.3.0")) == []


def test_cluster_runtime_deprecation_warning():
    rt = cluster_runtime({"trainer.kubeflow.org/support": "deprecated"})
    (p,) = validation.check_runtime_webhook(rt, upstream.bundle("v2.3.0"))
    assert (p.severity, p.message, p.rule) == (WARNING, DEPRECATED, "runtime-webhook/deprecated")
    assert p.path == "metadata.labels[trainer.kubeflow.org/support]"
    assert p.subject is rt


def test_namespaced_runtime_gets_no_deprecation_warning():
    rt = runtime()
    rt["metadata"]["labels"] = {"trainer.kubeflow.org/support": "deprecated"}
    assert validation.check_runtime_webhook(rt, upstream.bundle("v2.3.0")) == []


def test_other_kinds_are_ignored():
    js = yaml.safe_load((FIXTURES / "jobset_torchtune.yaml").read_text())
    assert validation.check_runtime_webhook(js, upstream.bundle("v2.3.0")) == []


def test_errors_and_warning_together():
    rt = cluster_runtime({"trainer.kubeflow.org/support": "deprecated"})
    rt["spec"]["template"]["spec"]["replicatedJobs"][0]["replicas"] = 3
    got = [(p.severity, p.path) for p in validation.check_runtime_webhook(rt, upstream.bundle("v2.3.0"))]
    assert got == [(WARNING, "metadata.labels[trainer.kubeflow.org/support]"), ("error", f"{RJOBS}[0].replicas")]


# ---------------------------------------------------------------------------------------------
# The shipped runtimes

def _shipped() -> list[Path]:
    return sorted(p for p in RUNTIMES.rglob("*.yaml") if p.name != "kustomization.yaml")


@pytest.mark.upstream
def test_nine_shipped_runtimes():
    assert len(_shipped()) == 9


@pytest.mark.upstream
def test_shipped_runtimes_validate_with_zero_problems():
    for path in _shipped():
        rt = yaml.safe_load(path.read_text())
        assert rt["kind"] == "ClusterTrainingRuntime", path.name
        before = copy.deepcopy(rt)
        assert validation.check_object(rt, upstream.bundle("v2.3.0")) == [], path.name
        assert validation.check_runtime_webhook(rt, upstream.bundle("v2.3.0")) == [], path.name
        assert rt == before, path.name  # never mutated
