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
        out += [d for d in docs if isinstance(d, dict) and upstream.bundle().entry_for(d) is not None]
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
        entry = upstream.bundle().entry_for(obj)
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
