"""kpt_fn.upstream: one bundle of upstream-derived data per Trainer release, one entry point (bundle)
that reads each file once. Whether a bundle is current is checked against upstream in
tests/behaviour/test_generated_artifacts_current.py."""

from __future__ import annotations

import json
import os

import pytest

from kpt_fn import upstream


def test_directory_names():
    assert upstream.directory_name("v2.3.0") == "v2_3_0"
    assert os.path.isdir(upstream.bundle_dir(upstream.DEFAULT_RELEASE))


@pytest.mark.parametrize("release", upstream.RELEASES)
def test_every_release_has_a_bundle_read_once(release):
    b = upstream.bundle(release)
    assert b is upstream.bundle(release) and b.release == release
    assert b.manifest() is b.manifest()  # each file read on first use, then kept


def test_the_default_release_is_named_never_implied():
    assert upstream.bundle("v2.3.0") is upstream.bundle(upstream.DEFAULT_RELEASE)
    # The release is required: only the command line falls back to DEFAULT_RELEASE.
    with pytest.raises(TypeError):
        upstream.bundle()  # noqa
    with pytest.raises(upstream.UnknownRelease):
        upstream.bundle(None)


@pytest.mark.parametrize("release", ["v2.1.0", "2.3.0", "latest"])
def test_an_unknown_release_names_the_supported_ones(release):
    with pytest.raises(upstream.UnknownRelease) as e:
        upstream.bundle(release)
    assert e.value.release == release and isinstance(e.value, ValueError)
    assert str(e.value) == f'unsupported Trainer release "{release}": supported releases are "v2.2.1", "v2.3.0"'


@pytest.mark.parametrize("release, jobset", [("v2.3.0", "v0.12.0"), ("v2.2.1", "v0.11.1")])
def test_facts(release, jobset):
    b = upstream.bundle(release)
    assert b.api_version == "trainer.kubeflow.org/v1alpha1"
    assert b.jobset_release == jobset
    assert b.runtime_ref_defaults() == {"apiGroup": "trainer.kubeflow.org", "kind": "ClusterTrainingRuntime"}


@pytest.mark.parametrize("release", upstream.RELEASES)
def test_schema_entries_and_lookup(release):
    b = upstream.bundle(release)
    entry = b.entry_for({"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob"})
    assert entry == b.schema_entries()[("trainer.kubeflow.org/v1alpha1", "TrainJob")]
    assert (entry.kind, entry.namespaced, entry.bundle, entry.group) == ("TrainJob", True, b, "trainer.kubeflow.org")
    assert b.entry_for({"apiVersion": "v1", "kind": "Nothing"}) is None
    assert b.entry_for({"apiVersion": 1, "kind": "TrainJob"}) is None
    assert upstream.schema(entry) is b.schema(entry)
    assert upstream.validator(entry) is b.validator(entry)


def test_cluster_runtimes_share_the_runtime_defaults():
    b = upstream.bundle("v2.3.0")
    assert b.defaults("ClusterTrainingRuntime") is b.defaults("TrainingRuntime")
    assert set(b.defaults("JobSet")) == {"spec"}


def test_derived_values_are_built_once_per_bundle():
    calls = []
    b = upstream.bundle("v2.3.0")
    first = b.derived("test_upstream.once", lambda: calls.append(1) or ["built"])
    assert b.derived("test_upstream.once", lambda: calls.append(1) or ["again"]) is first
    assert calls == [1]


@pytest.mark.parametrize("release", upstream.RELEASES)
def test_the_tables(release):
    b = upstream.bundle(release)
    assert {"roots", "types"} <= set(b.omitempty()) and {"roots", "types"} <= set(b.patch_meta())
    assert b.cel_trees() and isinstance(b.catalog(), tuple)
    assert all(rt["kind"] == "ClusterTrainingRuntime" for rt in b.catalog())


