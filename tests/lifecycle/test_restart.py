"""An edit the JobSet refuses, and what works instead, per client (docs/lifecycle.md, "Change a run";
the advice `diff` gives: kpt_fn/lifecycle/advice.py). Each route is run in the emulated cluster
(tests/lifecycle/cluster.py), Argo CD's Replace=true and Force=true as gitops-engine decides them.

What the emulation shows, and the advice says:
* every plain route refuses an edit of a running or a finished JobSet;
* `Replace=true` alone is a `kubectl replace`: refused the same way;
* `Force=true` alone (client-side apply) re-creates the JobSet only when the cluster refuses the
  patch, so an edit restarts the run and an unchanged re-sync changes nothing; under server-side
  apply (the Kueue profile) it does nothing;
* `Force=true,Replace=true` deletes and re-creates the JobSet on every sync that applies it: a re-run
  on every sync, edited or not;
* `argocd app sync --force --resource ...` re-creates one JobSet once; `kubectl delete` then the usual
  apply does the same on every route.
"""

from __future__ import annotations

import copy

import pytest

from kpt_fn import argocd

from lifecycle.cluster import Cluster, Refused
from lifecycle.test_routes import NS, render_items, trainjob

JOBSET = ("JobSet", "mnist")


def _app(image="pytorch/pytorch:2.7.1", sync_options=None, suspend=None, **spec) -> list:
    extra = {} if suspend is None else {"suspend": suspend}
    tj = trainjob("mnist", "torch-distributed", trainer={"numNodes": 2, "image": image}, **extra)
    objects = render_items([tj], spec)
    if sync_options:
        for obj in objects:
            if obj["kind"] == "JobSet":
                obj["metadata"] = {**obj["metadata"], "annotations": {
                    **(obj["metadata"].get("annotations") or {}), argocd.SYNC_OPTIONS: sync_options}}
    return objects


EDITED = "pytorch/pytorch:2.8.0"


def _kubectl(cluster, objects, **kw):
    return {o["metadata"]["name"]: cluster.client_side_apply(o, **kw) for o in objects}


@pytest.mark.parametrize("route", ["argocd", "argocd-server-side", "kubectl", "kubectl-server-side"])
@pytest.mark.parametrize("finished", [False, True], ids=["running", "finished"])
def test_an_edit_is_refused_on_every_plain_route_running_or_finished(route, finished):
    cluster = Cluster()
    apply = {
        "argocd": lambda objs: cluster.argocd_sync(objs),
        "argocd-server-side": lambda objs: cluster.argocd_sync(objs, server_side=True),
        "kubectl": lambda objs: _kubectl(cluster, objs),
        "kubectl-server-side": lambda objs: {o["metadata"]["name"]: cluster.server_side_apply(o) for o in objs},
    }[route]
    apply(_app())
    if finished:
        cluster.finish_run("mnist")
    live = copy.deepcopy(cluster.objects)
    with pytest.raises(Refused) as err:
        apply(_app(EDITED))
    assert [r.path for r in err.value.reasons] == ["spec.replicatedJobs"]
    assert cluster.objects == live and cluster.deleted == []


def test_replace_alone_is_a_put_and_refused_the_same_way():
    cluster = Cluster()
    cluster.argocd_sync(_app(sync_options="Replace=true"))
    with pytest.raises(Refused):
        cluster.argocd_sync(_app(EDITED, sync_options="Replace=true"))
    with pytest.raises(Refused):  # `argocd app sync --replace`: the same, for this sync
        cluster.argocd_sync(_app(EDITED), replace=True)
    assert cluster.deleted == []


