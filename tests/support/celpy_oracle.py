"""cel-python (a test dependency) as the oracle of kpt_fn.validation.cel: its parser for rule texts no
release bundle holds, and its interpreter, which the compiled closures must agree with.

The function itself never imports cel-python: the CRDs' rules come as parse trees in the bundles
(scripts/generate.py cel, which parses them with the same `plain` conversion used here).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kpt_fn.upstream import defaults
from kpt_fn.validation import cel

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from generators.cel import plain  # noqa: E402


def lark_parse(text: str):
    """cel-python's own parse (a lark Tree); raises its parse errors."""
    import celpy

    return celpy.CELParser().parse(text)


def plain_tree(text: str) -> dict:
    """The tree of `text` as a bundle's cel_trees.json would hold it."""
    return plain(lark_parse(text))


def literal(token):
    """A lark literal token's value, decoded by cel-python."""
    from celpy.evaluation import celbytes, celstr

    return bytes(celbytes(token)) if token.type == "BYTES_LIT" else str(celstr(token))


@pytest.fixture
def celpy_parsing(monkeypatch):
    """Rule texts no bundle holds are parsed with cel-python (the tests' own rules)."""
    bundled = cel._precompiled
    monkeypatch.setattr(cel, "_precompiled", lambda text: bundled(text) or plain_tree(text))


def interpreter(text: str, schema):
    """cel-python's interpreter for `text` on the value as the API server stores it (defaults filled,
    nulls dropped): f({"self": value}) -> result, raising cel.CelError."""
    import celpy

    runner = celpy.Environment().program(lark_parse(text))
    tree = defaults.defaults_tree(schema)

    def fn(v):
        value = _without_nulls(v["self"], schema)
        defaults.apply_defaults(value, tree)
        try:
            result = runner.evaluate({"self": celpy.json_to_cel(value)})
        except celpy.CELEvalError as exc:
            raise cel.CelError(str(exc.args[0]) if exc.args else "evaluation error") from None
        except Exception as exc:  # cel-python bugs are errors, as the function's would be
            raise cel.CelError(f"evaluation error: {exc}") from None
        if isinstance(result, celpy.CELEvalError):
            raise cel.CelError(str(result.args[0]) if result.args else "evaluation error")
        return _from_cel(result)

    return fn


def _from_cel(value):
    from celpy import celtypes

    if isinstance(value, celtypes.BoolType):
        return bool(value)
    if isinstance(value, (celtypes.IntType, celtypes.UintType)):
        return int(value)
    if isinstance(value, celtypes.DoubleType):
        return float(value)
    if isinstance(value, celtypes.StringType):
        return str(value)
    if isinstance(value, celtypes.ListType):
        return [_from_cel(x) for x in value]
    if isinstance(value, celtypes.MapType):
        return {_from_cel(k): _from_cel(x) for k, x in value.items()}
    return value


def _without_nulls(value, schema):
    """A copy of `value` without the null map values wherever `schema` describes them."""
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        addl = schema.get("additionalProperties")
        return {k: _without_nulls(x, props.get(k, addl if isinstance(addl, dict) else None))
                for k, x in value.items() if x is not None}
    if isinstance(value, list):
        sub = schema.get("items")
        return [_without_nulls(x, sub) for x in value]
    return value
