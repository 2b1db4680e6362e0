"""`jobSetNames: contentHash` makes an edit start a new run (docs/lifecycle.md).

The renamed render must equal the render of a TrainJob that simply has the hashed name (every
reference derived from the name follows it, as under kustomize's namePrefix); an unchanged re-render
keeps the name; an edit gets a new one, which Argo CD creates while pruning the old run.
"""

from __future__ import annotations

import copy
import re

import pytest

from kpt_fn import function
from kpt_fn.lifecycle import naming

from lifecycle.cluster import Cluster, Refused
from lifecycle.test_routes import APPS
from support.door import run_with

MARKER = "expand-trainjobs.fn.kpt.dev/trainjob"


def _run(items, **spec):
    outcome = run_with(copy.deepcopy(items), {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs",
                                              "metadata": {"name": "fn"}, "spec": spec})
    assert not outcome.errors, [r.message for r in outcome.results]
    return [copy.deepcopy(o) for e in outcome.rendered for o in e.objects]


def _without_marker(objects):
    for obj in objects:
        annotations = obj["metadata"].get("annotations") or {}
        annotations.pop(MARKER, None)
        if not annotations:
            obj["metadata"].pop("annotations", None)
    return objects


def _jobset(objects):
    return next(o for o in objects if o["kind"] == "JobSet")


@pytest.mark.parametrize("app", ["torch", "mpi", "coscheduling", "initializers-with-volume-claims"])
def test_every_reference_follows_the_hashed_name(app):
    items, spec = APPS[app]
    hashed = _run(items, **spec, jobSetNames="contentHash")
    name = _jobset(hashed)["metadata"]["name"]
    trainjob = next(i for i in items if i["kind"] == "TrainJob")
    assert re.fullmatch(re.escape(trainjob["metadata"]["name"]) + r"-[0-9a-f]{8}", name)
    # The same TrainJob written under that name, in the default mode: byte for byte the same objects.
    renamed = [copy.deepcopy(i) for i in items]
    next(i for i in renamed if i["kind"] == "TrainJob")["metadata"]["name"] = name
    assert _without_marker(hashed) == _without_marker(_run(renamed, **spec))
    # The placed objects still say which TrainJob they come from (kpt's output file, stale output).
    outcome = run_with(copy.deepcopy(items), {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs",
                                              "metadata": {"name": "fn"}, "spec": {**spec, "jobSetNames": "contentHash"}})
    markers = {(i["metadata"].get("annotations") or {}).get(MARKER) for i in outcome.items if isinstance(i, dict)}
    assert markers - {None} == {trainjob["metadata"]["name"]}


def test_the_name_is_stable_and_an_edit_changes_it():
    items, _ = APPS["torch"]
    assert _jobset(_run(items, jobSetNames="contentHash"))["metadata"]["name"] \
        == _jobset(_run(items, jobSetNames="contentHash"))["metadata"]["name"]
    edited = copy.deepcopy(items)
    edited[0]["spec"]["trainer"]["image"] = "pytorch/pytorch:2.8.0"
    assert _jobset(_run(items, jobSetNames="contentHash"))["metadata"]["name"] \
        != _jobset(_run(edited, jobSetNames="contentHash"))["metadata"]["name"]


def _manifests(objects):
    return _without_marker(objects)


