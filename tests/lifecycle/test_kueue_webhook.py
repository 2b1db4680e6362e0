"""Kueue's JobSet webhook on CREATE (tests/lifecycle/kueue_webhook.py) against Kueue v0.19.2's own tables:
`pkg/controller/jobframework/defaults_test.go` TestWorkloadShouldBeSuspended and
TestApplyDefaultLocalQueueWithManagedJobsNamespaceSelector, by case name (a JobSet in place of their Job)."""

from __future__ import annotations

import pytest

from lifecycle import kueue_webhook as kw

MANAGED, UNMANAGED = "managed-ns", "unmanaged-ns"


def _jobset(namespace=MANAGED, queue=None, suspend=None) -> dict:
    md = {"name": "test-job", "namespace": namespace}
    if queue:
        md["labels"] = {kw.QUEUE_LABEL: queue}
    spec = {"replicatedJobs": []}
    if suspend is not None:
        spec["suspend"] = suspend
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": md, "spec": spec}


# TestWorkloadShouldBeSuspended: case -> (queue, manageJobsWithoutQueueName, namespace, wantSuspend)
SHOULD_BE_SUSPENDED = {
    "job with queue name ": ("default", False, MANAGED, True),
    "job with queue name manageJobs": ("default", True, MANAGED, True),
    "job without queue name": (None, False, MANAGED, False),
    "job without queue name with manageJobs": (None, True, MANAGED, True),
    "job without queue name with manageJobs in unmanaged ns": (None, True, UNMANAGED, False),
}
NOT_PORTED = {
    "job without queue name but with managed parent with manageJobs": "an owner managed by Kueue: a rendered JobSet has none",
    "job with ownerReference to a deleted known parent while terminating (GC teardown)": "a create is never of an object being deleted",
    "job with ownerReference to a deleted known parent while terminating, without tolerance": "as above",
    "job with ownerReference to a deleted known parent while terminating, gate disabled": "as above",
    "job with ownerReference to a missing parent while not terminating (cache lag)": "owners: a rendered JobSet has none",
    "job without queue name with manageJobs with feature disabled": "a feature gate off by default in v0.19.2",
    "TestDefault (pkg/controller/jobs/jobset/jobset_webhook_test.go)": "every case is MultiKueue's managedBy defaulting: "
                                                                        "no ClusterQueue or admission check is emulated",
}


@pytest.mark.parametrize("case", sorted(SHOULD_BE_SUSPENDED))
def test_workload_should_be_suspended(case):
    queue, manage, namespace, want = SHOULD_BE_SUSPENDED[case]
    config = kw.KueueConfig(manage_jobs_without_queue_name=manage, managed_namespaces=frozenset({MANAGED}))
    assert kw.should_be_suspended(_jobset(namespace, queue), config) is want
    assert kw.default_on_create(_jobset(namespace, queue), config)["spec"].get("suspend", False) is want


# TestApplyDefaultLocalQueueWithManagedJobsNamespaceSelector: case -> (namespace, queue, wantQueueLabel)
DEFAULT_LOCAL_QUEUE = {
    "job in managed namespace gets default queue label": (MANAGED, None, "default"),
    "job in unmanaged namespace does not get default queue label": (UNMANAGED, None, ""),
    "job in managed namespace with existing queue label is not overwritten": (MANAGED, "other", "other"),
}


@pytest.mark.parametrize("case", sorted(DEFAULT_LOCAL_QUEUE))
def test_default_local_queue(case):
    namespace, queue, want = DEFAULT_LOCAL_QUEUE[case]
    config = kw.KueueConfig(default_queue_namespaces=frozenset({MANAGED, UNMANAGED}), managed_namespaces=frozenset({MANAGED}))
    labels = kw.default_local_queue(_jobset(namespace, queue), config)["metadata"].get("labels") or {}
    assert labels.get(kw.QUEUE_LABEL, "") == want


def test_a_defaulted_queue_suspends_the_jobset_too():
    # Default runs the queue defaulting before the suspend defaulting (jobset_webhook.go :80-85).
    config = kw.KueueConfig(default_queue_namespaces=frozenset({MANAGED}))
    assert kw.default_on_create(_jobset(), config)["spec"]["suspend"] is True


def test_a_render_without_suspend_is_suspended_like_one_with_it():
    config = kw.KueueConfig()
    assert kw.default_on_create(_jobset(queue="q"), config) == kw.default_on_create(_jobset(queue="q", suspend=True), config)


def test_where_the_jobset_integration_is_off_the_webhook_does_nothing():
    # jobset_webhook.go :60-61: a no-op webhook; the JobSet is created as rendered, and starts at once.
    config = kw.KueueConfig(jobset_integration=False)
    assert kw.default_on_create(_jobset(queue="q"), config) == _jobset(queue="q")
