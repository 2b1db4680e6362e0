"""kpt_fn.apimachinery.field: field paths and the API server's "<Type>: <value>: <detail>" wording
(k8s.io/apimachinery pkg/util/validation/field/errors.go, Error.ErrorBody)."""

from __future__ import annotations

import pytest

from kpt_fn.apimachinery import field as fe


def test_paths():
    assert fe.child("", "spec") == "spec"
    assert fe.child("spec", "template") == "spec.template"
    assert fe.index("spec.containers", 2) == "spec.containers[2]"
    assert fe.key("metadata.labels", "app/x") == "metadata.labels[app/x]"


@pytest.mark.parametrize("value, expected", [
    ("a", '"a"'), ('say "x"\n', '"say \\"x\\"\\n"'), ("ü", '"ü"'),
])
def test_go_quote(value, expected):
    assert fe.go_quote(value) == expected


@pytest.mark.parametrize("value, expected", [
    ({"b": 1, "a": [True, None]}, '{"a":[true,null],"b":1}'),
    ("<a&b>", '"\\u003ca\\u0026b\\u003e"'),  # HTML-safe, as encoding/json
    ([], "[]"),
])
def test_go_json(value, expected):
    assert fe.go_json(value) == expected


@pytest.mark.parametrize("value, expected", [
    (True, "true"), (False, "false"), (3, "3"), (-3, "-3"), (2.0, "2"), (0.5, "0.5"),
    (float("inf"), "+Inf"), (float("-inf"), "-Inf"), (float("nan"), "NaN"), (-0.0, "0"),
    (1e21, "1e+21"), (1.5e-07, "1.5e-07"), (1e100, "1e+100"),
])
def test_go_number(value, expected):
    assert fe.go_number(value) == expected


@pytest.mark.parametrize("value, expected", [
    ("x", '"x"'), (1, "1"), (1.5, "1.5"), (True, "true"), (None, "null"), ({"a": 1}, '{"a":1}'), ([1], "[1]"),
])
def test_show_value(value, expected):
    assert fe.show_value(value) == expected


@pytest.mark.parametrize("args, expected", [
    ((fe.INVALID, "x", "must be lower case"), 'Invalid value: "x": must be lower case'),
    ((fe.INVALID, -1), "Invalid value: -1"),
    ((fe.INVALID, fe.OMIT, "detail"), "Invalid value: detail"),      # field.OmitValueType
    ((fe.UNSUPPORTED, None, 'supported values: "A"'), 'Unsupported value: null: supported values: "A"'),
    ((fe.REQUIRED, "ignored", ""), "Required value"),                  # valueless types never show it
    ((fe.FORBIDDEN, "x", "may not be set"), "Forbidden: may not be set"),
    ((fe.TOO_LONG, "x" * 9, "may not be more than 8 bytes"), "Too long: may not be more than 8 bytes"),
    ((fe.INTERNAL, 1, "oops"), "Internal error: oops"),
    ((fe.DUPLICATE, "a"), 'Duplicate value: "a"'),
    ((fe.TOO_MANY, 3, "must have at most 2 items"), "Too many: 3: must have at most 2 items"),
])
def test_body(args, expected):
    assert fe.body(*args) == expected