def test_force_alone_recreates_the_jobset_only_when_an_edit_is_refused():
    cluster = Cluster()
    assert cluster.argocd_sync(_app(sync_options="Force=true")) == {"mnist": "created"}
    assert cluster.argocd_sync(_app(sync_options="Force=true")) == {"mnist": "unchanged"}
    assert cluster.deleted == []
    assert cluster.argocd_sync(_app(EDITED, sync_options="Force=true")) == {"mnist": "recreated"}
    assert cluster.deleted == [JOBSET]  # a new JobSet: the run starts again, from the edited spec
    assert _image(cluster) == EDITED
    assert cluster.argocd_sync(_app(EDITED, sync_options="Force=true")) == {"mnist": "unchanged"}
    assert cluster.deleted == [JOBSET]


def test_force_alone_restarts_a_finished_run_on_an_edit():
    cluster = Cluster()
    cluster.argocd_sync(_app(sync_options="Force=true"))
    cluster.finish_run("mnist")
    assert cluster.argocd_sync(_app(sync_options="Force=true")) == {"mnist": "unchanged"}
    assert cluster.argocd_sync(_app(EDITED, sync_options="Force=true")) == {"mnist": "recreated"}
    assert "status" not in cluster.objects[JOBSET]  # a new JobSet: it trains again


def test_force_does_nothing_under_server_side_apply():
    # The Kueue profile's JobSets are applied server-side (their own sync option): no patcher, no
    # delete and create; the refusal stands.
    cluster = Cluster()
    cluster.argocd_sync(_app(sync_options="ServerSideApply=true,Force=true"))
    with pytest.raises(Refused):
        cluster.argocd_sync(_app(EDITED, sync_options="ServerSideApply=true,Force=true"))
    with pytest.raises(Refused):
        cluster.argocd_sync(_app(EDITED), server_side=True, force=True)
    assert cluster.deleted == []


def test_force_and_replace_recreate_the_jobset_on_every_sync():
    cluster = Cluster()
    cluster.argocd_sync(_app(sync_options="Force=true,Replace=true"))
    for _ in range(3):  # nothing edited: every sync re-runs the training all the same
        assert cluster.argocd_sync(_app(sync_options="Force=true,Replace=true")) == {"mnist": "replaced"}
    assert cluster.deleted == [JOBSET] * 3


def test_argocd_app_sync_force_on_one_resource_recreates_it_once():
    cluster = Cluster()
    cluster.argocd_sync(_app())
    with pytest.raises(Refused):
        cluster.argocd_sync(_app(EDITED))
    assert cluster.argocd_sync(_app(EDITED), force=True, resources={"mnist"}) == {"mnist": "recreated"}
    assert cluster.argocd_sync(_app(EDITED)) == {"mnist": "unchanged"}  # later syncs: as usual
    assert cluster.deleted == [JOBSET]


@pytest.mark.parametrize("server_side", [False, True])
def test_delete_then_apply_works_on_every_route(server_side):
    # kubectl's and kpt's route (and Argo CD's `argocd app delete-resource` then a sync).
    cluster = Cluster()
    apply = (lambda o: cluster.server_side_apply(o)) if server_side else cluster.client_side_apply
    for obj in _app():
        apply(obj)
    cluster.finish_run("mnist")
    cluster.delete(JOBSET)
    assert [apply(o) for o in _app(EDITED)] == ["created"]
    assert _image(cluster) == EDITED


def test_kubectl_apply_force_recreates_what_is_refused():
    cluster = Cluster()
    _kubectl(cluster, _app())
    assert _kubectl(cluster, _app(EDITED), force=True) == {"mnist": "recreated"}


def test_content_hash_creates_a_new_jobset_and_prunes_the_old_one():
    cluster = Cluster()
    first = cluster.argocd_sync(_app(jobSetNames="contentHash"))
    (old,) = first
    second = cluster.argocd_sync(_app(EDITED, jobSetNames="contentHash"))
    (new,) = [n for n, r in second.items() if r == "created"]
    assert second == {new: "created", old: "pruned"} and new != old


def _image(cluster) -> str:
    spec = cluster.objects[JOBSET]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    return spec["containers"][0]["image"]


# --- restart and pause (docs/lifecycle.md, "Restart a run", "Pause a run") ---------------------------


