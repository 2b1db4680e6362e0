"""kpt_fn.validation.structural: what the API server checks on a custom resource besides its JSON Schema
(list-type uniqueness, CEL rules, embedded metadata), on a toy schema; the CRDs' own rules are tested
in tests/unit/validation/test_cel.py."""

from __future__ import annotations

import pytest

from kpt_fn import upstream
from kpt_fn.validation import structural as s

SCHEMA = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
    "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
              "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}},
    "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
    "count": {"type": "integer", "x-kubernetes-validations": [{"rule": "self >= 1", "message": "must be at least 1"}]},
    # Rules of the shipped CRDs only: their parse trees are generated (scripts/generate.py cel).
    "window": {"type": "object", "properties": {"lastUpdatedTime": {"type": "string"}},
               "x-kubernetes-validations": [{"rule": "has(self.lastUpdatedTime)", "message": "needs it",
                                             "fieldPath": ".lastUpdatedTime"},
                                            {"rule": "self == oldSelf", "message": "immutable"}]},
    "plain": {"type": "string"},
}}}}


@pytest.fixture(scope="module")
def root():
    return s.build_tree(SCHEMA, "Toy")


def found(obj, root):
    return [(p.path, p.message, p.rule) for p in s.check_tree(obj, root)]


def test_cel_rules_are_the_schemas_non_transition_rules_with_stable_ids():
    rules = s.cel_rules_of(SCHEMA, "Toy")
    assert [r.rule for r in rules] == ["self >= 1", "has(self.lastUpdatedTime)"]  # self == oldSelf needs an old object
    assert rules[0].id == "cel/toy/spec.count-min-1"


def test_a_valid_object_has_no_problem(root):
    assert found({"spec": {"ports": [{"name": "a"}, {"name": "b"}], "tags": ["x", "y"], "count": 1,
                           "window": {"lastUpdatedTime": "t"}, "plain": "p"}}, root) == []


def test_the_second_occurrence_of_a_key_is_reported_once(root):
    obj = {"spec": {"ports": [{"name": "a", "port": 1}, {"name": "a", "port": 2}, {"name": "a"}], "tags": ["x", "y", "x", "x"]}}
    assert found(obj, root) == [
        ("spec.ports[1]", 'Duplicate value: {"name":"a"}', s.LIST_TYPE_RULE),
        ("spec.tags[2]", 'Duplicate value: "x"', s.LIST_TYPE_RULE),
    ]


def test_set_items_keep_go_identity(root):
    assert found({"spec": {"tags": [1, 1.5, True, "1"]}}, root) == []  # distinct values to Go


def test_a_map_list_item_must_be_an_object(root):
    assert found({"spec": {"ports": [1]}}, root) == [
        ("spec.ports[0]", "Invalid value: 1: must be an object for an array of list-type map", s.LIST_TYPE_RULE)]


def test_cel_failures_use_the_message_and_the_field_path(root):
    assert found({"spec": {"count": 0, "window": {}}}, root) == [
        ("spec.count", "must be at least 1", "cel/toy/spec.count-min-1"),
        ("spec.window.lastUpdatedTime", "needs it", s.cel_rules_of(SCHEMA, "Toy")[1].id),
    ]


def test_a_value_of_the_wrong_type_is_left_to_the_schema_check(root):
    assert found({"spec": {"count": "x", "tags": "x", "ports": None}}, root) == []


def test_check_reads_the_tree_of_a_bundle_entry():
    from kpt_fn import upstream

    entry = upstream.bundle("v2.3.0").schema_entries()[("trainer.kubeflow.org/v1alpha1", "TrainJob")]
    assert s.tree(entry) is s.tree(entry)  # built once
    tj = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "Bad_Name"},
          "spec": {"runtimeRef": {"name": "rt"}}}
    assert [p.path for p in s.check(tj, entry)] == ["metadata.name"]


