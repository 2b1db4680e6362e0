"""An unchanged re-render, re-applied, is accepted and changes nothing, on every
documented route; the cases where no render can work are pinned as such (docs/lifecycle.md).

Six apps are rendered by the function (as the CLI would), created in the emulated cluster
(tests/lifecycle/cluster.py) through a route, then rendered again from the same input and applied
again through the same route.
"""

from __future__ import annotations

import copy

import pytest

from kpt_fn import argocd
from kpt_fn.lifecycle import render

from lifecycle import kueue_admission as ka
from lifecycle.cluster import Cluster, Refused
from support.door import run_with

NS = "team-a"
SEED = "0123456789abcdef0123"


def trainjob(name, runtime, labels=None, **spec):
    md = {"name": name, "namespace": NS, "annotations": {"config.kubernetes.io/local-config": "true"}}
    if labels:
        md["labels"] = labels
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": md,
            "spec": {"runtimeRef": {"name": runtime}, **spec}}


COSCHEDULING_RUNTIME = {
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
    "metadata": {"name": "gang", "namespace": NS, "annotations": {"config.kubernetes.io/local-config": "true"}},
    "spec": {"mlPolicy": {"numNodes": 2, "torch": {}}, "podGroupPolicy": {"coscheduling": {"scheduleTimeoutSeconds": 60}},
             "template": {"spec": {"replicatedJobs": [{"name": "node", "template": {"metadata": {"labels": {
                 "trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}}, "spec": {"template": {"spec": {
                     "containers": [{"name": "node", "image": "pytorch/pytorch:2.7.1"}]}}}}}]}}},
}

# app -> (items, functionConfig spec)
APPS = {
    "torch": ([trainjob("mnist", "torch-distributed", trainer={"numNodes": 2, "image": "pytorch/pytorch:2.7.1"})], {}),
    "initializers-with-volume-claims": ([trainjob("tune", "torchtune-llama3.2-1b")], {}),
    "mpi": ([trainjob("ds", "deepspeed-distributed", trainer={"numNodes": 2})],
            {"mpiSSHSecret": "generate", "secretSeed": SEED}),
    "coscheduling": ([COSCHEDULING_RUNTIME, trainjob("gang", "gang", runtimeRef={"name": "gang", "kind": "TrainingRuntime"})], {}),
    "held": ([trainjob("held", "torch-distributed", suspend=True)], {}),
    "kueue": ([trainjob("queued", "torch-distributed", labels={"kueue.x-k8s.io/queue-name": "q"},
                        trainer={"numNodes": 2})], {"profile": "kueue"}),
}


def rendered(app: str, **options) -> list:
    items, spec = APPS[app]
    return render_items(items, {**spec, **options})


def render_items(items: list, spec: dict) -> list:
    """The objects the function renders from `items` under functionConfig `spec`, as a client applies them."""
    outcome = run_with(copy.deepcopy(items), {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs",
                                              "metadata": {"name": "fn"}, "spec": spec})
    assert not outcome.errors, [r.message for r in outcome.results]
    objects = [copy.deepcopy(o) for e in outcome.rendered for o in e.objects]
    for obj in objects:  # what the clients drop before applying: the function's own bookkeeping
        annotations = obj["metadata"].get("annotations") or {}
        annotations.pop("expand-trainjobs.fn.kpt.dev/trainjob", None)
        if not annotations:
            obj["metadata"].pop("annotations", None)
    return objects


def apply_all(cluster: Cluster, route: str, objects: list) -> dict:
    if route == "argocd":
        return cluster.argocd_sync(objects)
    if route == "argocd-server-side":
        return cluster.argocd_sync(objects, server_side=True)
    out = {}
    for obj in objects:
        if route in ("kubectl", "kpt-live-apply"):
            out[obj["metadata"]["name"]] = cluster.client_side_apply(obj)
        else:  # kubectl --server-side, kpt live apply --server-side
            out[obj["metadata"]["name"]] = cluster.server_side_apply(obj)
    return out


