"""kpt_fn.lifecycle.render: what the function renders for a JobSet's life after the first sync."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from kpt_fn import argocd, upstream
from kpt_fn.lifecycle import jobset_defaults, naming, render
from kpt_fn.problems import Problem

JOBSET = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "tj"},
          "spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {
              "containers": [{"name": "c", "image": "i"}]}}}}}]}}
CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "tj"}}


def test_finish_gives_jobsets_their_created_form():
    import copy

    out = render.finish([copy.deepcopy(JOBSET), CONFIGMAP, "not an object"], lambda js: js, upstream.bundle("v2.3.0"))
    assert out[0] == jobset_defaults.default_created(copy.deepcopy(JOBSET), upstream.bundle("v2.3.0"))
    assert out[0] != JOBSET and out[1:] == [CONFIGMAP, "not an object"]
    assert argocd.SYNC_OPTIONS not in (out[0]["metadata"].get("annotations") or {})


def test_finish_hands_each_jobset_to_the_profile_in_its_created_form():
    import copy

    seen = []
    [js] = render.finish([copy.deepcopy(JOBSET)], lambda js: seen.append(js) or {**js, "seen": True}, upstream.bundle("v2.3.0"))
    assert js["seen"] and seen == [jobset_defaults.default_created(copy.deepcopy(JOBSET), upstream.bundle("v2.3.0"))]


def test_finish_leaves_another_groups_jobset():
    other = {**JOBSET, "apiVersion": "example.com/v1"}
    assert render.finish([other], lambda js: {**js, "touched": True}, upstream.bundle("v2.3.0")) == [other]


def _engine(seen):
    def expand_one(tj):
        seen.append(tj["metadata"]["name"])
        return SimpleNamespace(objects=[{"kind": "JobSet", "metadata": {"name": tj["metadata"]["name"]}}], problems=[])
    return expand_one


def test_expand_without_content_hash_renders_once():
    seen = []
    tj = {"kind": "TrainJob", "metadata": {"name": "tj"}}
    rendered, expansion = render.expand(tj, lambda t: t, naming.TRAINJOB_NAMES, _engine(seen))
    assert rendered is tj and seen == ["tj"]


def test_expand_with_content_hash_renders_again_under_the_hashed_name():
    seen = []
    tj = {"kind": "TrainJob", "metadata": {"name": "tj"}}
    prefix = lambda t: {**t, "metadata": {"name": "p-" + t["metadata"]["name"]}}  # noqa: E731 (a kustomize namePrefix)
    rendered, expansion = render.expand(tj, prefix, naming.CONTENT_HASH, _engine(seen))
    digest = naming.content_hash([{"kind": "JobSet", "metadata": {"name": "p-tj"}}])
    assert seen == ["p-tj", f"p-tj-{digest}"]
    assert rendered["metadata"]["name"] == f"p-tj-{digest}"
    assert expansion.objects[0]["metadata"]["name"] == f"p-tj-{digest}"


def test_expand_with_content_hash_keeps_a_failed_render_unhashed():
    tj = {"kind": "TrainJob", "metadata": {"name": "tj"}}
    failed = lambda t: SimpleNamespace(objects=[], problems=[Problem("bad")])  # noqa: E731
    rendered, expansion = render.expand(tj, lambda t: t, naming.CONTENT_HASH, failed)
    assert rendered is tj and expansion.problems == [Problem("bad")]
