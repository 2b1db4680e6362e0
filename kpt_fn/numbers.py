"""Whole-number floats in integer fields (`numNodes: 2.0`), made integers where input is admitted.

The API server admits them: kube-openapi's type check accepts a JSON number with an integral value
for `type: integer` (validate/type.go: IsFloat64AJSONInteger), and kubectl's YAML-to-JSON step
already writes float64 2 as `2`, so the controller only ever sees the integer. Rendering offline
must do the same, once, before anything reads the value: otherwise `2.0` reaches env values as
"2.0" or a Python range() as a float. A float that is not whole stays as it is, for schema
validation to reject with the API server's message.
"""

from __future__ import annotations

from kpt_fn import openapi, upstream


def _integer(node: dict) -> bool:
    if node.get("x-kubernetes-int-or-string"):
        return True
    t = node.get("type")
    if t == "integer" or (isinstance(t, list) and "integer" in t):
        return True
    return any(isinstance(s, dict) and _integer(s) for s in (node.get("anyOf") or ()) + (node.get("oneOf") or ()))


# kube-openapi takes a float for an integer only up to 2^53 (validate/type.go: IsFloat64AJSONInteger):
# beyond, a float64 no longer tells neighbouring integers apart, and `numNodes: 1e20` is refused.
MAX_JSON_INTEGER = float(1 << 53)


def _whole(value, node: dict):
    """A whole float (within 2^53) under an integer schema node as an int; anything else as it is."""
    if type(value) is float and value.is_integer() and abs(value) <= MAX_JSON_INTEGER and _integer(node):
        return int(value)
    return value


def _has_float(value) -> bool:
    """Whether a float sits anywhere in `value` (most objects hold none: YAML's 2 is an int)."""
    if isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, list):
        return type(value) is float
    for x in value:
        if type(x) is float or (isinstance(x, (dict, list)) and _has_float(x)):
            return True
    return False


def whole_numbers(obj: dict, bundle: upstream.Bundle) -> dict:
    """The object with every whole-number float in an integer field of its schema made an int."""
    # Only floats can change: an object without any is itself, found without its schema walk (a
    # plain scan costs a quarter of the walk).
    entry = bundle.entry_for(obj) if isinstance(obj, dict) and _has_float(obj) else None
    if entry is None:
        return obj
    # the same object when nothing changed (the caller's data is never mutated); only floats can change
    return openapi.walk(obj, upstream.schema(entry), _whole, only=float)
