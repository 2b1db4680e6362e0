"""kpt_fn.validation.precheck never calls an object valid that jsonschema-rs rejects (it may only be
more cautious), on every fixture object and on deterministic mutations of them."""

from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest

from kpt_fn import upstream
from kpt_fn.validation import precheck
from kpt_fn.yamlio import load_all

REPO = Path(__file__).resolve().parents[3]
ODD_VALUES = [None, 1, -5, 1.5, 2.0, True, "x", "", "a\n", "a\r", [], {}, {"bogus": 1}, ["x"], 2**70,
              float("nan"), float("inf"), "2020-01-01", "2020-01-01T00:00:00Z", "1Gi", "-", "A" * 300, "é"]


def _fixture_objects() -> list:
    out = []
    # The golden cases of MPI, JAX, XGBoost, Flux and the initializers: the other cases repeat their kinds.
    golden = REPO / "fixtures" / "golden"
    paths = [path for sub in ("validation", "examples") for path in sorted((REPO / "fixtures" / sub).rglob("*.yaml"))]
    paths += [golden / "demo.yaml"]
    paths += [path for area in ("flux", "initializer", "jax", "mpi", "xgboost")
              for path in sorted((golden / "v2.3.0" / area).rglob("*.yaml"))]
    for path in paths:
        try:
            docs = load_all(path.read_bytes())
        except Exception:  # noqa: BLE001 - bad-input fixtures are not ours to judge here
            continue
        out += [d for d in docs if isinstance(d, dict) and upstream.bundle("v2.3.0").entry_for(d) is not None]
    return out


def _mutations(obj: dict, rng: random.Random, count: int):
    for _ in range(count):
        o = copy.deepcopy(obj)
        node, parent, key = o, None, None
        for _ in range(rng.randint(1, 9)):
            if isinstance(node, dict) and node:
                key = rng.choice(sorted(node, key=str))
            elif isinstance(node, list) and node:
                key = rng.randrange(len(node))
            else:
                break
            parent, node = node, node[key]
        if parent is not None:
            parent[key] = copy.deepcopy(rng.choice(ODD_VALUES))
        yield o


OBJECTS = _fixture_objects()


def test_there_are_fixture_objects_of_several_kinds():
    assert len({(o["apiVersion"], o["kind"]) for o in OBJECTS}) >= 5


@pytest.mark.parametrize("chunk", range(4))
def test_precheck_valid_implies_jsonschema_rs_valid(chunk):
    rng = random.Random(chunk)
    accepted = 0
    for obj in OBJECTS[chunk::4]:
        entry = upstream.bundle("v2.3.0").entry_for(obj)
        validator, schema = upstream.validator(entry), upstream.schema(entry)
        for candidate in [obj, *_mutations(obj, rng, 12)]:
            if precheck.is_valid(candidate, schema):
                accepted += 1
                assert validator.is_valid(candidate), candidate
    assert accepted  # the precheck does accept valid objects


@pytest.mark.parametrize("schema, value", [
    ({"type": "string", "pattern": "^a$"}, "a\n"),  # `$` before a final newline: Python only
    ({"type": "string", "format": "date-time"}, "2020-01-01T00:00:00Z"),  # checked formats: ask
    ({"type": "integer"}, 2.0),
    ({"type": "integer"}, True),
    ({"type": "number"}, float("nan")),
    ({"type": "integer"}, 2**70),
    ({"enum": [1]}, 1),
    ({"type": "string", "$ref": "#/x"}, "a"),  # unknown keyword
    ({"type": "object", "additionalProperties": False}, {1: "a"}),
])
def test_what_is_not_understood_is_left_to_jsonschema_rs(schema, value):
    assert precheck.is_valid(value, schema) is False


def test_ignored_formats_and_plain_values_pass():
    assert precheck.is_valid({"a": [1, 2]}, {"type": "object", "properties": {"a": {
        "type": "array", "maxItems": 2, "items": {"type": "integer", "format": "int32", "minimum": 0}}}})
    assert precheck.is_valid("abc", {"type": "string", "format": "byte", "maxLength": 3, "pattern": "^[a-c]+$"})


# --- the walk's answers are a plain reading of every keyword of every node it meets ------------------

_ORACLE_TYPES = {"string": lambda v: type(v) is str, "object": lambda v: type(v) is dict,
                 "array": lambda v: type(v) is list, "integer": lambda v: type(v) is int,
                 "boolean": lambda v: type(v) is bool, "number": lambda v: type(v) in (int, float),
                 "null": lambda v: v is None}


