"""Ports of pkg/runtime/framework/plugins/volcano/volcano_test.go TestValidate at v2.3.0: the
PriorityClass lookup (a warning where it cannot be checked offline) and the queue annotation."""

from __future__ import annotations

from kpt_fn import upstream
from kpt_fn.engine import EngineOptions, admission
from kpt_fn.problems import WARNING
from support.admission_kit import job, runtime, trainjob, errors, NODE


# --- Volcano plugin --------------------------------------------------------------------------------

VOLCANO = {"volcano": {}}


def test_volcano_priority_class_known():
    rt = runtime(job("node", ["node"], priority_class="existing-priority"), pod_group_policy=VOLCANO)
    assert admission(trainjob(), rt, EngineOptions(knownPriorityClasses=("existing-priority",), bundle=upstream.bundle("v2.3.0"))) == []


def test_volcano_priority_class_unknown():
    rt = runtime(job("node", ["node"], priority_class="non-existent"), pod_group_policy=VOLCANO)
    assert errors(admission(trainjob(), rt, EngineOptions(knownPriorityClasses=("other",), bundle=upstream.bundle("v2.3.0")))) == [
        ("spec.templateSpec.priorityClassName",
         'PriorityClass "non-existent" doesn\'t exist: priorityclasses.scheduling.k8s.io "non-existent" not found')]


def test_volcano_system_priority_class_stops_the_check():
    rt = runtime(job("a", ["a"], priority_class="system-node-critical"), job("b", ["b"], priority_class="unknown"),
                 pod_group_policy=VOLCANO)
    assert admission(trainjob(), rt, EngineOptions(knownPriorityClasses=("other",), bundle=upstream.bundle("v2.3.0"))) == []


def test_volcano_priority_class_unverifiable_offline_is_a_warning():
    rt = runtime(job("node", ["node"], priority_class="high"), pod_group_policy=VOLCANO)
    assert [p.severity for p in admission(trainjob(), rt, EngineOptions(bundle=upstream.bundle("v2.3.0")))] == [WARNING]


def test_volcano_queue_from_patch_must_not_be_empty():
    rt = runtime(NODE, pod_group_policy=VOLCANO, annotations={"scheduling.volcano.sh/queue-name": "q"})
    tj = trainjob(runtimePatches=[{"manager": "acme.io/q", "trainingRuntimeSpec": {"template": {"metadata": {
        "annotations": {"scheduling.volcano.sh/queue-name": ""}}}}}])
    assert errors(admission(tj, rt, EngineOptions(bundle=upstream.bundle("v2.3.0")))) == [
        ("spec.annotations[scheduling.volcano.sh/queue-name]", "Volcano queue name must not be empty")]