def test_the_tree_grows_along_what_objects_reach():
    root = s.build_tree(SCHEMA, "Toy")
    assert root.props == {}  # nothing made before an object is checked
    s.check_tree({"spec": {"count": 1, "plain": "p"}}, root)
    spec = root.props["spec"]
    # has_props asked the memo about the properties in order up to the first that carries checks
    # (ports) and made no node of them; the walk made the object's own: ports, tags and window are not made
    assert set(spec.props) == {"count", "plain"} and spec.props["plain"] is None and spec.has_props
    # listing the rules grows the whole tree, and finds what a tree made up front found
    assert [r.rule for r in s.cel_rules_of(SCHEMA, "Toy")] == ["self >= 1", "has(self.lastUpdatedTime)"]


def _grown(node, path, out):
    """Every node of a tree, grown whole (what listing the rules does)."""
    if node is None:
        return out
    out[path] = (tuple(r.rule for r in node.rules), node.list_type, node.embedded_meta)
    for name in node.schema.get("properties") or {}:
        _grown(node.prop(name), f"{path}.{name}", out)
    _grown(node.items, f"{path}[]", out)
    _grown(node.additional, f"{path}[*]", out)
    return out


def _oracle(schema, path, out, root=True):
    """The nodes a tree must hold, the plain way: a node is kept when it, or any node below it, has a
    create-time CEL rule, a map or set list type, or is embedded object metadata."""
    t = schema.get("type")
    rules = tuple(r["rule"] for r in schema.get("x-kubernetes-validations") or () if "oldSelf" not in r["rule"])
    lt = schema.get("x-kubernetes-list-type") if t == "array" else None
    lt = lt if lt in ("map", "set") else None
    props = schema.get("properties") or {}
    meta = not root and path.endswith("metadata") and "labels" in props and "annotations" in props
    below = {}
    for name, sub in props.items():
        if not (root and name == "metadata"):
            _oracle(sub, f"{path}.{name}", below, root=False)
    if t == "array" and isinstance(schema.get("items"), dict):
        _oracle(schema["items"], f"{path}[]", below, root=False)
    if isinstance(schema.get("additionalProperties"), dict):
        _oracle(schema["additionalProperties"], f"{path}[*]", below, root=False)
    if root or rules or lt or meta or below:
        out[path] = (rules, lt, meta)
        out.update(below)
    return out


@pytest.mark.parametrize("release", ["v2.2.1", "v2.3.0"])
def test_a_grown_tree_holds_exactly_the_nodes_that_carry_checks(release):
    from kpt_fn import upstream

    bundle = upstream.bundle(release)
    for entry in bundle.schema_entries().values():
        schema = bundle.schema(entry)
        assert _grown(s.build_tree(schema, entry.kind), "", {}) == _oracle(schema, "", {}), entry.kind


@pytest.mark.parametrize("release", ["v2.2.1", "v2.3.0"])
def test_the_trees_of_a_release_share_their_answers_and_programs(release):
    """The bundle shares schema subtrees among kinds: the trees of a release share the memo of which
    nodes carry checks (and still hold exactly those nodes), and a rule on a shared node is compiled once."""
    from kpt_fn import upstream
    from kpt_fn.validation import cel

    bundle = upstream.bundle(release)
    entries = bundle.schema_entries()
    for entry in entries.values():
        assert _grown(s.tree(entry), "", {}) == _oracle(bundle.schema(entry), "", {}), entry.kind
    runtime = s.cel_rules(entries[("trainer.kubeflow.org/v1alpha1", "TrainingRuntime")])
    cluster = s.cel_rules(entries[("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime")])
    shared = [(a, b) for a in runtime for b in cluster if a.rule == b.rule and a.schema is b.schema]
    assert shared and all(a.id != b.id and a.program is b.program for a, b in shared)
    assert cel.parse(shared[0][0].rule) is cel.parse(shared[0][0].rule)  # a text is parsed once
