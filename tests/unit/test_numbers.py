"""Whole-number floats in integer fields: admitted as the API server admits them, and
rendered as integers everywhere (never "2.0" in an env value, never a TypeError)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kpt_fn import upstream
from kpt_fn import numbers, sources
from kpt_fn.cli import plain
from kpt_fn.yamlio import dump_all
from support.door import run_with

ROOT = Path(__file__).resolve().parents[2]
INTS = ROOT / "fixtures" / "kustomize" / "names"
FLOATS = ROOT / "fixtures" / "numbers" / "whole-floats"


def rendered(path: Path):
    out, lines, code = plain.render([str(path)], str(path), {})
    assert code == 0, lines
    return out


def test_fixture_with_whole_floats_renders_as_the_one_with_integers():
    text = rendered(FLOATS)
    assert text == rendered(INTS)
    assert not re.search(r"(?<![\w.])\d+\.0(?![\w.])", text)


def _floats(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, dict):
        return {k: _floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_floats(v) for v in value]
    return value


@pytest.mark.parametrize("name", ["trainjobs", "runtimes"])
def test_every_integer_written_as_a_float_changes_nothing(name):
    items, _ = sources.Reader(str(INTS)).read_paths(["."])
    expected = run_with(items, None)
    floated = [_floats(o) if o["metadata"].get("annotations", {}).get("internal.config.kubernetes.io/path") == f"{name}.yaml" else o for o in items]
    assert repr(floated) != repr(items)  # (2.0 == 2 in Python)
    out = run_with(floated, None)
    assert out.exit_code == 0, out.results
    assert dump_all([r.objects for r in out.rendered]) == dump_all([r.objects for r in expected.rendered])


def test_a_fraction_is_rejected_naming_the_field():
    tj = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "j", "namespace": "a"},
          "spec": {"runtimeRef": {"name": "deepspeed-distributed"}, "trainer": {"numNodes": 2.5, "numProcPerNode": 2.0}}}
    out = run_with([tj], None)
    errors = [r for r in out.results if r.get("severity") == "error"]
    assert [r["field"]["path"] for r in errors] == ["spec.trainer.numNodes"]
    assert "must be of type int32" in errors[0]["message"] and "TypeError" not in errors[0]["message"]


def test_whole_numbers_follows_the_schema_and_does_not_mutate():
    tj = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "j"},
          "spec": {"trainer": {"numNodes": 2.0, "resourcesPerNode": {"limits": {"cpu": 1.0, "memory": "1Gi"}},
                               "env": [{"name": "X", "value": "2.0"}]}, "unknown": 3.0}}
    out = numbers.whole_numbers(tj, upstream.bundle("v2.3.0"))
    assert out["spec"]["trainer"]["numNodes"] == 2 and type(out["spec"]["trainer"]["numNodes"]) is int
    assert type(out["spec"]["trainer"]["resourcesPerNode"]["limits"]["cpu"]) is int
    assert out["spec"]["trainer"]["env"] == [{"name": "X", "value": "2.0"}] and out["spec"]["unknown"] == 3.0
    assert tj["spec"]["trainer"]["numNodes"] == 2.0 and type(tj["spec"]["trainer"]["numNodes"]) is float
    same = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "spec": {"trainer": {"numNodes": 2}}}
    assert numbers.whole_numbers(same, upstream.bundle("v2.3.0")) is same
    assert numbers.whole_numbers({"kind": "Other", "x": 1.0}, upstream.bundle("v2.3.0")) == {"kind": "Other", "x": 1.0}


def test_a_whole_float_beyond_2_53_stays_a_float():
    # kube-openapi's IsFloat64AJSONInteger: beyond 2^53 a float is no integer to the API server
    node = {"type": "integer"}
    assert numbers._whole(float(2**53), node) == 2**53 and type(numbers._whole(float(2**53), node)) is int
    assert type(numbers._whole(1e20, node)) is float


def test_an_object_without_floats_is_itself_and_one_with_them_is_walked():
    from kpt_fn import openapi, upstream

    tj = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "a"},
          "spec": {"trainer": {"numNodes": 2, "env": [{"name": "X", "value": "2.0"}]}}}
    assert numbers.whole_numbers(tj, upstream.bundle("v2.3.0")) is tj
    for where in ({"numNodes": 2.0}, {"numNodes": 2.5}, {"env": [{"name": "X", "value": 2.0}]}):
        with_float = {**tj, "spec": {"trainer": {**tj["spec"]["trainer"], **where}}}
        schema = upstream.schema(upstream.bundle("v2.3.0").entry_for(with_float))
        assert numbers.whole_numbers(with_float, upstream.bundle("v2.3.0")) == openapi.walk(with_float, schema, numbers._whole, only=float)
    assert numbers.whole_numbers({**tj, "spec": {"trainer": {"numNodes": 2.0}}}, upstream.bundle("v2.3.0"))["spec"]["trainer"]["numNodes"] == 2
    assert type(numbers.whole_numbers({**tj, "spec": {"trainer": {"numNodes": 2.0}}}, upstream.bundle("v2.3.0"))["spec"]["trainer"]["numNodes"]) is int
