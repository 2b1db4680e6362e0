"""TrainJob marker validations, ported from upstream test/integration/webhooks/trainjob_test.go where they
are the CRD's (schema and CEL) and not the admission webhook's."""

from __future__ import annotations

import pytest

from kpt_fn import upstream
from kpt_fn import validation

URI_MESSAGE = "storageUri may be empty, or it must be a valid URI (scheme://...)"


def trainjob(name="job", **spec):
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": name, "namespace": "ns"},
            "spec": {"runtimeRef": {"name": "testing", "apiGroup": "trainer.kubeflow.org",
                                    "kind": "TrainingRuntime"}, **spec}}


def problems(obj):
    return [(p.path, p.message) for p in validation.check_object(obj, upstream.bundle("v2.3.0"))]


@pytest.mark.parametrize("which, uri, ok", [
    ("dataset", "invalid-uri", False),
    ("dataset", "", True),
    ("dataset", "s3://", False),
    ("dataset", "s3://bucket/path", True),
    ("model", "invalid-uri", False),
    ("model", "gs://bucket/model", True),
])
def test_storage_uri(which, uri, ok):
    got = problems(trainjob(initializer={which: {"storageUri": uri}}))
    assert got == ([] if ok else [(f"spec.initializer.{which}.storageUri", URI_MESSAGE)])


@pytest.mark.parametrize("field", ["command", "args"])
def test_trainer_command_and_args_item_length(field):
    assert problems(trainjob(trainer={field: ["a" * 1048576]})) == []
    assert problems(trainjob(trainer={field: ["a" * 1048577]})) == [
        (f"spec.trainer.{field}[0]", "Too long: may not be more than 1048576 bytes")]


@pytest.mark.parametrize("name, ok", [
    ("valid-job-name", True),
    ("abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk", True),
    ("Invalid-job-name", False),
    ("1jobname", False),
    ("jobname-", False),
    ("this-name-is-way-too-long-for-a-rfc1035-label-and-should-fail-validation", False),
])
def test_rfc1035_name(name, ok):
    cel = [m for p, m in problems(trainjob(name)) if p == "metadata.name" and m.startswith("metadata.name")]
    assert (cel == []) is ok


@pytest.mark.parametrize("manager, ok", [
    ("trainer.kubeflow.org/trainjob-controller", True), ("kueue.x-k8s.io/multikueue", True), ("invalid", False)])
def test_managed_by(manager, ok):
    assert (problems(trainjob(managedBy=manager)) == []) is ok


def patch(manager="acme.io/manager", **pod_spec):
    return {"manager": manager, "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [
        {"name": "node", "template": {"spec": {"template": {"spec": pod_spec}}}}]}}}}


def test_two_replicated_job_patches():
    tj = trainjob(runtimePatches=[patch("acme.io/manager-one", serviceAccountName="custom-sa"),
                                  patch("acme.io/manager-two", serviceAccountName="custom-sa-two")])
    assert problems(tj) == []


def test_runtime_patch_with_manager_only():
    assert problems(trainjob(runtimePatches=[{"manager": "kueue.k8s.io/manager"}])) == []


@pytest.mark.parametrize("seconds, ok", [(300, True), (0, True), (-1, False)])
def test_termination_grace_period_in_runtime_patches(seconds, ok):
    got = problems(trainjob(runtimePatches=[patch(terminationGracePeriodSeconds=seconds)]))
    path = ("spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template"
            ".spec.terminationGracePeriodSeconds")
    assert got == ([] if ok else [(path, f"Invalid value: -1: {path} in body should be greater than or equal to 0")])


def test_runtime_patch_managers_are_unique():
    tj = trainjob(runtimePatches=[patch(), patch()])
    assert problems(tj) == [("spec.runtimePatches[1]", 'Duplicate value: {"manager":"acme.io/manager"}')]
