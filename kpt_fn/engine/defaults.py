"""The defaults the API server applies to TrainJobs and runtimes (trainer-semantics.md §1.2, §1.3).

In the cluster the controller only sees objects defaulted from the CRD structural schemas, and
several code paths rely on that (MPI, coscheduling and volcano dereference defaulted fields). Raw
YAML from Git has not been through the API server, so the engine defaults its private copies first.

The defaults are the `default:` values of the generated schemas (schemas/, made from the v2.3.0
CRDs by scripts/gen_schemas.py) as a tree of the defaulted paths (`defaults_tree`). For the TrainJob
and runtime specs scripts/gen_crd_defaults.py writes those trees to crd_defaults.json beside this
module, so a run reads a few hundred bytes instead of parsing both schemas; a test keeps the file
current. Structural defaulting fills a field only when it is absent (or null) and its parent object
is present; an explicitly written value, even "" or 0, is kept. The CEL fallback
(kpt_fn.validation.cel) defaults with the same trees.
"""

from __future__ import annotations

import copy
import json
import os
from functools import cache

ITEMS = "[]"  # key of the subtree that applies to every element of a list
VALUES = "{}"  # key of the subtree that applies to every value of a map (additionalProperties)


class _Default:
    """A defaulted field: its value, and the defaults below it (filled into the value too)."""

    __slots__ = ("value", "tree")

    def __init__(self, value, tree: dict | None = None):
        self.value = value
        self.tree = tree or {}

    def __repr__(self):
        return f"D({self.value!r})"


def defaults_tree(schema) -> dict:
    """The `default:` values below an OpenAPI schema node, keyed by property (ITEMS: list items,
    VALUES: map values); only paths that lead to a default are present."""
    if not isinstance(schema, dict):
        return {}
    tree: dict = {}
    for key, sub in (schema.get("properties") or {}).items():
        if not isinstance(sub, dict):
            continue
        below = defaults_tree(sub)
        if "default" in sub:
            tree[key] = _Default(sub["default"], below)
        elif below:
            tree[key] = below
    for key, sub in ((ITEMS, schema.get("items")), (VALUES, schema.get("additionalProperties"))):
        below = defaults_tree(sub)
        if below:
            tree[key] = below
    return tree


# In crd_defaults.json a defaulted field is {"=": value, <the defaults below it>}: no property is "=".
_VALUE = "="
CRD_DEFAULTS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "crd_defaults.json")
# The kinds crd_defaults.json holds the spec defaults of (trainer.kubeflow.org/v1alpha1).
CRD_DEFAULTS_KINDS = ("TrainJob", "TrainingRuntime")


def tree_to_json(tree: dict) -> dict:
    out = {}
    for key, sub in tree.items():
        out[key] = {_VALUE: sub.value, **tree_to_json(sub.tree)} if isinstance(sub, _Default) else tree_to_json(sub)
    return out


def _tree_from_json(data: dict) -> dict:
    out = {}
    for key, sub in data.items():
        if _VALUE in sub:
            below = {k: v for k, v in sub.items() if k != _VALUE}
            out[key] = _Default(sub[_VALUE], _tree_from_json(below))
        else:
            out[key] = _tree_from_json(sub)
    return out


@cache
def _spec_defaults(kind: str) -> dict:
    """The defaults of a trainer.kubeflow.org kind's spec (crd_defaults.json)."""
    with open(CRD_DEFAULTS_FILE, encoding="utf-8") as f:
        return {"spec": _tree_from_json(json.load(f)[kind])}


def trainjob_defaults() -> dict:
    return _spec_defaults("TrainJob")


def runtime_defaults() -> dict:
    # ClusterTrainingRuntime has the same spec type (TrainingRuntimeSpec), so the same defaults.
    return _spec_defaults("TrainingRuntime")


def apply_defaults(obj, tree) -> None:
    """Fill absent fields of `obj` in place from `tree`, descending only into present objects."""
    if isinstance(obj, list):
        for item in obj:
            apply_defaults(item, tree)
        return
    if not isinstance(obj, dict):
        return
    for key, sub in tree.items():
        if key == VALUES:
            for value in obj.values():
                apply_defaults(value, sub)
            continue
        if isinstance(sub, _Default):
            value = obj.get(key)
            if value is None:
                value = obj[key] = copy.copy(sub.value)
            sub = sub.tree
            if not sub:
                continue
        else:
            value = obj.get(key)
            if value is None:
                continue
        if ITEMS in sub:
            if isinstance(value, list):
                apply_defaults(value, sub[ITEMS])
        else:
            apply_defaults(value, sub)


_SCALARS = (str, int, float, bool, type(None))


def private_copy(value):
    """A deep copy of plain data (dicts, lists and scalars as parsed from YAML).

    Several times faster than copy.deepcopy, which keeps a memo of every object for the sake of
    shared and cyclic structure: parsed documents have no cycles, and sub-objects shared through YAML
    aliases are better copied apart anyway (upstream decodes every alias into a value of its own).
    Anything that is not plain data still goes through copy.deepcopy.
    """
    kind = type(value)
    if kind is dict:
        return {k: private_copy(v) for k, v in value.items()}
    if kind is list:
        return [private_copy(v) for v in value]
    if kind in _SCALARS:
        return value
    return copy.deepcopy(value)


def default_trainjob(trainjob: dict) -> dict:
    """A defaulted deep copy of the TrainJob (the input is not touched)."""
    out = private_copy(trainjob)
    apply_defaults(out, trainjob_defaults())
    return out


def default_runtime(runtime: dict) -> dict:
    """A defaulted deep copy of a TrainingRuntime / ClusterTrainingRuntime."""
    out = private_copy(runtime)
    apply_defaults(out, runtime_defaults())
    return out
