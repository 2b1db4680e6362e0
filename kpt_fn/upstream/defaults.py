"""Structural defaults as a tree: the `default:` values of a CRD's OpenAPI schema, and filling them in.

The API server defaults every object from its CRD's structural schema before anything else sees it;
raw YAML from Git has not been through it, so both the engine (kpt_fn.engine.defaults, on its private
copies) and the validator (kpt_fn.validation.cel, where a rule selects a defaulted field) fill the
same defaults. Structural defaulting fills a field only when it is absent (or null) and its parent
object is present; an explicitly written value, even "" or 0, is kept.

A bundle keeps the trees of the TrainJob, runtime and JobSet specs in crd_defaults.json
(scripts/generate.py defaults), so a run reads a few kilobytes instead of walking the schemas.
"""

from __future__ import annotations

from kpt_fn import openapi

ITEMS = "[]"  # key of the subtree that applies to every element of a list
VALUES = "{}"  # key of the subtree that applies to every value of a map (additionalProperties)
_CHILD_KEYS = {openapi.ITEMS: ITEMS, openapi.VALUES: VALUES}


# A defaulted field's node holds its value under this key, beside the defaults below it: no property
# is named "=".
DEFAULT = "="


def defaults_tree(schema) -> dict:
    """The `default:` values below an OpenAPI schema node, keyed by property (ITEMS: list items,
    VALUES: map values); a defaulted field's node holds its value under DEFAULT. Only paths that lead
    to a default are present. Plain JSON: a bundle's crd_defaults.json holds these trees as they are."""
    if not isinstance(schema, dict):
        return {}
    tree: dict = {}
    for kind, name, sub in openapi.children(schema):
        below = defaults_tree(sub)
        key = name if kind == openapi.PROPERTY else _CHILD_KEYS[kind]
        if kind == openapi.PROPERTY and "default" in sub:
            tree[key] = {DEFAULT: sub["default"], **below}
        elif below:
            tree[key] = below
    return tree


# The kinds crd_defaults.json holds the spec defaults of, with their apiVersion: the engine defaults
# TrainJobs and runtimes, kpt_fn.lifecycle the JobSets it renders (their created form).
CRD_DEFAULTS_KINDS = {"TrainJob": "trainer.kubeflow.org/v1alpha1", "TrainingRuntime": "trainer.kubeflow.org/v1alpha1",
                      "JobSet": "jobset.x-k8s.io/v1alpha2"}


def _fresh(value):
    """A default's value as a new top-level map or list (what copy.copy gives JSON data, without
    importing `copy` on every start-up): defaulting the value's own fields must not change the tree."""
    return value.copy() if isinstance(value, (dict, list)) else value


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
        if key == DEFAULT:  # the value of `obj` itself, which its parent filled
            continue
        value = obj.get(key)
        if value is None:
            if DEFAULT not in sub:
                continue
            value = obj[key] = _fresh(sub[DEFAULT])
        if ITEMS in sub:
            if isinstance(value, list):
                apply_defaults(value, sub[ITEMS])
        else:
            apply_defaults(value, sub)