ROUTES = ["argocd", "argocd-server-side", "kubectl", "kubectl-server-side", "kpt-live-apply", "kpt-live-apply-server-side"]
# Under profile: kueue the JobSet is created suspended and stays so until Kueue admits it.
CONTROLLER_APPS = [a for a in APPS if a != "kueue"]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("app", sorted(APPS))
def test_an_unchanged_rerender_is_accepted_and_changes_nothing(app, route):
    cluster = Cluster(kueue=True)
    first = apply_all(cluster, route, rendered(app))
    assert set(first.values()) == {"created"}
    live = copy.deepcopy(cluster.objects)
    again = apply_all(cluster, route, rendered(app))
    assert set(again.values()) == {"unchanged"}, again
    assert cluster.objects == live


@pytest.mark.parametrize("route", ["argocd", "kubectl", "kubectl-server-side"])
@pytest.mark.parametrize("app", sorted(APPS))
def test_under_v221_an_unchanged_rerender_is_accepted_and_changes_nothing(app, route):
    """The same guarantee with Trainer v2.2.1 installed: JobSet v0.11.1's webhook and CRD in the
    cluster, the render's created form made by the same release's rules."""
    cluster = Cluster(kueue=True, trainer_version="v2.2.1")
    first = apply_all(cluster, route, rendered(app, trainerVersion="v2.2.1"))
    assert set(first.values()) == {"created"}
    live = copy.deepcopy(cluster.objects)
    again = apply_all(cluster, route, rendered(app, trainerVersion="v2.2.1"))
    assert set(again.values()) == {"unchanged"}, again
    assert cluster.objects == live


@pytest.mark.parametrize("route", ["argocd", "argocd-server-side"])
def test_after_kueue_admitted_it_argocd_changes_nothing(route):
    """The Kueue profile's JobSet asks Argo CD for a server-side apply, so even an app on the default
    client-side apply leaves Kueue's nodeSelector, tolerations and gates alone; `spec.suspend` is left
    to Kueue with ignoreDifferences + RespectIgnoreDifferences (argocd-kueue-patch)."""
    cluster = Cluster(kueue=True)
    objects = rendered("kueue")
    cluster.argocd_sync(objects, server_side=route == "argocd-server-side")
    info = ka.flavor_info({"cloud.example.com/pool": "a100"}, [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}], tas=True)
    assert cluster.kueue_admit("queued", [info]) == "configured"
    live = copy.deepcopy(cluster.objects)
    result = cluster.argocd_sync(rendered("kueue"), server_side=route == "argocd-server-side", ignore=(("spec", "suspend"),))
    assert result == {"queued": "unchanged"}
    assert cluster.objects == live


def _admitted(route_objects):
    cluster = Cluster(kueue=True)
    for obj in route_objects:
        cluster.client_side_apply(obj)
    info = ka.flavor_info({"cloud.example.com/pool": "a100"})
    cluster.kueue_admit("queued", [info])
    return cluster


def test_no_render_works_with_client_side_apply_after_kueue_admitted_it():
    """Kueue's nodeSelector is in the live `replicatedJobs` list, which no render can know; a JSON
    merge patch replaces that list and the JobSet webhook refuses it (or, where the re-applied
    `suspend: true` goes with it, the running JobSet is suspended). Argo CD keeps suspend (ignored),
    so the list's change is refused; the documented route is server-side apply (above)."""
    objects = rendered("kueue")
    jobset = next(o for o in objects if o["kind"] == "JobSet")
    jobset["metadata"]["annotations"].pop(argocd.SYNC_OPTIONS)  # an app without the per-resource option
    cluster = _admitted([jobset])
    with pytest.raises(Refused) as err:
        cluster.argocd_sync([jobset], ignore=(("spec", "suspend"),))
    assert [r.path for r in err.value.reasons] == ["spec.replicatedJobs"]
    # kubectl apply (client-side) sends the same list: refused as well.
    cluster = _admitted([jobset])
    with pytest.raises(Refused):
        cluster.client_side_apply(jobset)


