"""kpt_fn.resource: the one null-dropper."""

from __future__ import annotations

from kpt_fn.resource import without_nulls


def test_without_nulls_drops_null_map_values_at_any_depth_into_new_containers():
    value = {"a": None, "b": {"c": None, "d": [None, {"e": None, "f": 1}]}, "g": []}
    out = without_nulls(value)
    assert out == {"b": {"d": [None, {"f": 1}]}, "g": []}
    assert out["g"] is not value["g"]  # nothing shared: callers may change what they get
    assert value["a"] is None and value["b"]["c"] is None
