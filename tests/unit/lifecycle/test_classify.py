"""kpt_fn.lifecycle.classify: what each change `expand-trainjobs diff` shows will do in the cluster."""

from __future__ import annotations

import pytest

from kpt_fn import upstream
from kpt_fn.lifecycle import advice
from kpt_fn.lifecycle import classify as c

CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}


def jobset(image="i", suspend=None, labels=None):
    spec = {"replicatedJobs": [{"name": "node", "replicas": 1, "template": {"spec": {"template": {"spec": {
        "containers": [{"name": "c", "image": image}]}}}}}]}
    if suspend is not None:
        spec["suspend"] = suspend
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": "tj", "labels": labels or {}}, "spec": spec}


def test_created_pruned_and_objects_other_than_jobsets():
    assert c.effect("ConfigMap x", None, CM, [], (upstream.bundle("v2.3.0"), upstream.bundle("v2.3.0"))) == {"effect": c.CREATED}
    assert c.effect("ConfigMap x", CM, None, [], (upstream.bundle("v2.3.0"), upstream.bundle("v2.3.0"))) == {"effect": c.PRUNED}
    assert c.effect("ConfigMap x", CM, {**CM, "data": {"a": "b"}}, [], (upstream.bundle("v2.3.0"), upstream.bundle("v2.3.0"))) == {"effect": c.IN_PLACE}
    other = {**jobset(), "apiVersion": "example.com/v1"}
    assert c.effect("JobSet tj", other, {**other, "spec": {}}, [], (upstream.bundle("v2.3.0"), upstream.bundle("v2.3.0"))) == {"effect": c.IN_PLACE}


def test_an_accepted_jobset_change_is_in_place():
    assert c.effect("JobSet ns/tj", jobset(), jobset(), [], (upstream.bundle("v2.3.0"), upstream.bundle("v2.3.0"))) == {"effect": c.IN_PLACE}


def test_a_refused_jobset_change_says_which_fields_and_what_to_do():
    fields = [{"path": "spec.replicatedJobs.node.template.spec.template.spec.containers.c.image"}, {"path": "metadata.labels.a"}]
    out = c.effect("JobSet ns/tj", jobset(), jobset("other"), fields, (upstream.bundle("v2.3.0"), upstream.bundle("v2.3.0")))
    assert out["effect"] == c.REFUSED and "whileSuspended" not in out
    assert out["refusedFields"] == [fields[0]["path"]]  # only the changed fields under a refused path
    assert out["refusals"] == [{"path": "spec.replicatedJobs", "message": "field is immutable", "rule": "jobset-webhook/update"}]
    assert out["remedy"] == c.remedy("ns/tj") and "JobSet ns/tj must be created anew" in out["remedy"]
    assert out["routes"] == advice.routes("ns/tj")
    # The Kueue profile's JobSet is applied server-side by Argo CD: the advice says so.
    ssa = jobset("other")
    ssa["metadata"]["annotations"] = {"argocd.argoproj.io/sync-options": "ServerSideApply=true"}
    assert c.effect("JobSet ns/tj", jobset(), ssa, fields, (upstream.bundle("v2.3.0"), upstream.bundle("v2.3.0")))["routes"] == advice.routes("ns/tj", server_side=True)


def test_without_the_diffs_fields_the_refusals_paths_are_named():
    assert c.effect("JobSet tj", jobset(), jobset("other"), [], (upstream.bundle("v2.3.0"), upstream.bundle("v2.3.0")))["refusedFields"] == ["spec.replicatedJobs"]


def test_a_scheduling_change_is_accepted_while_suspended():
    old, new = jobset(), jobset()
    new["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"] = {"labels": {"a": "b"}}
    out = c.effect("JobSet tj", old, new, [], (upstream.bundle("v2.3.0"), upstream.bundle("v2.3.0")))
    assert (out["effect"], out["whileSuspended"]) == (c.REFUSED, c.IN_PLACE)
    # Held in both renders (suspended, no Kueue queue): in place now, refused once it runs.
    held_old, held_new = jobset(suspend=True), jobset(suspend=True)
    held_new["spec"]["replicatedJobs"] = new["spec"]["replicatedJobs"]
    out = c.effect("JobSet tj", held_old, held_new, [], (upstream.bundle("v2.3.0"), upstream.bundle("v2.3.0")))
    assert (out["effect"], out["whileSuspended"], out["onceRunning"]) == (c.IN_PLACE, c.IN_PLACE, c.REFUSED)
    # Queued in Kueue: Kueue resumes it, so it is not held.
    queued = {c.QUEUE_LABEL: "q"}
    out = c.effect("JobSet tj", jobset(suspend=True, labels=queued), {**held_new, "metadata": {"name": "tj", "labels": queued}}, [], (upstream.bundle("v2.3.0"), upstream.bundle("v2.3.0")))
    assert out["effect"] == c.REFUSED


def test_annotate_summary_and_refused():
    objects = [{"object": "JobSet tj"}, {"object": "ConfigMap x"}]
    out = c.annotate(objects, {"JobSet tj": jobset()}, {"JobSet tj": jobset("other"), "ConfigMap x": CM},
                     (upstream.bundle("v2.3.0"), upstream.bundle("v2.3.0")))
    assert [o["effect"] for o in out] == [c.REFUSED, c.CREATED]
    jobs = [{"objects": out}, {"objects": [{"effect": c.CREATED}]}]
    assert c.summary(jobs) == {"refused": 1}
    assert c.refused({"trainJobs": jobs}) and not c.refused({"trainJobs": jobs[1:]})