def test_a_render_that_set_suspend_would_conflict_with_kueue_after_admission():
    """Why the profile renders no `spec.suspend`: once Kueue admitted the JobSet the field is Kueue's,
    and a server-side apply of `suspend: true` without --force-conflicts is refused with a conflict."""
    cluster = Cluster(kueue=True)
    objects = rendered("kueue")
    for obj in objects:
        if obj["kind"] == "JobSet":
            obj["spec"]["suspend"] = True  # what the profile rendered before
        cluster.server_side_apply(obj)
    cluster.kueue_admit("queued", [ka.flavor_info({"cloud.example.com/pool": "a100"})])
    live = copy.deepcopy(cluster.objects)
    with pytest.raises(Refused) as err:
        cluster.server_side_apply(next(o for o in objects if o["kind"] == "JobSet"))
    assert [(r.path, r.message) for r in err.value.reasons] == [("spec.suspend", "conflict with kueue")]
    assert cluster.objects == live


@pytest.mark.parametrize("route", ["argocd", "kubectl", "argocd-server-side"])
def test_without_the_create_time_defaults_every_resync_is_refused(route, monkeypatch):
    """The controller's payload as it is (no create-time defaults): the webhook's completionMode and
    restartPolicy live inside `replicatedJobs`; a JSON merge patch replaces the list without them, a
    server-side apply keeps them only while the webhook's own change is not the applier's (here it is
    an Update entry of the same manager: the apply does not remove it, and the re-apply is accepted)."""
    monkeypatch.setattr(render, "finish", lambda objects, profile, bundle=None: objects)
    cluster = Cluster()
    apply_all(cluster, route, rendered("torch"))
    if route == "argocd-server-side":
        assert set(apply_all(cluster, route, rendered("torch")).values()) == {"unchanged"}
        return
    with pytest.raises(Refused) as err:
        apply_all(cluster, route, rendered("torch"))
    assert [r.path for r in err.value.reasons] == ["spec.replicatedJobs"]


def test_without_the_round_trip_the_volume_claims_are_refused_by_the_crd(monkeypatch):
    """The webhook's re-encoding adds `status: {}` to each claim template; `volumeClaimPolicies` is an
    atomic list under `self == oldSelf`, so a render without it is refused on every re-apply."""
    finish = render.finish

    def without_status(objects, profile, bundle=None):
        out = finish(objects, profile, bundle)
        for obj in out:
            for policy in obj.get("spec", {}).get("volumeClaimPolicies") or ():
                for template in policy["templates"]:
                    template.pop("status", None)
        return out

    monkeypatch.setattr(render, "finish", without_status)
    for route in ("argocd", "argocd-server-side"):
        cluster = Cluster()
        apply_all(cluster, route, rendered("initializers-with-volume-claims"))
        with pytest.raises(Refused) as err:
            apply_all(cluster, route, rendered("initializers-with-volume-claims"))
        assert [r.path for r in err.value.reasons] == ["spec.volumeClaimPolicies"]


PLACED_RUNTIME = {
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
    "metadata": {"name": "placed", "namespace": NS, "annotations": {"config.kubernetes.io/local-config": "true"}},
    "spec": {"mlPolicy": {"numNodes": 1, "torch": {}},
             "template": {"spec": {"replicatedJobs": [{"name": "node", "template": {"metadata": {"labels": {
                 "trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}}, "spec": {"template": {"spec": {
                     "nodeSelector": {"team": "a"},
                     "containers": [{"name": "node", "image": "pytorch/pytorch:2.7.1"}]}}}}}]}}},
}


@pytest.mark.parametrize("flavor_labels, accepted", [({}, True), ({"cloud.example.com/pool": "a100"}, False)],
                         ids=["flavor-adds-nothing", "flavor-adds-node-labels"])
