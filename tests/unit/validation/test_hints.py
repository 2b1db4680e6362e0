"""kpt_fn.validation.hints: what was found and what to write, after the API server's type errors."""

from __future__ import annotations

import pytest

from kpt_fn.validation import hints


@pytest.mark.parametrize("value, wanted, field, expected", [
    ("two", ["integer"], "numNodes", "; found 'two': write a whole number, without quotes (numNodes: 2)"),
    ("2", ["int32"], "numNodes", "; found '2': write a whole number, without quotes (numNodes: 2)"),
    ("x", ["number"], "ratio", "; found 'x': write a number, without quotes (ratio: 1.5)"),
    ("yes", ["boolean"], "suspend", "; found 'yes': write true or false, without quotes (suspend: true)"),
    (2, ["string"], "name", '; found 2: write text: quote it (name: "2")'),        # the value itself, quoted
    (True, ["string"], "name", '; found true: write text: quote it (name: "true")'),
    ({"a": 1}, ["array"], "args", "; found a mapping: write a list (args: [a, b])"),
    ([1], ["object"], "labels", "; found a list: write a mapping of keys to values (labels: {key: value})"),
    (None, ["integer"], "numNodes", "; found null: write a whole number, without quotes (numNodes: 2)"),
    # A list item or map value has no `name: value` line to show.
    ("x", ["integer"], "args[0]", "; found 'x': write a whole number, without quotes"),
    ("x", ["integer"], "", "; found 'x': write a whole number, without quotes"),
    # int-or-string: both shapes, briefly.
    ([1], ["integer", "string"], "port", "; found a list: write a whole number or text"),
    # A long value is cut.
    ("v" * 70, ["integer"], "", f"; found '{'v' * 60}...': write a whole number, without quotes"),
])
def test_type_hint(value, wanted, field, expected):
    assert hints.type_hint(value, wanted, field) == expected


def test_no_hint_for_a_type_it_does_not_know():
    assert hints.type_hint("x", ["date-time"], "at") == ""
    assert hints.type_hint("x", [], "at") == ""


def test_is_quantity_pattern():
    assert hints.is_quantity_pattern(hints.QUANTITY_PATTERN)
    assert not hints.is_quantity_pattern("^[0-9]+$")
    assert "500m" in hints.QUANTITY_SHAPE
