"""kpt_fn.registry: the runtime registry key of a TrainJob after the CRD defaults
(pkg/runtime/core/registry.go at v2.3.0 keys runtimes by `<kind>.<apiGroup>`)."""

from __future__ import annotations

import pytest

from kpt_fn import registry, upstream

CTR = "ClusterTrainingRuntime.trainer.kubeflow.org"


def tj(ref):
    return {"kind": "TrainJob", "spec": {"runtimeRef": ref}}


@pytest.mark.parametrize("trainjob, expected", [
    (tj({"name": "torch"}), {"name": "torch"}),
    ({"spec": {}}, {}), ({"spec": None}, {}), ({}, {}), ("not a dict", {}), (tj("torch"), {}), (tj(None), {}),
])
def test_runtime_ref(trainjob, expected):
    assert registry.runtime_ref(trainjob) == expected


@pytest.mark.parametrize("ref, key", [
    ({"name": "x"}, CTR),                                               # both defaulted
    ({"name": "x", "kind": None, "apiGroup": None}, CTR),               # null is absent to defaulting
    ({"name": "x", "kind": "TrainingRuntime"}, "TrainingRuntime.trainer.kubeflow.org"),
    ({"name": "x", "apiGroup": ""}, "ClusterTrainingRuntime"),           # an explicit "" stays ""
    ({"name": "x", "kind": ""}, ".trainer.kubeflow.org"),
    ({"name": "x", "kind": "Runtime", "apiGroup": "example.com"}, "Runtime.example.com"),
])
@pytest.mark.parametrize("release", ["v2.3.0", "v2.2.1"])
def test_registry_key(ref, key, release):
    assert registry.registry_key(tj(ref), upstream.bundle(release)) == key


def test_registry_key_reads_the_default_bundle_without_one():
    assert registry.registry_key(tj({"name": "x"}), upstream.bundle("v2.3.0")) == CTR


@pytest.mark.parametrize("key, kind", [
    (CTR, "ClusterTrainingRuntime"),
    ("TrainingRuntime.trainer.kubeflow.org", "TrainingRuntime"),
    ("ClusterTrainingRuntime", None),
    ("Runtime.example.com", None),
    ("", None),
])
def test_registered_kind(key, kind):
    assert registry.registered_kind(key) == kind
