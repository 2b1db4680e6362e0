"""kpt_fn.validation: the public entry points take any value, check only the kinds they know, and
select the release's checks (the rule families themselves have their own tests)."""

from __future__ import annotations

import pytest

from kpt_fn import upstream, validation

TJ = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "tj", "namespace": "ns"},
      "spec": {"runtimeRef": {"name": "torch-distributed"}}}


@pytest.mark.parametrize("value", [None, "text", [TJ], 3])
def test_nothing_raises_for_a_value_that_is_not_an_object(value):
    assert validation.check_object(value, upstream.bundle("v2.3.0")) == []
    assert validation.check_runtime_webhook(value, upstream.bundle("v2.3.0")) == []
    assert validation.check_jobset_webhook(value, upstream.bundle("v2.3.0")) == []
    assert validation.check_job_templates(value) == []


def test_unknown_kinds_are_not_checked():
    other = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "Not A Name"}, "spec": 1}
    assert validation.check_object(other, upstream.bundle("v2.3.0")) == []
    assert validation.check_jobset_webhook(TJ, upstream.bundle("v2.3.0")) == [] and validation.check_job_templates(TJ) == []


@pytest.mark.parametrize("release", upstream.RELEASES)
def test_a_valid_trainjob_has_no_problem(release):
    assert validation.check_object(TJ, upstream.bundle(release)) == []


def test_check_object_reports_meta_schema_and_cel_with_the_object_as_subject():
    bad = {**TJ, "metadata": {"name": "Bad_Name", "namespace": "ns", "labels": {"a b": "c"}}, "spec": {
        "runtimeRef": {"name": "rt"}, "suspend": "yes"}}
    problems = validation.check_object(bad, upstream.bundle("v2.3.0"))
    paths = {p.path.split("[")[0] for p in problems}
    assert paths >= {"metadata.name", "metadata.labels", "spec.suspend"}
    assert all(p.subject is bad and p.rule for p in problems)


def test_configmap_keys_are_checked():
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "ns"}, "data": {"a/b": "x"}}
    assert [p.path for p in validation.check_object(cm, upstream.bundle("v2.3.0"))] == ["data[a/b]"]


def test_the_runtime_webhook_of_the_release():
    rt = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
          "metadata": {"name": "rt", "labels": {"trainer.kubeflow.org/webhook-validation": "disabled"}},
          "spec": {"template": {"spec": {"replicatedJobs": [{"name": "node", "replicas": 2, "template": {
              "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
              "spec": {"template": {"spec": {"containers": [{"name": "node"}]}}}}}]}}}}
    assert validation.check_runtime_webhook(rt, upstream.bundle("v2.3.0")) == []            # v2.3.0's objectSelector skips it
    assert len(validation.check_runtime_webhook(rt, upstream.bundle("v2.2.1"))) == 1


def test_every_public_name_exists():
    assert all(hasattr(validation, name) for name in validation.__all__)
