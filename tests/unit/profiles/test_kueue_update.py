"""kpt_fn.profiles.kueue_update against Kueue v0.19.2's own table for ValidateJobOnUpdate
(pkg/controller/jobframework/validation_test.go :255-428, TestValidateJobOnUpdate), ported as data,
plus the checks that table does not reach (max-exec-time, priority class, admission-gated-by)."""

from __future__ import annotations

import pytest

from kpt_fn.profiles import kueue_update as ku

WIA, ELASTIC = ku.WORKLOAD_IDENTIFIER_ANNOTATIONS, ku.ELASTIC_JOBS


def job(suspend=None, labels=None, annotations=None) -> dict:
    out = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "test-job", "namespace": "ns1"},
           "spec": {}}
    if suspend is not None:
        out["spec"]["suspend"] = suspend
    if labels:
        out["metadata"]["labels"] = labels
    if annotations:
        out["metadata"]["annotations"] = annotations
    return out


def queue(name, suspend):
    return job(suspend, labels={ku.QUEUE: name} if name else None)


def prebuilt_label(name, suspend=True):
    return job(suspend, labels={ku.PREBUILT: name})


def prebuilt_annotation(name, suspend=True):
    return job(suspend, annotations={ku.PREBUILT: name})


QUEUE_PATH = f"metadata.labels[{ku.QUEUE}]"
# name: (old, new, the namespace has a default LocalQueue, gates, the paths of the errors wanted)
UPSTREAM = {
    "local queue cannot be changed if job is not suspended":
        (queue("lq1", False), queue("lq2", False), False, {WIA: False}, [QUEUE_PATH]),
    "local queue can be changed": (queue("lq1", True), queue("lq2", True), True, {WIA: False}, []),
    "local queue can be changed from default": (queue("default", True), queue("lq2", True), True, {WIA: False}, []),
    "local queue cannot be removed if default queue exists and feature is enabled":
        (queue("lq1", True), queue("", True), True, {WIA: False}, [QUEUE_PATH]),
    "local queue can be removed if default queue does not exists and feature is enabled":
        (queue("lq1", True), queue("", True), False, {WIA: False}, []),
    "elastic job enabled annotation cannot be removed on update":
        (job(annotations={ku.ELASTIC: "true"}), job(), False, {ELASTIC: True}, [f"metadata.annotations[{ku.ELASTIC}]"]),
    "elastic job enabled annotation cannot be added on update":
        (job(), job(annotations={ku.ELASTIC: "true"}), False, {ELASTIC: True}, [f"metadata.annotations[{ku.ELASTIC}]"]),
    "prebuilt workload label valid on update":
        (prebuilt_label("workload-name"), prebuilt_label("workload-name"), False, {WIA: False}, []),
    "prebuilt workload annotation valid on update, WorkloadIdentifierAnnotations enabled":
        (prebuilt_annotation("workload-name"), prebuilt_annotation("workload-name"), False, {WIA: True}, []),
    "prebuilt workload label fallback valid on update, WorkloadIdentifierAnnotations enabled":
        (prebuilt_label("workload-name"), prebuilt_label("workload-name"), False, {WIA: True}, []),
    "prebuilt workload same label and annotation on update, WorkloadIdentifierAnnotations enabled":
        (job(True, {ku.PREBUILT: "workload-name"}, {ku.PREBUILT: "workload-name"}),
         job(True, {ku.PREBUILT: "workload-name"}, {ku.PREBUILT: "workload-name"}), False, {WIA: True}, []),
    "prebuilt workload annotation update, WorkloadIdentifierAnnotations enabled":
        (prebuilt_annotation("workload-name"), prebuilt_annotation("workload-name-new"), False, {WIA: True}, []),
    "prebuilt workload annotation valid for long names > 63 chars when WorkloadIdentifierAnnotations disabled":
        (prebuilt_annotation("workload-name-that-is-very-long-and-exceeds-the-63-character-label-limit-value"),
         prebuilt_annotation("workload-name-that-is-very-long-and-exceeds-the-63-character-label-limit-value"),
         False, {WIA: False}, []),
    "prebuilt workload annotation update not suspended, WorkloadIdentifierAnnotations enabled":
        (prebuilt_annotation("workload-name", False), prebuilt_annotation("workload-name-new", False), False, {WIA: True},
         [f"metadata.annotations[{ku.PREBUILT}]"]),
    "prebuilt workload label to annotation update, WorkloadIdentifierAnnotations enabled":
        (prebuilt_label("workload-name"), prebuilt_annotation("workload-name-new"), False, {WIA: True}, []),
    "prebuilt workload annotation to label update, WorkloadIdentifierAnnotations enabled":
        (prebuilt_annotation("workload-name"), prebuilt_label("workload-name-new"), False, {WIA: True}, []),
}
NOT_PORTED = {
    "prebuilt workload invalid label format with fallback on update, WorkloadIdentifierAnnotations enabled":
        "the name's format is a create check (validateCreateForPrebuiltWorkload), which Kueue repeats on a "
        "suspended update; the function's Kueue create checks answer it for every render",
    "prebuilt workload invalid annotation format, WorkloadIdentifierAnnotations enabled":
        "the same create check, on the annotation",
}


