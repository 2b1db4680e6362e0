"""Ports of pkg/webhooks/trainjob_webhook_test.go TestValidateCreate at v2.3.0 and
test/integration/webhooks/trainjob_test.go: the runtime registry key and the deprecation warning
(pkg/runtime/core/clustertrainingruntime.go ValidateObjects)."""

from __future__ import annotations

from kpt_fn import upstream
from kpt_fn.engine import EngineOptions, admission, expand
from kpt_fn.problems import WARNING
from support.admission_kit import runtime, trainjob, errors, NODE


# --- webhook: registry key, deprecation -----------------------------------------------------------


def test_unsupported_runtime():
    tj = trainjob()
    tj["spec"]["runtimeRef"]["apiGroup"] = "example.com"
    assert errors(admission(tj, runtime(NODE), EngineOptions(bundle=upstream.bundle("v2.3.0")))) == [
        ("spec.runtimeRef", "unsupported runtime: TrainingRuntime.example.com")]
    result = expand(tj, runtime(NODE), EngineOptions(bundle=upstream.bundle("v2.3.0")))
    assert result.objects == [] and errors(result.problems)  # even with admission off


def test_empty_api_group_key_is_kind_only():
    tj = trainjob(kind="ClusterTrainingRuntime")
    tj["spec"]["runtimeRef"]["apiGroup"] = ""
    assert errors(admission(tj, runtime(NODE, kind="ClusterTrainingRuntime"), EngineOptions(bundle=upstream.bundle("v2.3.0")))) == [
        ("spec.runtimeRef", "unsupported runtime: ClusterTrainingRuntime")]


def test_deprecated_cluster_runtime_warns():
    rt = runtime(NODE, kind="ClusterTrainingRuntime", name="old",
                 labels={"trainer.kubeflow.org/support": "deprecated"})
    problems = admission(trainjob(runtime_name="old", kind="ClusterTrainingRuntime"), rt, EngineOptions(bundle=upstream.bundle("v2.3.0")))
    assert [(p.severity, p.message) for p in problems] == [(WARNING, (
        'Referenced ClusterTrainingRuntime "old" is deprecated and will be removed in a future release of Kubeflow '
        "Trainer. See runtime deprecation policy: "
        "https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html#runtime-deprecation-policy"))]
    # A warning does not stop the render.
    assert expand(trainjob(runtime_name="old", kind="ClusterTrainingRuntime"), rt, EngineOptions(bundle=upstream.bundle("v2.3.0"))).objects


def test_deprecated_namespaced_runtime_does_not_warn():
    rt = runtime(NODE, labels={"trainer.kubeflow.org/support": "deprecated"})
    assert admission(trainjob(), rt, EngineOptions(bundle=upstream.bundle("v2.3.0"))) == []
