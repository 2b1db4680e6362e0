"""CEL rule ids come from the rule's CEL expression and its place in the CRD, never from the message
text: every rule the generated schemas carry has a listed slug, and rewording a message keeps the id."""

from __future__ import annotations

import copy

from kpt_fn.validation import structural
from kpt_fn import upstream
from kpt_fn.upstream import schema as load


def entries():
    return upstream.bundle("v2.3.0").schema_entries()


def test_every_cel_rule_of_the_schemas_has_a_listed_slug():
    unlisted = {r.rule for e in entries().values() for r in structural.cel_rules(e) if r.rule not in structural._SLUGS}
    assert unlisted == set()


def test_a_reworded_message_keeps_the_rule_id():
    entry = entries()[("trainer.kubeflow.org/v1alpha1", "TrainingRuntime")]
    schema = copy.deepcopy(load(entry))
    before = {r.rule: r.id for r in structural.cel_rules(entry)}
    for rule in schema["properties"]["spec"]["properties"]["mlPolicy"]["x-kubernetes-validations"]:
        rule["message"] = "a different wording"
    node = structural.build_tree(schema, entry.kind)
    rules = node.prop("spec").prop("mlPolicy").rules
    assert rules and all(r.id == before[r.rule] for r in rules)
