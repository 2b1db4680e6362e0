"""A conservative pure-Python "is this object certainly valid?" test against a generated JSON Schema.

Why: importing jsonschema-rs (its extension pulls in email.utils, socket, calendar) and compiling the
validators of the three or four kinds a one-TrainJob run meets cost about a third of that run. A
valid object needs neither: walking it through the schema visits only the handful of schema nodes it
uses. The answer is only ever "certainly valid" (True) or "ask jsonschema-rs" (False); every error
message still comes from jsonschema-rs, so reports cannot differ.

Conservative means: anything not understood here exactly as jsonschema-rs (Draft 4, formats on)
understands it -- an unknown keyword, a format other than the ignored int32/int64/byte, a non-string
enum, a string with a newline meeting a pattern (`$` differs), a non-JSON Python value -- answers
False.
"""

from __future__ import annotations

import re

from kpt_fn import openapi

# Keywords this walk implements exactly, plus annotations jsonschema-rs ignores.
_KNOWN = frozenset({
    "$schema", "$comment", "type", "properties", "additionalProperties", "required", "items", "enum", "pattern",
    "minLength", "maxLength", "minItems", "maxItems", "minProperties", "minimum", "maximum", "format",
    "default", "x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-map-type",
    "x-kubernetes-validations", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
})
# Formats jsonschema-rs does not know, hence does not check.
_IGNORED_FORMATS = frozenset({"int32", "int64", "byte"})

# Compiled once per pattern text (immutable).
_patterns: dict[str, re.Pattern] = {}


def _type_ok(t: str, value) -> bool:
    if t == "string":
        return type(value) is str
    if t == "object":
        return type(value) is dict
    if t == "array":
        return type(value) is list
    if t == "integer":
        return type(value) is int
    if t == "boolean":
        return type(value) is bool
    if t == "number":
        return type(value) is int or type(value) is float
    if t == "null":
        return value is None
    return False


def _string_ok(schema: dict, value: str) -> bool:
    fmt = schema.get("format")
    if fmt is not None and fmt not in _IGNORED_FORMATS:
        return False
    n = schema.get("maxLength")
    if n is not None and len(value) > n:
        return False
    n = schema.get("minLength")
    if n is not None and len(value) < n:
        return False
    pattern = schema.get("pattern")
    if pattern is not None:
        if "\n" in value or "\r" in value:
            return False
        rx = _patterns.get(pattern)
        if rx is None:
            # ASCII classes: never wider than the Rust engine's.
            rx = _patterns[pattern] = re.compile(pattern, re.ASCII)
        if rx.search(value) is None:
            return False
    return True


def is_valid(value, schema: dict) -> bool:
    """True when `value` certainly satisfies `schema`; False when it may not (or is not understood)."""
    if not _KNOWN.issuperset(schema):
        return False
    t = schema.get("type")
    if t is not None:
        if type(t) is str:
            if not _type_ok(t, value):
                return False
        elif not any(_type_ok(x, value) for x in t):
            return False
    enum = schema.get("enum")
    if enum is not None and not (type(value) is str and value in enum and all(type(e) is str for e in enum)):
        return False
    kind = type(value)
    if kind is str:
        return _string_ok(schema, value)
    if kind is dict:
        return _object_ok(schema, value)
    if kind is list:
        return _array_ok(schema, value)
    if kind is int or kind is float:
        # Non-finite floats and integers beyond 64 bits convert to JSON differently, if at all.
        if (kind is float and not -1e308 <= value <= 1e308) or (kind is int and not -2**63 <= value < 2**64):
            return False
        if schema.get("format") not in (None, *_IGNORED_FORMATS):
            return False
        low, high = schema.get("minimum"), schema.get("maximum")
        return (low is None or value >= low) and (high is None or value <= high)
    return kind is bool or value is None


def _object_ok(schema: dict, value: dict) -> bool:
    for name in schema.get("required") or ():
        if name not in value:
            return False
    n = schema.get("minProperties")
    if n is not None and len(value) < n:
        return False
    closed = schema.get("additionalProperties", True) is False
    for k, v in value.items():
        if type(k) is not str:
            return False
        sub = openapi.value_node(schema, k)
        if sub is None:
            if closed:
                return False
            continue
        if not is_valid(v, sub):
            return False
    return True


def _array_ok(schema: dict, value: list) -> bool:
    n = schema.get("maxItems")
    if n is not None and len(value) > n:
        return False
    n = schema.get("minItems")
    if n is not None and len(value) < n:
        return False
    items = schema.get("items")
    if items is None:
        return True
    if type(items) is not dict:
        return False
    return all(is_valid(x, items) for x in value)
