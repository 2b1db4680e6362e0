"""The server-side-apply emulation against structured-merge-diff's tables and the JobSet CRD.

Cases transcribed from sigs.k8s.io/structured-merge-diff v6.4.2 `merge/multiple_appliers_test.go`
(TestMultipleAppliersSet, testMultipleAppliersFieldUnsetting; names as upstream's), on upstream's
schemas there: `list` a list map keyed by `name`, `struct` a granular struct.
"""

from __future__ import annotations


import pytest
from support import upstream_data
import yaml

from lifecycle import ssa

ASSOCIATIVE = {"list": ("name",)}


def _run(ops):
    managed, obj = ssa.Managed(), {}
    for op, manager, config in ops:
        if op == "apply":
            obj = ssa.apply(obj, config, manager, managed, types=ASSOCIATIVE)
        else:
            obj = ssa.update(obj, config, manager, managed, types=ASSOCIATIVE)
    return obj, managed


def _names(*names):
    return {"list": [{"name": n} for n in names]}


def test_remove_one():
    obj, _ = _run([("apply", "apply-one", _names("a", "b")), ("apply", "apply-two", _names("c")),
                   ("apply", "apply-one", _names("a"))])
    assert obj == _names("a", "c")


def test_remove_one_keep_one():
    obj, _ = _run([("apply", "apply-one", _names("a", "b", "c")), ("apply", "apply-two", _names("c", "d")),
                   ("apply", "apply-one", _names("a"))])
    assert obj == _names("a", "c", "d")


def test_same_value_no_conflict():
    item = {"list": [{"name": "a", "value": 0}]}
    obj, managed = _run([("apply", "apply-one", item), ("apply", "apply-two", item)])
    assert obj == item
    assert managed.owners(("list", (("name", "a"),), "value")) == [("apply-one", "Apply"), ("apply-two", "Apply")]


def test_change_value_yes_conflict():
    with pytest.raises(ssa.ApplyConflict) as err:
        _run([("apply", "apply-one", {"list": [{"name": "a", "value": 0}]}),
              ("apply", "apply-two", {"list": [{"name": "a", "value": 1}]})])
    assert err.value.fields == [("list.(('name', 'a'),).value", "apply-one")]


def test_unset_scalar_sole_owner():
    obj, _ = _run([("apply", "apply-one", {"struct": {"name": "a", "scalarField": "a"}}),
                   ("apply", "apply-one", {"struct": {"name": "a"}})])
    assert obj == {"struct": {"name": "a"}}


def test_unset_scalar_shared_with_applier():
    obj, _ = _run([("apply", "apply-one", {"struct": {"name": "a", "scalarField": "a"}}),
                   ("apply", "apply-two", {"struct": {"scalarField": "a"}}),
                   ("apply", "apply-one", {"struct": {"name": "a"}})])
    assert obj == {"struct": {"name": "a", "scalarField": "a"}}


def test_unset_scalar_shared_with_updater():
    obj, _ = _run([("update", "updater", {"struct": {"name": "a", "scalarField": "a"}}),
                   ("apply", "applier", {"struct": {"name": "a", "scalarField": "a"}}),
                   ("apply", "applier", {"struct": {"name": "a"}})])
    assert obj == {"struct": {"name": "a", "scalarField": "a"}}


def test_updater_claims_field():
    obj, managed = _run([("apply", "applier", {"struct": {"name": "a", "scalarField": "a"}}),
                         ("update", "updater", {"struct": {"name": "a", "scalarField": "b"}})])
    assert obj == {"struct": {"name": "a", "scalarField": "b"}}
    assert managed.sets[("applier", "Apply")] == {("struct", "name")}
    assert managed.sets[("updater", "Update")] == {("struct", "scalarField")}


def test_forced_apply_takes_a_field_over():
    managed = ssa.Managed()
    obj = ssa.apply({}, {"struct": {"f": "a"}}, "applier", managed, types=ASSOCIATIVE)
    obj = ssa.update(obj, {"struct": {"f": "b"}}, "updater", managed, types=ASSOCIATIVE)
    obj = ssa.apply(obj, {"struct": {"f": "a"}}, "applier", managed, force=True, types=ASSOCIATIVE)
    assert obj == {"struct": {"f": "a"}} and managed.owners(("struct", "f")) == [("applier", "Apply")]


CRD = upstream_data.UPSTREAM / "jobset" / "jobset.x-k8s.io_jobsets.yaml"


@pytest.mark.upstream
def test_the_list_types_are_the_jobset_crds():
    schema = yaml.safe_load(CRD.read_text())["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    for path, kind in ssa.LIST_TYPES.items():
        node = schema
        for part in path.split("."):
            name = part[:-2] if part.endswith("[]") else part
            node = node["properties"][name]
            if part.endswith("[]"):
                node = node["items"]
        if kind == "atomic":
            assert "atomic" in (node.get("x-kubernetes-list-type"), node.get("x-kubernetes-map-type")), path
        else:
            assert node.get("x-kubernetes-list-type") == "map", path
            assert tuple(node["x-kubernetes-list-map-keys"]) == kind, path
