"""Our words after (or instead of) the API server's where its text does not help a person: what was
found, and what to write instead.

The API server reports a type error with the JSON type in place of the value (`Invalid value:
"string": ... must be of type integer: "string"`, k8s.io/apiextensions-apiserver
pkg/apiserver/validation/formats and kube-openapi's validate/type.go); the value itself and an example
of the right shape follow it here. A resource quantity that does not parse is reported by the API
server with the regular expression of the CRD's `pattern`; here it says what a quantity looks like
instead (the same grammar: k8s.io/apimachinery pkg/api/resource/quantity.go, ParseQuantity).
"""

from __future__ import annotations

from kpt_fn.validation.precheck import QUANTITY_PATTERN  # the pattern of resource.Quantity fields, defined once

QUANTITY_SHAPE = ("must be a quantity: a number with an optional unit suffix, such as 4, 0.5, 500m (0.5), "
                  "2Gi, 100M or 1e3")

_SHAPES = {
    "integer": ("a whole number, without quotes", "2"),
    "int32": ("a whole number, without quotes", "2"),
    "int64": ("a whole number, without quotes", "2"),
    "number": ("a number, without quotes", "1.5"),
    "boolean": ("true or false, without quotes", "true"),
    "string": ("text: quote it", '"2"'),
    "array": ("a list", "[a, b]"),
    "object": ("a mapping of keys to values", "{key: value}"),
}


def _shown(value) -> str:
    """The value as the user wrote it in YAML (short)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return "a mapping" if isinstance(value, dict) else "a list"
    text = str(value)
    if len(text) > 60:
        text = text[:60] + "..."
    return repr(text) if isinstance(value, str) else text


def type_hint(value, wanted: list[str], field: str) -> str:
    """`; found 'two': write a whole number, without quotes (numNodes: 2)` for a value of the wrong
    JSON type; `wanted` are the schema's types (or its format), `field` the field's own name."""
    shapes = [_SHAPES[w] for w in wanted if w in _SHAPES]
    if not shapes:
        return ""
    if len(shapes) > 1:  # int-or-string
        what = " or ".join(s[0].split(",")[0].split(":")[0] for s in shapes)
        return f"; found {_shown(value)}: write {what}"
    what, example = shapes[0]
    if wanted[0] == "string" and isinstance(value, (int, float, bool)):
        example = f'"{_shown(value)}"'
    if not field or "[" in field:  # a list item or map value: no `name: value` line to show
        return f"; found {_shown(value)}: write {what}"
    return f"; found {_shown(value)}: write {what} ({field}: {example})"


def is_quantity_pattern(pattern: str) -> bool:
    return pattern == QUANTITY_PATTERN