def _schema_files(release: str) -> dict:
    """file -> the JSON of each kubeconform-layout schema file of a release (the repository's schemas/<release>/)."""
    root = os.path.join(os.path.dirname(__file__), "..", "..", "schemas", release)
    out = {}
    for directory, _, names in os.walk(root):
        for name in names:
            with open(os.path.join(directory, name), encoding="utf-8") as f:
                out[os.path.relpath(os.path.join(directory, name), root).replace(os.sep, "/")] = json.load(f)
    return out


@pytest.mark.parametrize("release", upstream.RELEASES)
def test_every_schema_a_run_gets_is_its_kubeconform_file(release):
    """The oracle of schemas.json: for every entry, what the render path gets (shared subtrees put in
    place) equals the file kubeconform reads, key order included; and the index lists every file."""
    b = upstream.Bundle(release, upstream.bundle_dir(release), None, {})  # a fresh bundle: nothing of another test
    files = _schema_files(release)
    assert {e.file for e in b.schema_entries().values()} == set(files)
    for entry in b.schema_entries().values():
        got = b.schema(entry)
        assert json.dumps(got) == json.dumps(files[entry.file]), entry.file
        assert "$shared" not in json.dumps(got)


def test_schemas_share_their_common_subtrees():
    """The pod template spec is one object in every schema that holds it."""
    b = upstream.bundle("v2.3.0")
    entries = b.schema_entries()

    def pod_spec(kind, api_version, *path):
        node = b.schema(entries[(api_version, kind)])
        for step in path:
            node = node["properties"][step] if step != "[]" else node["items"]
        return node

    rjobs = ("spec", "replicatedJobs", "[]", "template", "spec", "template", "spec")
    jobset = pod_spec("JobSet", "jobset.x-k8s.io/v1alpha2", *rjobs)
    runtime = pod_spec("TrainingRuntime", "trainer.kubeflow.org/v1alpha1", "spec", "template", *rjobs)
    cluster = pod_spec("ClusterTrainingRuntime", "trainer.kubeflow.org/v1alpha1", "spec", "template", *rjobs)
    assert jobset is runtime is cluster


def test_rendering_changes_no_schema():
    """Schema nodes are shared between kinds, so no reader may change one: after rendering the shipped
    examples and a TrainJob the schema refuses (jsonschema-rs and the hints) under every release, every
    schema still equals its file."""
    from kpt_fn.cli import plain

    root = os.path.join(os.path.dirname(__file__), "..", "..")
    examples = [os.path.join(root, "fixtures", "examples", name) for name in ("first-job", "torch-job", "flux-job")]
    bad = (b"apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: x, namespace: y}\n"
           b"spec: {runtimeRef: {name: torch-distributed}, trainer: {numNodes: two, bogus: 1}}\n")
    for release in upstream.RELEASES:
        for path in examples:
            assert plain.expand([path], os.getcwd(), {}, "render", False, release).items
        refused = plain.expand(["-"], os.getcwd(), {}, "render", False, release, stdin=bad)
        assert any("numNodes" in str(r) for r in refused.results)
        b = upstream.bundle(release)
        files = _schema_files(release)
        for entry in b.schema_entries().values():
            assert json.dumps(b.schema(entry)) == json.dumps(files[entry.file]), (release, entry.file)


def test_linked_puts_each_shared_subtree_in_place():
    """What scripts/generators/subtrees.py writes, kpt_fn.upstream.linked reads back: equal documents,
    one object per repeated subtree."""
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
    from generators import subtrees

    big = {"type": "object", "properties": {f"p{i}": {"type": "string", "maxLength": i} for i in range(40)}}
    docs = {"a": {"x": big, "y": [big, {"z": big}], "n": 1}, "b": {"w": {"v": big}, "u": [1, 2]}}
    packed = json.loads(json.dumps(subtrees.share(docs, "docs")))
    assert len(packed["shared"]) == 1 and len(packed["links"]) == 4
    out = upstream.linked(packed)["docs"]
    assert out == docs
    assert out["a"]["x"] is out["a"]["y"][0] is out["a"]["y"][1]["z"] is out["b"]["w"]["v"]
    with pytest.raises(ValueError, match="shared"):
        subtrees.share({"a": {"$shared": 1}}, "docs")
