"""`expand-trainjobs argocd-kueue-patch` prints what works in Argo CD's sync (tests/support/argocd_ignore.py
re-implements RespectIgnoreDifferences for a custom resource): ignoring `/spec/suspend` keeps Kueue's
value; ignoring fields inside `replicatedJobs` cannot keep Kueue's placement, because the whole list is
one value of a JSON merge patch."""

from __future__ import annotations

import copy

from support import argocd_ignore as ai
from kpt_fn import argocd

POD = ".spec.replicatedJobs[].template.spec.template"
# What the command printed before: pod-template fields of Kueue's admission ignored as well.
OLD_IGNORE = {
    "group": "jobset.x-k8s.io", "kind": "JobSet", "jsonPointers": ["/spec/suspend"],
    "jqPathExpressions": [f"{POD}.spec.nodeSelector", f"{POD}.spec.tolerations", f"{POD}.spec.schedulingGates",
                          f"{POD}.metadata.labels", f"{POD}.metadata.annotations"],
}


def _jobset(node_selector=None, image="pytorch/pytorch:2", suspend=True) -> dict:
    pod_spec = {"containers": [{"name": "node", "image": image}], "restartPolicy": "OnFailure"}
    if node_selector is not None:
        pod_spec["nodeSelector"] = node_selector
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": "mnist", "namespace": "team-a", "labels": {"kueue.x-k8s.io/queue-name": "q"}},
        "spec": {"suspend": suspend, "replicatedJobs": [
            {"name": "node", "replicas": 1, "template": {"spec": {"template": {"spec": pod_spec}}}}]},
    }


def _admitted(target: dict, selector: dict) -> dict:
    """Live after Kueue's admission: resumed, its flavor's node labels merged into the pod template."""
    live = copy.deepcopy(target)
    live["spec"]["suspend"] = False
    pod = live["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    pod["nodeSelector"] = {**(pod.get("nodeSelector") or {}), **selector}
    live["status"] = {"restarts": 0}
    return live


def _pod(obj: dict) -> dict:
    return obj["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]


def test_the_patch_ignores_suspend_only():
    (ignore,) = argocd.kueue_patch()["spec"]["ignoreDifferences"]
    assert ignore == {"group": "jobset.x-k8s.io", "kind": "JobSet", "jsonPointers": ["/spec/suspend"]}
    assert argocd.kueue_patch()["spec"]["syncPolicy"]["syncOptions"] == ["RespectIgnoreDifferences=true"]


def test_suspend_keeps_the_live_value_and_the_rest_is_gits():
    (ignore,) = argocd.kueue_patch()["spec"]["ignoreDifferences"]
    target = _jobset()
    applied = ai.target_to_apply(target, _admitted(target, {"pool": "a100"}), ignore)
    assert applied["spec"]["suspend"] is False  # an admitted JobSet is not suspended again
    # The list is Git's: the server-side apply the profile's JobSets ask for leaves Kueue's
    # nodeSelector to Kueue (tests/lifecycle/test_routes.py proves that half).
    assert applied["spec"]["replicatedJobs"] == target["spec"]["replicatedJobs"]
    assert "status" not in applied
    # Not created yet: Git's object as it is (suspended until Kueue admits it).
    assert ai.target_to_apply(target, None, ignore) == target


def test_ignoring_kueues_placement_inside_the_list_drops_it():
    # Git sets no nodeSelector: restoreNonIgnoredFields puts Git's whole list back, Kueue's selector gone.
    target = _jobset()
    applied = ai.target_to_apply(target, _admitted(target, {"pool": "a100"}), OLD_IGNORE)
    assert "nodeSelector" not in _pod(applied)


def test_ignoring_kueues_placement_inside_the_list_drops_gits_changes():
    # Git sets a nodeSelector (from the runtime): the normalized list differs from Git's, so live's whole
    # list is applied, and a change made in Git (a new image) is silently not applied.
    live = _admitted(_jobset(node_selector={"gpu": "h100"}), {"pool": "a100"})
    target = _jobset(node_selector={"gpu": "h100"}, image="pytorch/pytorch:3")
    applied = ai.target_to_apply(target, live, OLD_IGNORE)
    assert _pod(applied)["containers"][0]["image"] == "pytorch/pytorch:2"
    assert _pod(applied)["nodeSelector"] == {"gpu": "h100", "pool": "a100"}


def test_the_emulation_keeps_an_ignored_map_field_and_restores_the_rest():
    # A map field under a JSON pointer: the live value comes back, every other field stays Git's.
    target = {"kind": "X", "spec": {"a": 1, "b": {"c": 2, "d": 3}}}
    live = {"kind": "X", "spec": {"a": 9, "b": {"c": 8, "d": 7}, "e": 6}}
    applied = ai.target_to_apply(target, live, {"jsonPointers": ["/spec/b/c"]})
    assert applied == {"kind": "X", "spec": {"a": 1, "b": {"c": 8, "d": 3}}}
