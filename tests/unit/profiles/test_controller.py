"""kpt_fn.profiles.controller: the Trainer controller's objects, unchanged; Kueue's leftovers reported."""

from __future__ import annotations

from kpt_fn.config import FunctionConfig
from kpt_fn.problems import WARNING, Problem
from kpt_fn.profiles import kueue_names
from kpt_fn.profiles.controller import Controller

JOBSET = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "tj"}, "spec": {}}


def trainjob(labels=None):
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": "tj", "labels": labels or {}}, "spec": {}}


def test_objects_pass_unchanged_and_problems_are_kept():
    before = Problem("engine's")
    objects, problems = Controller(FunctionConfig(), [], {}).after_engine(trainjob(), [JOBSET], [before])
    assert objects == [JOBSET] and problems == [before]


def test_kueue_labels_left_on_the_trainjob_are_a_warning():
    tj = trainjob({kueue_names.QUEUE_LABEL: "q"})
    objects, [p] = Controller(FunctionConfig(), [], {}).after_engine(tj, [JOBSET], [])
    assert objects == [JOBSET]
    assert (p.severity, p.rule, p.path) == (WARNING, kueue_names.RULE_LABEL_LOST, f"metadata.labels[{kueue_names.QUEUE_LABEL}]")
    assert kueue_names.QUEUE_LABEL not in objects[0]["metadata"].get("labels", {})


def test_check_is_kueues_tas_check_whoever_renders():
    bad = {**JOBSET, "spec": {"replicatedJobs": [{"name": "n", "replicas": 1, "template": {"spec": {"template": {
        "metadata": {"annotations": {"kueue.x-k8s.io/podset-slice-size": "1"}}, "spec": {}}}}}]}}
    profile = Controller(FunctionConfig(), [], {})
    assert profile.check(trainjob(), JOBSET) == []
    [p] = profile.check(trainjob(), bad)
    assert p.rule == kueue_names.RULE_TAS and p.subject is bad


def test_the_controller_notes_the_deadline_it_enforces_itself():
    from kpt_fn.problems import INFO
    from kpt_fn.profiles.controller import RULE_DEADLINE

    tj = {**trainjob(), "spec": {"activeDeadlineSeconds": 3600}}
    profile = Controller(FunctionConfig(), [], {})
    [p] = profile.unrendered(tj, [JOBSET])
    assert (p.severity, p.rule, p.path) == (INFO, RULE_DEADLINE, "spec.activeDeadlineSeconds")
    assert profile.unrendered(tj, []) == []            # nothing rendered: nothing it is missing from
    assert profile.unrendered(trainjob(), [JOBSET]) == []  # no deadline
    assert profile.unrendered({**trainjob(), "spec": {"activeDeadlineSeconds": 0}}, [JOBSET]) != []  # set, whatever its value
