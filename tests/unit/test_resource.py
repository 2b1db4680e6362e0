"""kpt_fn.resource: the one null-dropper and the one deep copy."""

from __future__ import annotations

from kpt_fn import resource
from kpt_fn.resource import private_copy, without_nulls


def test_without_nulls_drops_null_map_values_at_any_depth_into_new_containers():
    value = {"a": None, "b": {"c": None, "d": [None, {"e": None, "f": 1}]}, "g": []}
    out = without_nulls(value)
    assert out == {"b": {"d": [None, {"f": 1}]}, "g": []}
    assert out["g"] is not value["g"]  # nothing shared: callers may change what they get
    assert value["a"] is None and value["b"]["c"] is None


def test_private_copy_shares_nothing_mutable():
    shared = {"a": [1, {"b": None}]}
    data = {"x": shared, "y": shared, "z": [shared, "s", 1.5, True, None]}
    out = private_copy(data)
    assert out == data
    assert out["x"] is not shared and out["x"] is not out["y"]  # aliases are copied apart
    assert out["x"]["a"][1] is not shared["a"][1]
    marker = (1, [2])  # not plain data: deep-copied as copy.deepcopy would
    copied = private_copy({"t": marker})["t"]
    assert copied == marker and copied[1] is not marker[1]


def test_named_writes_kind_namespace_and_name_and_no_stray_space():
    assert resource.named("TrainJob", "ns", "a") == "TrainJob ns/a"
    assert resource.named("ClusterTrainingRuntime", "", "rt") == "ClusterTrainingRuntime rt"
    # a functionConfig without metadata: `ExpandTrainJobs: spec.bogus: ...`, not `ExpandTrainJobs : ...`
    assert resource.named("ExpandTrainJobs", "", "") == resource.named("ExpandTrainJobs", None, None) == "ExpandTrainJobs"
