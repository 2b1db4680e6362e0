"""Huge integers and quantities in every field of a TrainJob and a runtime that takes one (found by
walking the release's schemas, not listed by hand): an answer or a clear error naming the field, never an
internal error, and bounded work (issue 33 point 6). tests/behaviour/test_hostile_values.py holds the
fields a run computes with to what Kubernetes and Go take; this file holds every other field to the
same floor.

Each kind is one ResourceList whose object carries the value in all its fields at once: one run per
value, every field named in its findings.
"""

from __future__ import annotations

import pytest
import yaml

from kpt_fn import openapi, upstream
from kpt_fn.cli import krm

API = "trainer.kubeflow.org/v1alpha1"
KINDS = ("TrainJob", "TrainingRuntime", "ClusterTrainingRuntime")
# go-yaml reads an integer beyond int64 as a float (20 digits: 1e+20) or, beyond float64, as a string
HUGE_INTEGERS = ["9" * 20, "9" * 999, "-" + "9" * 999, "1e400"]
HUGE_QUANTITIES = ["1e999999999", "1e-999999999", "9" * 5000, "0." + "0" * 3000 + "1", "9" * 999 + "Ei"]


def _fields(schema: dict) -> tuple[list, list]:
    """(integer fields, quantity fields) of a schema as path tuples (a list item: 0; a map key: `cpu`),
    status left out (the API server drops it on create)."""
    ints, quantities = [], []
    stack = [(schema, ())]
    while stack:
        node, path = stack.pop()
        types = node.get("type") if isinstance(node.get("type"), list) else [node.get("type")]
        if path and "integer" in types:
            (quantities if "string" in types else ints).append(path)
        for kind, name, sub in openapi.children(node):
            if path == () and name == "status":
                continue
            stack.append((sub, path + ((name,) if kind == openapi.PROPERTY else (0,) if kind == openapi.ITEMS else ("cpu",))))
    return sorted(ints, key=str), sorted(quantities, key=str)


def _put(obj, path: tuple, value) -> None:
    for step, after in zip(path, path[1:]):
        empty = [] if isinstance(after, int) else {}
        if isinstance(step, int):
            while len(obj) <= step:
                obj.append(type(empty)())
            obj = obj[step]
        else:
            obj = obj.setdefault(step, empty)
    if isinstance(path[-1], int):
        obj.append(value)
    else:
        obj[path[-1]] = value


def _field_path(path: tuple) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else f"[{step}]" if step == "cpu" else (f".{step}" if out else step)
    return out


def _run(kind: str, paths: list, raw: str, release: str) -> tuple[int, list]:
    obj = {"apiVersion": API, "kind": kind, "metadata": {"name": "x", "namespace": "ml"}}
    if kind == "ClusterTrainingRuntime":
        del obj["metadata"]["namespace"]
    for path in paths:
        _put(obj, path, "@VALUE@")
    items = [obj]
    if kind != "TrainJob":  # a runtime is checked when a TrainJob uses it
        items.append({"apiVersion": API, "kind": "TrainJob", "metadata": {"name": "t", "namespace": "ml"},
                      "spec": {"runtimeRef": {"name": "x", "kind": kind}}})
    config = {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "spec": {"trainerVersion": release}}
    text = yaml.safe_dump({"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items,
                           "functionConfig": config}, width=1 << 20)
    stdout, stderr, code = krm.process(text.replace("'@VALUE@'", raw).encode(), base_dir=".", env={})
    results = yaml.safe_load(stdout)["results"]
    assert not [r for r in results if "internal error" in r["message"]], kind
    assert len(yaml.safe_load(stdout)["items"]) == len(items)  # nothing lost
    return code, results


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("raw,release", [(raw, "v2.3.0") for raw in HUGE_INTEGERS] + [("9" * 999, "v2.2.1")])
def test_every_integer_field_names_itself_when_its_value_is_huge(kind, raw, release):
    bundle = upstream.bundle(release)
    ints, _ = _fields(bundle.schema(bundle.entry_for({"apiVersion": API, "kind": kind})))
    assert len(ints) > (20 if kind == "TrainJob" else 100)
    code, results = _run(kind, ints, raw, release)
    assert code == 1
    named = {(r.get("field") or {}).get("path", "") for r in results if r["severity"] == "error"}
    unnamed = [_field_path(p) for p in ints if _field_path(p) not in named]
    assert not unnamed, unnamed[:5]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("raw", HUGE_QUANTITIES)
def test_every_quantity_field_takes_a_huge_value_without_an_internal_error(kind, raw):
    bundle = upstream.bundle("v2.3.0")
    _, quantities = _fields(bundle.schema(bundle.entry_for({"apiVersion": API, "kind": kind})))
    assert len(quantities) > 10
    code, results = _run(kind, quantities, f"'{raw}'", "v2.3.0")
    # the objects miss required fields beside the quantities: an error, each naming its field
    assert code == 1 and all((r.get("field") or {}).get("path") for r in results if r["severity"] == "error")
