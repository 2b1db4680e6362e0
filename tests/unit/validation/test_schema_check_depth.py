"""validation/schema_check: objects nested deeper than jsonschema-rs converts (JSONSCHEMA_RS_DEPTH) are
checked through `within_reach`, with the same findings; maxDepth allows up to 1000 levels."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest
import yaml

from kpt_fn import upstream, validation
from kpt_fn.upstream import validator
from kpt_fn.validation import schema_check

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "validation"


def nested(levels: int, leaf="leaf"):
    value = leaf
    for _ in range(levels):
        value = {"a": value}
    return value


@pytest.fixture
def deep_stack():
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 6000))
    yield
    sys.setrecursionlimit(old)


def test_jsonschema_rs_takes_exactly_its_documented_depth():
    trainjob = yaml.safe_load((FIXTURES / "trainjob_runtimepatches.yaml").read_text())
    v = validator(upstream.bundle("v2.3.0").entry_for(trainjob))
    v.is_valid(nested(schema_check.JSONSCHEMA_RS_DEPTH))
    list(v.iter_errors(nested(schema_check.JSONSCHEMA_RS_DEPTH)))
    with pytest.raises(ValueError):
        list(v.iter_errors(nested(schema_check.JSONSCHEMA_RS_DEPTH + 1)))


@pytest.mark.parametrize("levels", [10, 300, 995])
def test_a_deep_unknown_field_is_named_at_every_depth(levels, deep_stack):
    trainjob = yaml.safe_load((FIXTURES / "trainjob_runtimepatches.yaml").read_text())
    trainjob["spec"]["trainer"]["extra"] = nested(levels)
    found = [(p.path, p.message) for p in validation.check_object(trainjob, upstream.bundle("v2.3.0"))]
    assert found == [("spec.trainer.extra", 'unknown field "spec.trainer.extra"')]


def test_a_deep_value_of_the_wrong_type_is_a_type_error(deep_stack):
    trainjob = yaml.safe_load((FIXTURES / "trainjob_runtimepatches.yaml").read_text())
    trainjob["spec"]["trainer"]["command"] = [nested(400)]
    found = [(p.path, p.message.split(";")[0]) for p in validation.check_object(trainjob, upstream.bundle("v2.3.0"))]
    assert found == [("spec.trainer.command[0]",
                      'Invalid value: "object": spec.trainer.command[0] in body must be of type string: "object"')]


def test_within_reach_keeps_what_the_schema_sees_and_never_changes_its_input(deep_stack):
    trainjob = yaml.safe_load((FIXTURES / "trainjob_runtimepatches.yaml").read_text())
    schema = upstream.bundle("v2.3.0").schema(upstream.bundle("v2.3.0").entry_for(trainjob))
    assert schema_check.within_reach(trainjob, schema) == trainjob  # a valid object is within reach already
    deep = copy.deepcopy(trainjob)
    deep["spec"]["trainer"]["extra"] = nested(900)
    deep["spec"]["trainer"]["env"] = [{"name": "X", "value": nested(900)}]
    before = copy.deepcopy(deep)
    reached = schema_check.within_reach(deep, schema)
    assert deep == before
    assert reached["spec"]["trainer"]["extra"] == {} and reached["spec"]["trainer"]["env"] == [{"name": "X", "value": {}}]
