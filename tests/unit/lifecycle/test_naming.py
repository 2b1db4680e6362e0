"""kpt_fn.lifecycle.naming: `jobSetNames: contentHash` names a TrainJob after what it renders."""

from __future__ import annotations

import pytest

from kpt_fn.lifecycle import naming

OBJECTS = [{"kind": "JobSet", "metadata": {"name": "tj"}, "spec": {"replicatedJobs": [{"name": "node", "replicas": 1}]}}]


def test_content_hash_is_short_and_ignores_key_order():
    digest = naming.content_hash(OBJECTS)
    assert len(digest) == naming.HASH_LENGTH and int(digest, 16) >= 0
    reordered = [{"spec": OBJECTS[0]["spec"], "metadata": {"name": "tj"}, "kind": "JobSet"}]
    assert naming.content_hash(reordered) == digest


def test_any_change_of_a_rendered_object_changes_the_hash():
    changed = [{**OBJECTS[0], "spec": {"replicatedJobs": [{"name": "node", "replicas": 2}]}}]
    assert naming.content_hash(changed) != naming.content_hash(OBJECTS)
    assert naming.content_hash(OBJECTS + [{"kind": "ConfigMap"}]) != naming.content_hash(OBJECTS)


def test_renamed_changes_only_the_name_and_not_the_input():
    tj = {"kind": "TrainJob", "metadata": {"name": "tj", "namespace": "ns"}, "spec": {"x": 1}}
    out = naming.renamed(tj, "0123abcd")
    assert out == {"kind": "TrainJob", "metadata": {"name": "tj-0123abcd", "namespace": "ns"}, "spec": {"x": 1}}
    assert tj["metadata"]["name"] == "tj"


@pytest.mark.parametrize("trainjob, name, parts", [
    ("tj", "tj-0123abcd", ("0123abcd", "")),
    ("tj", "tj-0123abcd-node-0", ("0123abcd", "-node-0")),
    ("tj", "tj-0123abcdx", None),         # the hash ends at a dash or the end
    ("tj", "tj-0123ABCD", None),          # lower-case hex only
    ("tj", "tj-0123abc", None),           # too short
    ("tj", "other-0123abcd", None),
    ("tj", "tj0123abcd", None),
    ("a-b", "a-b-0123abcd-mpi", ("0123abcd", "-mpi")),
    ("tj", "tj-0123abcdx", None),         # the hash is followed by "-" or nothing
    ("tj", "tj-0123abcg", None),
    ("tj", "tj-0123abcd\n", None),        # (an expression's `$` would have taken the line break)
])
def test_hashed_parts(trainjob, name, parts):
    assert naming.hashed_parts(trainjob, name) == parts


@pytest.mark.parametrize("name, earlier, expected", [
    ("tj-0123abcd-mpi", "tj-89abcdef-mpi", True),    # the same object, an earlier render
    ("tj-0123abcd-mpi", "tj-0123abcd-mpi", False),   # the same render
    ("tj-0123abcd-mpi", "tj-89abcdef-ssh", False),   # another object
    ("tj-0123abcd", "tj", False),                    # the earlier one was not hashed
    ("tj", "tj-0123abcd", False),
])
def test_earlier_run(name, earlier, expected):
    assert naming.earlier_run("tj", name, earlier) is expected
