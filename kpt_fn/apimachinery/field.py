"""Kubernetes field-error wording: field paths and the "<Type>: <value>: <detail>" error body.

The API server prints an error as `<path>: <body>`; Problems carry the path separately, so the
message is the body (schema errors) or just the detail (CEL, webhooks, names), see
kpt_fn/validation/__init__.py.
"""

from __future__ import annotations

import json
import math

REQUIRED = "Required value"
INVALID = "Invalid value"
UNSUPPORTED = "Unsupported value"
DUPLICATE = "Duplicate value"
NOT_FOUND = "Not found"
FORBIDDEN = "Forbidden"
TOO_LONG = "Too long"
TOO_MANY = "Too many"
INTERNAL = "Internal error"

# Error types whose body never shows the value.
_VALUELESS = {REQUIRED, FORBIDDEN, TOO_LONG, INTERNAL}


class _Omit:
    """Marker: print the error type without a value (Go's field.OmitValueType)."""

    def __repr__(self):
        return "OMIT"


OMIT = _Omit()


def child(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def index(path: str, i: int) -> str:
    return f"{path}[{i}]"


def key(path: str, k: str) -> str:
    return f"{path}[{k}]"


def go_quote(s: str) -> str:
    """strconv.Quote for the strings that occur in manifests (JSON escaping is the same there)."""
    return json.dumps(s, ensure_ascii=False)


def go_json(value) -> str:
    """encoding/json.Marshal of an unstructured value: compact, map keys sorted, HTML-safe."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def go_number(value) -> str:
    """fmt %v of an int64 or float64."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if math.isnan(value):
        return "NaN"
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mant, exp = text.split("e")
        sign = "-" if exp.startswith("-") else "+"
        exp = exp.lstrip("+-").rjust(2, "0")
        text = f"{mant}e{sign}{exp}"
    return text


def show_value(value) -> str:
    """How Error.ErrorBody renders a bad value."""
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, (bool, int, float)):
        return go_number(value)
    if value is None:
        return "null"
    return go_json(value)


def body(error_type: str, value=OMIT, detail: str = "") -> str:
    if error_type in _VALUELESS or value is OMIT:
        text = error_type
    else:
        text = f"{error_type}: {show_value(value)}"
    return f"{text}: {detail}" if detail else text
