"""kpt_fn.upstream.defaults: the `default:` values of a CRD schema as a tree, kept as JSON in a bundle, and
filled in as the API server's structural defaulting fills them."""

from __future__ import annotations

import pytest
import yaml

from kpt_fn import upstream
from kpt_fn.upstream import defaults as default_trees

from support import upstream_data

# ../shared beside the checkout (the project's data), never a path of this machine.
CRDS = upstream_data.TRAINER / "manifests" / "base" / "crds"


# --- defaults ----------------------------------------------------------------------------------


def _crd_defaults(filename: str, crds=CRDS) -> set:
    schema = yaml.safe_load(open(crds / filename))["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    out = set()

    def walk(node, path):
        if not isinstance(node, dict):
            return
        if "default" in node:
            out.add((path, repr(node["default"])))
        for key, sub in (node.get("properties") or {}).items():
            walk(sub, f"{path}.{key}")
        if "items" in node:
            walk(node["items"], f"{path}[]")

    walk(schema, "")
    return out


def _tree_defaults(tree, path="") -> set:
    out = set()
    for key, sub in tree.items():
        if key == default_trees.DEFAULT:
            out.add((path, repr(sub)))
        elif default_trees.ITEMS in sub:
            out |= _tree_defaults(sub[default_trees.ITEMS], f"{path}.{key}[]")
        else:
            out |= _tree_defaults(sub, f"{path}.{key}")
    return out


@pytest.mark.parametrize("crd,kind", [
    ("trainer.kubeflow.org_trainingruntimes.yaml", "TrainingRuntime"),
    ("trainer.kubeflow.org_clustertrainingruntimes.yaml", "ClusterTrainingRuntime"),
    ("trainer.kubeflow.org_trainjobs.yaml", "TrainJob"),
])
@pytest.mark.upstream
def test_default_trees_read_from_the_schemas_are_the_crds_defaults(crd, kind):
    assert _tree_defaults(upstream.bundle("v2.3.0").defaults(kind)) == _crd_defaults(crd)


@pytest.mark.upstream
def test_the_jobset_default_tree_is_the_jobset_crds_spec_defaults():
    crd = _crd_defaults("jobset.x-k8s.io_jobsets.yaml", upstream_data.UPSTREAM / "jobset")
    assert _tree_defaults(upstream.bundle("v2.3.0").defaults("JobSet")) == {d for d in crd if d[0].startswith(".spec.")}


def test_schema_defaults_below_a_defaulted_field_and_in_maps_are_filled_too():
    schema = {"properties": {
        "policy": {"default": {}, "properties": {"mode": {"default": "hard"}, "tier": {"type": "integer"}}},
        "labels": {"additionalProperties": {"properties": {"weight": {"default": 1}}}},
        "steps": {"items": {"properties": {"retries": {"default": 0}}}}}}
    obj = {"labels": {"a": {}, "b": {"weight": 5}}, "steps": [{}, {"retries": None}]}
    default_trees.apply_defaults(obj, default_trees.defaults_tree(schema))
    assert obj == {"labels": {"a": {"weight": 1}, "b": {"weight": 5}}, "steps": [{"retries": 0}, {"retries": 0}],
                   "policy": {"mode": "hard"}}


def test_a_tree_is_plain_json():
    """What crd_defaults.json holds is the tree itself: a defaulted field's value under "=", beside the
    defaults below it."""
    schema = {"properties": {"a": {"default": {"x": 1}, "properties": {"b": {"default": "v"}}},
                             "l": {"items": {"properties": {"c": {"default": 0}}}},
                             "m": {"default": [], "items": {"properties": {"d": {"default": 2}}}}}}
    tree = default_trees.defaults_tree(schema)
    assert tree == {"a": {"=": {"x": 1}, "b": {"=": "v"}}, "l": {"[]": {"c": {"=": 0}}},
                    "m": {"=": [], "[]": {"d": {"=": 2}}}}
    obj = {"l": [{}], "m": [{}, {"d": 5}]}
    default_trees.apply_defaults(obj, tree)
    assert obj == {"a": {"x": 1, "b": "v"}, "l": [{"c": 0}], "m": [{"d": 2}, {"d": 5}]}
    assert tree["a"]["="] == {"x": 1}  # the tree's own value is not filled


def test_written_values_are_kept_and_each_default_is_a_copy():
    tree = default_trees.defaults_tree({"properties": {"s": {"default": ""}, "m": {"default": {}}, "n": {"default": 3}}})
    obj = {"s": "written", "n": 0}
    default_trees.apply_defaults(obj, tree)
    assert obj == {"s": "written", "n": 0, "m": {}}  # "" and 0 as written stay
    other = {}
    default_trees.apply_defaults(other, tree)
    assert other["m"] is not obj["m"]
    default_trees.apply_defaults("not an object", tree)  # nothing to fill


def test_a_schema_that_is_not_an_object_has_no_defaults():
    assert default_trees.defaults_tree(None) == {} and default_trees.defaults_tree({"type": "string"}) == {}