def test_the_upstream_table_is_ported_whole():
    assert len(UPSTREAM) + len(NOT_PORTED) == 18


@pytest.mark.parametrize("name", sorted(UPSTREAM))
def test_upstream_case(name):
    old, new, default_queue, gates, want = UPSTREAM[name]
    assert [r.path for r in ku.refusals(old, new, default_queue, gates)] == want


RUNNING, SUSPENDED = False, True


@pytest.mark.parametrize("old_suspend, new_suspend, refused", [
    (RUNNING, RUNNING, True), (SUSPENDED, RUNNING, True), (RUNNING, SUSPENDED, True), (SUSPENDED, SUSPENDED, False)])
def test_max_exec_time_changes_only_while_suspended_before_and_after(old_suspend, new_suspend, refused):
    old = job(old_suspend, labels={ku.MAX_EXEC_TIME: "60"})
    new = job(new_suspend, labels={ku.MAX_EXEC_TIME: "120"})
    assert bool(ku.refusals(old, new)) is refused


def test_priority_class_added_while_running_or_removed_ever_is_refused():
    with_class = {ku.PRIORITY_CLASS: "high"}
    [added] = ku.refusals(job(False), job(False, labels=with_class))
    assert added.message == "WorkloadPriorityClass cannot be added to a non-suspended workload"
    assert ku.refusals(job(True), job(True, labels=with_class)) == []  # added while suspended
    for suspend in (False, True):
        [removed] = ku.refusals(job(suspend, labels=with_class), job(suspend))
        assert removed.message == "WorkloadPriorityClass cannot be removed from a workload"
    # Changed from one class to another: the label "is always mutable" (constants.go).
    assert ku.refusals(job(False, labels=with_class), job(False, labels={ku.PRIORITY_CLASS: "low"})) == []


def test_admission_gates_can_only_be_removed():
    def gated(value):
        return job(False, annotations={ku.ADMISSION_GATED_BY: value} if value is not None else None)

    assert [r.message for r in ku.refusals(gated(None), gated("example.com/a"))] == ["cannot add admission gate after creation"]
    assert [r.message for r in ku.refusals(gated(""), gated("example.com/a"))] == ["cannot add admission gate after creation"]
    assert [r.message for r in ku.refusals(gated("example.com/a"), gated("example.com/a, example.com/b"))] == \
        ["can only remove gates, not add new ones"]
    assert ku.refusals(gated("example.com/a,example.com/b"), gated(" example.com/b ")) == []
    assert ku.refusals(gated("example.com/a"), gated(None)) == []
    assert ku.refusals(gated(None), gated("example.com/a"), gates={ku.ADMISSION_GATED: False}) == []


def test_unusual_but_accepted_updates():
    # The controls: what Kueue lets change on a running JobSet.
    labels = {ku.QUEUE: "q", ku.PRIORITY_CLASS: "high", ku.MAX_EXEC_TIME: "60", "team": "a"}
    assert ku.refusals(job(False, labels=labels), job(False, labels={**labels, "team": "b"})) == []
    assert ku.refusals(job(False, labels=labels), job(False, labels=labels, annotations={"note": "x"})) == []
    assert ku.refusals(job(), job(annotations={ku.ELASTIC: "false"})) == []  # only "true" enables it
    assert ku.refusals(job(annotations={ku.ELASTIC: "true"}), job(), gates={ELASTIC: False}) == []
