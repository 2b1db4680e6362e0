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

# The `pattern` controller-gen writes for resource.Quantity fields (x-kubernetes-int-or-string): every
# resource list of every pod template carries it, so it is read by _quantity_shaped (the expression
# is its test oracle) instead of compiling it (~0.3 ms).
QUANTITY_PATTERN = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
_DIGITS = frozenset("0123456789")


def _number_end(text: str, i: int) -> int:
    r"""Where `([0-9]+(\.[0-9]*)?)|(\.[0-9]+)` read from `i` ends, or -1 where it does not match."""
    n, start = len(text), i
    while i < n and text[i] in _DIGITS:
        i += 1
    if i < n and text[i] == ".":
        i += 1
        fraction = i
        while i < n and text[i] in _DIGITS:
            i += 1
        if fraction - 1 == start and i == fraction:  # "." alone
            return -1
    return i if i > start else -1


def _quantity_shaped(text: str) -> bool:
    """Whether a string without line breaks matches QUANTITY_PATTERN: an optional sign, a number, and
    an optional binary suffix (Ki..Ei), decimal suffix (n, u, m, k, M..E) or exponent."""
    i = 1 if text[:1] in ("+", "-") else 0
    i = _number_end(text, i)
    if i < 0:
        return False
    suffix = text[i:]
    if not suffix or suffix in _QUANTITY_SUFFIXES:
        return True
    if suffix[0] not in "eE":
        return False
    i += 2 if suffix[1:2] in ("+", "-") else 1
    return _number_end(text, i) == len(text)


_QUANTITY_SUFFIXES = frozenset({"Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u", "m", "k", "M", "G", "T", "P", "E"})


# The Python types of the values each JSON type admits (bool is no integer; a whole float is no
# integer either: jsonschema-rs's Draft 4 says "integer" of integer values only).
_TYPES = {"string": (str,), "object": (dict,), "array": (list,), "integer": (int,), "boolean": (bool,),
          "number": (int, float), "null": (type(None),)}
# What a string is checked against: a node with none of them passes any string.
_STRING_KEYS = frozenset({"format", "maxLength", "minLength", "pattern"})
_NO_PROPERTIES: dict = {}


def _string_ok(schema: dict, value: str) -> bool:
    if _STRING_KEYS.isdisjoint(schema):
        return True
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
        if pattern == QUANTITY_PATTERN:
            return _quantity_shaped(value)
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
    kind = type(value)
    t = schema.get("type")
    if t is not None:
        if type(t) is str:
            if kind not in _TYPES.get(t, ()):
                return False
        elif not any(kind in _TYPES.get(x, ()) for x in t if type(x) is str):
            return False
    enum = schema.get("enum")
    if enum is not None and not (kind is str and value in enum and all(type(e) is str for e in enum)):
        return False
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
    # openapi.value_node, read once per map: a property's node, else additionalProperties' (a schema)
    props = schema.get("properties") or _NO_PROPERTIES
    addl = schema.get("additionalProperties", True)
    values = addl if isinstance(addl, dict) else None
    for k, v in value.items():
        if type(k) is not str:
            return False
        sub = props[k] if k in props else values
        if sub is None:
            if addl is False:
                return False
            continue
        if type(v) is str and len(sub) == 1 and sub.get("type") == "string":
            continue  # a string under `{"type": "string"}` (a quarter of the nodes objects reach)
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
    for x in value:
        if type(x) is str and len(items) == 1 and items.get("type") == "string":
            continue
        if not is_valid(x, items):
            return False
    return True
