"""kpt_fn.upstream: one bundle of upstream-derived data per Trainer release, one entry point (bundle)
that reads each file once. Whether a bundle is current is checked against upstream in
tests/behaviour/test_generated_artifacts_current.py."""

from __future__ import annotations

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


def test_the_default_release():
    assert upstream.bundle() is upstream.bundle(upstream.DEFAULT_RELEASE) is upstream.bundle(None)


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
    assert (entry.kind, entry.namespaced, entry.release, entry.group) == ("TrainJob", True, release, "trainer.kubeflow.org")
    assert b.entry_for({"apiVersion": "v1", "kind": "Nothing"}) is None
    assert b.entry_for({"apiVersion": 1, "kind": "TrainJob"}) is None
    assert upstream.schema(entry) is b.schema(entry)
    assert upstream.validator(entry) is b.validator(entry)
    assert os.path.isdir(b.schema_dir())


def test_cluster_runtimes_share_the_runtime_defaults():
    b = upstream.bundle()
    assert b.defaults("ClusterTrainingRuntime") is b.defaults("TrainingRuntime")
    assert set(b.defaults("JobSet")) == {"spec"}


def test_derived_values_are_built_once_per_bundle():
    calls = []
    b = upstream.bundle()
    first = b.derived("test_upstream.once", lambda: calls.append(1) or ["built"])
    assert b.derived("test_upstream.once", lambda: calls.append(1) or ["again"]) is first
    assert calls == [1]


@pytest.mark.parametrize("release", upstream.RELEASES)
def test_the_tables(release):
    b = upstream.bundle(release)
    assert {"roots", "types"} <= set(b.omitempty()) and {"roots", "types"} <= set(b.patch_meta())
    assert b.cel_trees() and isinstance(b.catalog(), tuple)
    assert all(rt["kind"] == "ClusterTrainingRuntime" for rt in b.catalog())
