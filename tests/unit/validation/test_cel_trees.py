"""The precompiled CEL parse trees (a bundle's cel_trees.json; tests/behaviour/test_generated_artifacts_current.py keeps them
current): faithful to cel-python's parser, and enough for the common path to run without importing
celpy or lark."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kpt_fn import upstream
from kpt_fn.validation import cel, structural

from support.celpy_oracle import celpy_parsing, interpreter, lark_parse, literal, plain_tree  # noqa: F401 (a fixture)

REPO = Path(__file__).resolve().parents[3]


def _rules():
    """(text, schema) for every rule text and messageExpression the validator compiles."""
    seen = {}
    for entry in upstream.bundle("v2.3.0").schema_entries().values():
        for rule in structural.cel_rules(entry):
            seen.setdefault(rule.rule, rule.schema)
            if rule.message_expression:
                seen.setdefault(rule.message_expression, rule.schema)
    return sorted(seen.items())


RULES = _rules()


def test_every_schema_rule_is_precompiled():
    assert RULES
    assert set(upstream.bundle("v2.3.0").cel_trees()) == {text for text, _ in RULES}


def _shape(node):
    """A precompiled or lark tree as comparable plain data (tokens with their decoded literal)."""
    if isinstance(node, str):
        kind = node.type
        if kind in ("STRING_LIT", "MLSTRING_LIT", "BYTES_LIT"):
            return (kind, str(node), cel._literal(node) if isinstance(node, cel.Token) else literal(node))
        return (kind, str(node))
    return (str(node.data), [_shape(c) for c in node.children])


@pytest.mark.parametrize("text", [t for t, _ in RULES])
def test_precompiled_tree_equals_celpys_parse(text):
    assert _shape(cel.parse(text)) == _shape(lark_parse(text))


# Values that drive the CRDs' rules down their different branches (and into type errors).
VALUES = [
    None, 0, 1, 5, -1, 2.5, True, "", "a", "hf://x", "a/b", "node", "kueue.x-k8s.io/multikueue",
    "trainer.kubeflow.org/trainjob-controller", [], ["node"], ["a", "b"], [1], {},
    {"metadata": {"name": "abc"}}, {"metadata": {"name": "Abc"}}, {"metadata": {"name": "a" * 64}},
    {"metadata": {}}, {"metadata": {"name": 3}},
    {"torch": {}}, {"torch": {}, "mpi": {}}, {"jax": {}, "xgboost": {}, "flux": {}},
    {"replicatedJobs": [{"name": "a"}]},
    {"startupPolicy": {"startupPolicyOrder": "InOrder"}, "replicatedJobs": [{"name": "a", "dependsOn": []}]},
    {"startupPolicy": {"startupPolicyOrder": "AnyOrder"}, "replicatedJobs": [{"dependsOn": []}]},
    {"templates": []}, {"templates": [{"metadata": {"namespace": ""}}]},
    {"templates": [{"metadata": {"name": "a"}}, {"metadata": {"namespace": "n"}}]},
    {"lastUpdatedTime": "2024-01-01T00:00:00Z"},
    {"failurePolicy": {}, "successPolicy": {}}, {"restartPolicy": "Never", "maxRestarts": 3},
]


def _outcome(program, value):
    try:
        return ("value", program(value))
    except cel.CelError as exc:
        return ("error", str(exc))


@pytest.mark.parametrize("text, schema", RULES, ids=[t[:40] for t, _ in RULES])
def test_precompiled_and_celpy_trees_compile_to_the_same_program(text, schema):
    precompiled = cel.compile_rule(text, schema)
    assert not precompiled.compile_error
    from_celpy, _ = cel._Compiler().expr(cel._from_plain(plain_tree(text)), {"self": schema})
    interpreted = interpreter(text, schema)
    for value in VALUES:
        got = _outcome(precompiled.evaluate, value)
        assert got == _outcome(lambda v: from_celpy({"self": v}), value), value
        # Error texts differ between the interpreters, and on ill-typed values our compiler follows
        # cel-go's heterogeneous equality where celpy reports no overload; values of the schema's
        # types must evaluate alike.
        if got[0] == "value" and _fits(value, schema):
            assert got == _outcome(lambda v: interpreted({"self": v}), value), value


_TYPES = {"object": dict, "array": list, "string": str, "integer": int, "boolean": bool}


def _fits(value, schema) -> bool:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    expected = _TYPES.get(kind)
    if expected is None or not isinstance(value, expected) or isinstance(value, bool) != (expected is bool):
        return False
    if isinstance(value, list):
        return all(_fits(x, schema.get("items") or {}) for x in value)
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        return all(k in props and _fits(x, props[k]) for k, x in value.items())
    return True


def test_a_text_no_bundle_holds_is_a_compile_error():
    assert cel._precompiled("1 + 2 == 3") is None
    program = cel.compile_rule("1 + 2 == 3", None)
    assert "no precompiled parse tree" in program.compile_error


@pytest.mark.usefixtures("celpy_parsing")
def test_texts_of_the_tests_parse_with_celpy():
    assert cel.compile_rule("1 + 2 == 3", None).evaluate(None) is True
    broken = cel.compile_rule("self.(", None)
    assert broken.compile_error


def test_string_and_bytes_literals_decode_like_celpy():
    plain = {"data": "literal", "children": [{"type": "STRING_LIT", "value": "'a\\\\tb'", "string": "a\\tb"}]}
    assert cel._literal(cel._from_plain(plain).children[0]) == "a\\tb"
    plain = {"type": "BYTES_LIT", "value": "b'\\\\x00'", "bytes": "00"}
    assert cel._literal(cel._from_plain(plain)) == b"\x00"
    tree = lark_parse(r"'a\tb' + b'\x00'.string()")
    tokens = [t for t in _walk(tree) if isinstance(t, str)]
    assert [literal(t) for t in tokens if t.type.endswith("_LIT")] == ["a\tb", b"\x00"]


def _walk(node):
    yield node
    for c in getattr(node, "children", ()):
        yield from _walk(c)


def test_validating_every_kind_imports_neither_celpy_nor_lark():
    # The common path (every kind, every rule of the CRDs, failing and passing) needs no parser.
    script = """
import json, sys
from kpt_fn import validation
from kpt_fn import upstream
for (api, kind), entry in upstream.bundle("v2.3.0").schema_entries().items():
    for meta in ({"name": "ok", "namespace": "ns"}, {"name": "Bad_Name" * 10, "namespace": "ns"}):
        validation.check_object({"apiVersion": api, "kind": kind, "metadata": meta, "spec": {}}, upstream.bundle("v2.3.0"))
print(json.dumps(sorted(m for m in ("celpy", "lark") if m in sys.modules)))
"""
    out = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True, cwd=REPO)
    assert json.loads(out.stdout) == []