def test_force_alone_does_not_restart_an_unchanged_jobset():
    cluster = Cluster()
    cluster.argocd_sync(_app())
    cluster.finish_run("mnist")
    assert cluster.argocd_sync(_app(), force=True, resources={"mnist"}) == {"mnist": "unchanged"}
    assert cluster.deleted == []


def test_a_forced_replace_of_one_resource_restarts_it_unchanged():
    # `argocd app sync APP --force --replace --resource jobset.x-k8s.io:JobSet:NS/NAME`
    cluster = Cluster()
    cluster.argocd_sync(_app())
    cluster.finish_run("mnist")
    assert cluster.argocd_sync(_app(), force=True, replace=True, resources={"mnist"}) == {"mnist": "replaced"}
    assert cluster.deleted == [JOBSET] and "status" not in cluster.objects[JOBSET]


@pytest.mark.parametrize("route", ["argocd", "argocd-server-side", "kubectl"])
def test_pausing_and_resuming_a_run_is_applied_in_place(route):
    # The TrainJob's spec.suspend: the JobSet's suspend may change on a running JobSet (its pod
    # templates do not change with it).
    cluster = Cluster()
    apply = {
        "argocd": lambda objs: cluster.argocd_sync(objs),
        "argocd-server-side": lambda objs: cluster.argocd_sync(objs, server_side=True),
        "kubectl": lambda objs: _kubectl(cluster, objs),
    }[route]
    apply(_app())
    assert apply(_app(suspend=True)) == {"mnist": "configured"}
    assert cluster.objects[JOBSET]["spec"]["suspend"] is True
    assert apply(_app()) == {"mnist": "configured"}
    assert cluster.objects[JOBSET]["spec"]["suspend"] is False
    assert cluster.deleted == []


# --- the opt-in: Force=true through the runtime (docs/lifecycle.md, "Every edit restarts the run") ---


FORCED_RUNTIME = {
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
    "metadata": {"name": "forced", "namespace": NS, "annotations": {"config.kubernetes.io/local-config": "true"}},
    "spec": {"mlPolicy": {"numNodes": 1, "torch": {}},
             "template": {"metadata": {"annotations": {argocd.SYNC_OPTIONS: "Force=true"}},
                          "spec": {"replicatedJobs": [{"name": "node", "template": {"metadata": {"labels": {
                              "trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}}, "spec": {"template": {"spec": {
                                  "containers": [{"name": "node", "image": "pytorch/pytorch:2.7.1"}]}}}}}]}}},
}


def _forced(image: str, **spec) -> list:
    tj = trainjob("forced", "forced", runtimeRef={"name": "forced", "kind": "TrainingRuntime"}, trainer={"image": image})
    return render_items([FORCED_RUNTIME, tj], spec)


def test_a_runtimes_force_annotation_makes_every_refused_edit_restart_the_run():
    (jobset,) = [o for o in _forced("pytorch/pytorch:2.7.1") if o["kind"] == "JobSet"]
    assert jobset["metadata"]["annotations"][argocd.SYNC_OPTIONS] == "Force=true"
    cluster = Cluster()
    assert cluster.argocd_sync(_forced("pytorch/pytorch:2.7.1")) == {"forced": "created"}
    assert cluster.argocd_sync(_forced("pytorch/pytorch:2.7.1")) == {"forced": "unchanged"}
    assert cluster.argocd_sync(_forced(EDITED)) == {"forced": "recreated"}
    assert cluster.deleted == [("JobSet", "forced")]


def test_under_the_kueue_profile_the_force_annotation_joins_server_side_apply_and_does_nothing():
    (jobset,) = [o for o in _forced("pytorch/pytorch:2.7.1", profile="kueue", kueueQueues=["q"])
                 if o["kind"] == "JobSet"]
    assert jobset["metadata"]["annotations"][argocd.SYNC_OPTIONS] == "Force=true,ServerSideApply=true"