def _oracle(value, schema) -> bool:
    """The precheck written plainly: no fast path, every keyword read where it applies."""
    import re

    if not precheck._KNOWN.issuperset(schema):
        return False
    t = schema.get("type")
    if t is not None:
        ts = [t] if type(t) is str else t
        if not any(_ORACLE_TYPES.get(x, lambda v: False)(value) for x in ts if isinstance(x, str)):
            return False
    enum = schema.get("enum")
    if enum is not None and not (type(value) is str and value in enum and all(type(e) is str for e in enum)):
        return False
    fmt = schema.get("format")
    if type(value) is str:
        if fmt is not None and fmt not in precheck._IGNORED_FORMATS:
            return False
        if schema.get("maxLength") is not None and len(value) > schema["maxLength"]:
            return False
        if schema.get("minLength") is not None and len(value) < schema["minLength"]:
            return False
        if schema.get("pattern") is not None:
            return "\n" not in value and "\r" not in value and \
                re.search(schema["pattern"], value, re.ASCII) is not None
        return True
    if type(value) is dict:
        if any(name not in value for name in schema.get("required") or ()):
            return False
        if schema.get("minProperties") is not None and len(value) < schema["minProperties"]:
            return False
        for k, v in value.items():
            if type(k) is not str:
                return False
            props = schema.get("properties") or {}
            addl = schema.get("additionalProperties", True)
            sub = props[k] if k in props else addl if isinstance(addl, dict) else None
            if sub is None and addl is False:
                return False
            if sub is not None and not _oracle(v, sub):
                return False
        return True
    if type(value) is list:
        if schema.get("maxItems") is not None and len(value) > schema["maxItems"]:
            return False
        if schema.get("minItems") is not None and len(value) < schema["minItems"]:
            return False
        items = schema.get("items")
        return items is None or (type(items) is dict and all(_oracle(x, items) for x in value))
    if type(value) in (int, float):
        if type(value) is float and not -1e308 <= value <= 1e308 or type(value) is int and not -2**63 <= value < 2**64:
            return False
        if fmt not in (None, *precheck._IGNORED_FORMATS):
            return False
        low, high = schema.get("minimum"), schema.get("maximum")
        return (low is None or value >= low) and (high is None or value <= high)
    return type(value) is bool or value is None


@pytest.mark.parametrize("chunk", range(2))
def test_the_walk_answers_as_the_plain_reading(chunk):
    rng = random.Random(100 + chunk)
    for obj in OBJECTS[chunk::2]:
        schema = upstream.schema(upstream.bundle("v2.3.0").entry_for(obj))
        for candidate in [obj, *_mutations(obj, rng, 6)]:
            assert precheck.is_valid(candidate, schema) is _oracle(candidate, schema), candidate


@pytest.mark.parametrize("schema", [
    {"type": ["string", "null"], "enum": ["a", "b"]}, {"enum": ["a"]}, {"type": "integer", "enum": ["1"]},
    {"type": "number", "minimum": 0, "maximum": 2}, {"type": ["integer", "boolean"]}, {"type": []},
    {"type": "array", "items": {"type": "string"}, "minItems": 1}, {"type": "array", "items": True},
    {"type": "object", "required": ["a"], "properties": {"a": {"type": "string", "minLength": 2}}},
    {"type": "object", "additionalProperties": {"type": "integer", "format": "int32"}, "minProperties": 1},
    {"type": "object", "additionalProperties": {"type": "string"}}, {"properties": {"a": {"type": "string"}}},
    {"additionalProperties": False, "properties": {"a": {}}}, {"type": "string", "format": "date"},
    {"type": "bogus"}, {},
])
def test_the_walk_answers_as_the_plain_reading_on_every_kind_of_node(schema):
    for value in [*ODD_VALUES, {"a": "xy"}, {"a": "x"}, {"b": 1}, {"a": 1, "b": 2.5}, ["a", "b"], [1], 0, 2, 3,
                  {"a": "x", "b": "y"}, {1: "x"}]:
        assert precheck.is_valid(value, schema) is _oracle(value, schema), value


# --- the quantity pattern is read without compiling it; the expression is the oracle ---------------

QUANTITY_TEXTS = ["1", "+1", "-1", "1.", ".5", ".", "", "+", "1.5", "1.5.5", "500m", "2Gi", "2Ki", "2K", "2k", "1E",
                  "1e", "1E5", "1e-3", "1e+3", "1e+", "1Ei", "1Ei5", "1.e5", ".e5", "1ee5", "1Mi ", " 1", "١", "1e1.5",
                  "1e.5", "1e.", "0x10", "1n", "1u", "1µ", "007", "1.0Gi", "Gi", "e5", "-.5", "+.5e-.5"]


def _quantity_oracle(text: str) -> bool:
    import re

    return re.compile(precheck.QUANTITY_PATTERN, re.ASCII).search(text) is not None


@pytest.mark.parametrize("text", QUANTITY_TEXTS)
def test_quantity_shape_is_the_pattern(text):
    assert precheck._quantity_shaped(text) is _quantity_oracle(text)


def test_quantity_shape_is_the_pattern_on_any_text():
    from hypothesis import given, settings, strategies as st

    @settings(max_examples=3000, deadline=None)
    @given(st.text(alphabet="0123456789.+-eEiKMGTPnumk x", max_size=9))
    def agree(text):
        assert precheck._quantity_shaped(text) is _quantity_oracle(text)

    agree()


def test_a_quantity_field_is_checked_by_its_shape():
    from kpt_fn.validation import hints

    node = {"type": ["integer", "string"], "x-kubernetes-int-or-string": True, "pattern": hints.QUANTITY_PATTERN}
    assert precheck.is_valid("500m", node) and precheck.is_valid(2, node)
    assert not precheck.is_valid("500 m", node) and not precheck.is_valid("1\n", node)