@pytest.mark.parametrize("app", ["torch", "mpi"])
def test_an_edit_applies_and_the_old_run_is_pruned(app):
    items, spec = APPS[app]
    edited = copy.deepcopy(items)
    trainjob = next(i for i in edited if i["kind"] == "TrainJob")
    trainjob["spec"].setdefault("trainer", {})["numNodes"] = 3
    # Default naming: the edit reaches the existing JobSet and the cluster refuses it.
    cluster = Cluster()
    cluster.argocd_sync(_manifests(_run(items, **spec)))
    with pytest.raises(Refused):
        cluster.argocd_sync(_manifests(_run(edited, **spec)))
    # contentHash: a new JobSet (and everything named after it); the old run is pruned.
    cluster = Cluster()
    before = _manifests(_run(items, **spec, jobSetNames="contentHash"))
    cluster.argocd_sync(before)
    assert set(cluster.argocd_sync(_manifests(_run(items, **spec, jobSetNames="contentHash"))).values()) == {"unchanged"}
    after = _manifests(_run(edited, **spec, jobSetNames="contentHash"))
    result = cluster.argocd_sync(after)
    old, new = {o["metadata"]["name"] for o in before}, {o["metadata"]["name"] for o in after}
    assert not old & new
    assert result == {**{n: "created" for n in new}, **{n: "pruned" for n in old}}
    assert {k[1] for k in cluster.objects} == new


def test_hash_ignores_key_order():
    assert naming.content_hash([{"a": 1, "b": [1, 2]}]) == naming.content_hash([{"b": [1, 2], "a": 1}])


def test_kpt_replaces_the_earlier_runs_objects_in_place():
    """In a kpt package the earlier output is among the items: under a new hash it is replaced where it
    was (same file and index), not left behind as stale output that `kpt live apply` would keep."""
    items, spec = APPS["mpi"]
    items = copy.deepcopy(items)
    items[0]["metadata"]["annotations"].update({"config.kubernetes.io/path": "ds.yaml", "config.kubernetes.io/index": "0"})
    config = {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "metadata": {"name": "fn"},
              "spec": {**spec, "jobSetNames": "contentHash"}}
    first = run_with(copy.deepcopy(items), config)
    package = [copy.deepcopy(i) for i in first.items]
    package[0]["spec"]["trainer"]["numNodes"] = 3
    second = run_with(package, config)
    assert not second.errors
    assert [r.message for r in second.results if r.severity == "warning" and "private key" not in r.message] == []
    generated = [i for i in second.items if MARKER in (i["metadata"].get("annotations") or {})]
    before = [i for i in first.items if MARKER in (i["metadata"].get("annotations") or {})]
    assert [(i["kind"], i["metadata"]["annotations"]["config.kubernetes.io/index"]) for i in generated] \
        == [(i["kind"], i["metadata"]["annotations"]["config.kubernetes.io/index"]) for i in before]
    assert not {i["metadata"]["name"] for i in generated} & {i["metadata"]["name"] for i in before}
    assert not [r for r in second.results if "stale" in r.message]


def test_default_naming_never_takes_over_hash_like_names():
    assert not naming.earlier_run("mnist", "mnist", "mnist-0123abcd")
    assert naming.earlier_run("mnist", "mnist-0123abcd-mpi-hostfile", "mnist-89abcdef-mpi-hostfile")
    assert not naming.earlier_run("mnist", "mnist-0123abcd-mpi-hostfile", "mnist-89abcdef")


def test_under_a_kustomize_generators_name_prefix(tmp_path):
    """As for kustomize's namePrefix alone: the object is emitted for kustomize to prefix, the
    references inside it already name `<prefix><trainjob>-<hash>`."""
    (tmp_path / "kustomization.yaml").write_text("namespace: team-b\nnamePrefix: pre-\ngenerators: [fn.yaml]\n")
    items, _ = APPS["torch"]
    config = {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "metadata": {"name": "fn"},
              "spec": {"jobSetNames": "contentHash", "trainJobs": copy.deepcopy(items)}}
    outcome = run_with([config], config, function.Door(base_dir=str(tmp_path), kustomization_root=str(tmp_path),
                                                       returns_inputs=False))
    assert not outcome.errors, [r.message for r in outcome.results]
    [jobset] = [o for e in outcome.rendered for o in e.objects]
    name = jobset["metadata"]["name"]
    assert re.fullmatch(r"mnist-[0-9a-f]{8}", name)
    env = {e["name"]: e.get("value") for e in jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["PET_MASTER_ADDR"] == f"pre-{name}-node-0-0.pre-{name}"
