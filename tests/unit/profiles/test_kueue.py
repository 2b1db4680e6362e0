"""kpt_fn.profiles.kueue: the Kueue profile's hooks (its behaviour through whole runs is tested in
tests/unit/profiles/test_kueue_profile.py)."""

from __future__ import annotations

from kpt_fn.config import FunctionConfig
from kpt_fn.problems import ERROR, INFO, Problem
from kpt_fn import profiles
from kpt_fn.profiles import kueue_names
from kpt_fn.profiles.controller import Controller
from kpt_fn.profiles.kueue import Kueue

JOBSET = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "tj", "namespace": "ns"},
          "spec": {"replicatedJobs": []}}


def trainjob(**spec):
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": "tj", "namespace": "ns"}, "spec": spec}


def profile(items=(), queues=None):
    return Kueue(FunctionConfig(profile="kueue"), list(items), queues or {})


def test_it_is_the_controller_profile_with_kueues_hooks():
    assert issubclass(Kueue, Controller) and profiles.named("kueue") is Kueue


def test_before_engine_renders_a_multikueue_trainjob():
    tj = trainjob(managedBy=kueue_names.MULTIKUEUE, suspend=True)
    assert profile().before_engine(tj)["spec"] == {"suspend": True}
    plain = trainjob()
    assert profile().before_engine(plain) is plain


def test_no_controller_deadline_note_kueues_label_stands_in():
    """The controller profile's note on activeDeadlineSeconds is not taken (not given and filtered):
    the max-exec-time label is rendered instead, with its own warning from after_engine."""
    tj = trainjob(activeDeadlineSeconds=3600)
    assert profile().unrendered(tj, [JOBSET]) == []
    objects, problems = profile(queues={"ns": "team"}).after_engine(tj, [JOBSET], [])
    assert objects[0]["metadata"]["labels"][kueue_names.MAX_EXEC_TIME_LABEL] == "3600"
    assert kueue_names.RULE_MAX_EXEC in [p.rule for p in problems]


def test_after_engine_queues_the_jobset_from_the_queues_option():
    objects, problems = profile(queues={"ns": "team"}).after_engine(trainjob(), [JOBSET], [])
    assert objects[0]["metadata"]["labels"][kueue_names.QUEUE_LABEL] == "team"
    assert (problems[-1].severity, problems[-1].rule) == (INFO, kueue_names.RULE_QUEUE)


def test_after_engine_without_a_queue_is_an_error():
    objects, problems = profile().after_engine(trainjob(), [JOBSET], [Problem("engine's")])
    assert objects == [JOBSET]
    assert problems[0] == Problem("engine's")
    assert any(p.severity == ERROR and p.rule == kueue_names.RULE_QUEUE for p in problems)


def test_a_default_local_queue_among_the_items_is_found():
    local_queue = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue",
                   "metadata": {"name": "default", "namespace": "ns"}, "spec": {"clusterQueue": "cq"}}
    objects, _ = profile([local_queue]).after_engine(trainjob(), [JOBSET], [])
    assert objects[0]["metadata"]["labels"][kueue_names.QUEUE_LABEL] == "default"


def test_check_adds_quotas_only_when_there_are_queues_among_the_items():
    assert profile().check(trainjob(), JOBSET) == []


def test_its_jobsets_ask_argo_cd_for_a_server_side_apply():
    from kpt_fn import argocd

    js = profile().created(JOBSET)
    assert js["metadata"]["annotations"][argocd.SYNC_OPTIONS] == argocd.SERVER_SIDE_APPLY
    assert Controller(FunctionConfig(), [], {}).created(JOBSET) is JOBSET