def test_a_runtime_nodeselector_and_a_flavors_node_labels_cannot_both_stay(flavor_labels, accepted):
    """nodeSelector (and tolerations) are atomic in the JobSet CRD: once Kueue merged its flavor's node
    labels into a rendered nodeSelector, the value is Kueue's, and Argo CD's forced server-side apply
    puts the render's back, which the JobSet webhook refuses on a running JobSet. No render can hold
    Kueue's choice: leave node placement of Kueue-admitted pods to the ResourceFlavor (docs/lifecycle.md)."""
    items = [PLACED_RUNTIME, trainjob("placed", "placed", labels={"kueue.x-k8s.io/queue-name": "q"},
                                      runtimeRef={"name": "placed", "kind": "TrainingRuntime"})]
    outcome = run_with(copy.deepcopy(items), {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs",
                                              "metadata": {"name": "fn"}, "spec": {"profile": "kueue"}})
    objects = [copy.deepcopy(o) for e in outcome.rendered for o in e.objects]
    cluster = Cluster(kueue=True)
    cluster.argocd_sync(objects)
    cluster.kueue_admit("placed", [ka.flavor_info(flavor_labels)])
    if accepted:
        assert cluster.argocd_sync(objects, ignore=(("spec", "suspend"),)) == {"placed": "unchanged"}
        return
    with pytest.raises(Refused) as err:
        cluster.argocd_sync(objects, ignore=(("spec", "suspend"),))
    assert [r.path for r in err.value.reasons] == ["spec.replicatedJobs"]


# --- Kueue-managed JobSets without spec.suspend (docs/lifecycle.md, docs/kueue.md) ---------------------


def _without_suspend(objects: list) -> list:
    """The Kueue profile's render, which has no `spec.suspend`: Kueue's webhook suspends it on create."""
    assert all("suspend" not in obj["spec"] for obj in objects if obj["kind"] == "JobSet")
    return objects


@pytest.mark.parametrize("route", ["argocd", "argocd-server-side", "kubectl-server-side", "kpt-live-apply-server-side"])
def test_a_queued_render_without_suspend_survives_admission_on_every_server_side_route(route):
    """Kueue's create-time webhook (kueue_webhook) suspends the JobSet as if the render said so; once
    Kueue admitted it, re-applying the render server-side has nothing to conflict on (`spec.suspend` is
    in no apply of the render) and changes nothing: no ignoreDifferences needed for Argo CD."""
    cluster = Cluster(kueue=True)
    first = apply_all(cluster, route, _without_suspend(rendered("kueue")))
    assert set(first.values()) == {"created"}
    assert cluster.objects[("JobSet", "queued")]["spec"]["suspend"] is True  # queued: Kueue's webhook
    assert set(apply_all(cluster, route, _without_suspend(rendered("kueue"))).values()) == {"unchanged"}
    info = ka.flavor_info({"cloud.example.com/pool": "a100"}, [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}], tas=True)
    assert cluster.kueue_admit("queued", [info]) == "configured"
    live = copy.deepcopy(cluster.objects)
    assert set(apply_all(cluster, route, _without_suspend(rendered("kueue"))).values()) == {"unchanged"}
    assert cluster.objects == live and live[("JobSet", "queued")]["spec"]["suspend"] is False


def test_where_kueue_does_not_manage_jobsets_a_render_without_suspend_starts_at_once():
    """The trade-off (docs/kueue.md, the guard): Kueue's JobSet integration off, its webhook is a no-op."""
    from lifecycle.kueue_webhook import KueueConfig

    cluster = Cluster(kueue_config=KueueConfig(jobset_integration=False))
    apply_all(cluster, "kubectl-server-side", _without_suspend(rendered("kueue")))
    assert cluster.objects[("JobSet", "queued")]["spec"].get("suspend") in (None, False)
