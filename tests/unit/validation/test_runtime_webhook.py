"""kpt_fn.validation.runtime_webhook: what is release-specific in the runtime webhooks (their objectSelector)
and the rule records; the webhooks' own cases are ported in tests/upstream/trainer/test_webhooks_trainingruntime.py."""

from __future__ import annotations

import pytest

from kpt_fn import upstream
from kpt_fn.problems import WARNING
from kpt_fn.trainer_names import ANCESTOR_LABEL
from kpt_fn.upstream.behaviour import switch_on
from kpt_fn.validation import runtime_webhook as rw


def runtime(kind="ClusterTrainingRuntime", labels=None, replicas=2, container="other"):
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": kind, "metadata": {"name": "rt", "labels": labels or {}},
            "spec": {"template": {"spec": {"replicatedJobs": [{"name": "node", "replicas": replicas, "template": {
                "metadata": {"labels": {ANCESTOR_LABEL: "trainer"}},
                "spec": {"template": {"spec": {"containers": [{"name": container}]}}}}}]}}}}


V2_3_0 = upstream.bundle("v2.3.0")


def rules_of(problems):
    return [p.rule for p in problems]


@pytest.mark.parametrize("release", ["v2.3.0", "v2.2.1"])
def test_an_ancestor_job_needs_one_replica_and_its_container(release):
    problems = rw.check(runtime(), upstream.bundle(release))
    assert rules_of(problems) == [rw.RULE_REPLICAS, rw.RULE_CONTAINER]
    assert [p.path for p in problems] == ["spec.template.spec.replicatedJobs[0].replicas",
                                          "spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers"]
    assert rw.check(runtime(replicas=1, container="node"), upstream.bundle(release)) == []


@pytest.mark.parametrize("replicas", [None, 1])
def test_absent_or_null_replicas_is_one(replicas):
    rt = runtime(replicas=replicas, container="node")
    assert rw.check(rt, V2_3_0) == []
    del rt["spec"]["template"]["spec"]["replicatedJobs"][0]["replicas"]
    assert rw.check(rt, V2_3_0) == []


def test_true_is_not_one():
    assert rules_of(rw.check(runtime(replicas=True, container="node"), V2_3_0)) == [rw.RULE_REPLICAS]


def test_only_v2_3_0_skips_a_runtime_labelled_disabled():
    disabled = runtime(labels={rw.WEBHOOK_VALIDATION_LABEL: rw.DISABLED, rw.SUPPORT_LABEL: rw.DEPRECATED})
    assert rw.check(disabled, upstream.bundle("v2.3.0")) == []
    assert rules_of(rw.check(disabled, upstream.bundle("v2.2.1"))) == [rw.RULE_DEPRECATED, rw.RULE_REPLICAS, rw.RULE_CONTAINER]


def test_deprecated_warning_is_for_cluster_runtimes_only():
    labels = {rw.SUPPORT_LABEL: rw.DEPRECATED}
    [warning] = rw.check(runtime(labels=labels, replicas=1, container="node"), V2_3_0)
    assert (warning.severity, warning.path) == (WARNING, f"metadata.labels[{rw.SUPPORT_LABEL}]")
    assert rw.check(runtime("TrainingRuntime", labels=labels, replicas=1, container="node"), V2_3_0) == []


def test_other_kinds_are_not_checked():
    assert rw.check({**runtime(), "kind": "JobSet"}, V2_3_0) == []


def _rules(release):
    return [r for r in rw.RULES if switch_on(upstream.bundle(release).behaviour, r.behaviour)]


def test_rules_say_which_runtimes_the_release_skips():
    assert [r.id for r in _rules("v2.3.0")] == [rw.RULE_REPLICAS, rw.RULE_CONTAINER, rw.RULE_DEPRECATED]
    assert [r.id for r in _rules("v2.2.1")] == [rw.RULE_REPLICAS, rw.RULE_CONTAINER, rw.RULE_DEPRECATED]
    assert all("webhook-validation: disabled" in r.description for r in _rules("v2.3.0"))
    assert not any("webhook-validation" in r.description for r in _rules("v2.2.1"))
