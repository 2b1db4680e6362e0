"""kpt_fn.openapi: the one way a value's child finds its schema node, and the copy-on-write walk."""

from __future__ import annotations

from kpt_fn import openapi

SCHEMA = {
    "type": "object",
    "properties": {
        "n": {"type": "integer"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "list": {"type": "array", "items": {"type": "integer"}},
        "open": {"type": "object", "additionalProperties": True},
    },
}


def test_child_follows_properties_then_additional_properties_and_items():
    assert openapi.child(SCHEMA, "n") == {"type": "integer"}
    assert openapi.child(openapi.child(SCHEMA, "labels"), "any") == {"type": "string"}
    assert openapi.child(openapi.child(SCHEMA, "list"), 3) == {"type": "integer"}
    assert openapi.child(openapi.child(SCHEMA, "open"), "x") is None  # a boolean is no schema
    assert openapi.child(SCHEMA, "missing") is None
    assert openapi.child(None, "n") is None and openapi.child(SCHEMA, 0) is None


def test_children_names_each_kind_of_child():
    assert [(w, n) for w, n, _ in openapi.children(SCHEMA)] == [
        (openapi.PROPERTY, "n"), (openapi.PROPERTY, "labels"), (openapi.PROPERTY, "list"), (openapi.PROPERTY, "open")]
    assert [w for w, _, _ in openapi.children(SCHEMA["properties"]["labels"])] == [openapi.VALUES]
    assert [w for w, _, _ in openapi.children(SCHEMA["properties"]["list"])] == [openapi.ITEMS]


def test_walk_replaces_leaves_with_a_schema_and_copies_only_what_changed():
    value = {"n": 1, "labels": {"a": "x"}, "list": [1, 2], "open": {"n": 1}, "other": 1}

    def double_ints(v, node):
        return v * 2 if node.get("type") == "integer" else v

    out = openapi.walk(value, SCHEMA, double_ints)
    assert out == {"n": 2, "labels": {"a": "x"}, "list": [2, 4], "open": {"n": 1}, "other": 1}
    assert out["labels"] is value["labels"] and out["open"] is value["open"]
    assert value == {"n": 1, "labels": {"a": "x"}, "list": [1, 2], "open": {"n": 1}, "other": 1}
    assert openapi.walk(value, SCHEMA, lambda v, node: v) is value
