"""Every rule the function applies (`expand-trainjobs rules`): what kpt_fn.validation checks, plus the
rules the engine, its plugin modules, the legacy conversion, the Kueue profile and the policy guardrails
declare in their `RULES` lists. It sits above all of them, so that none of them imports upwards."""

from __future__ import annotations

from kpt_fn.validation import jobset_webhook, k8s, names, runtime_webhook, schema_check, structural
from kpt_fn import upstream
from kpt_fn.problems import Rule

_TEMPLATE_KINDS = "TrainJob, TrainingRuntime, ClusterTrainingRuntime, JobSet"


def _rule(rule_id: str, family: str, applies_to: str, description: str) -> dict:
    return {"id": rule_id, "family": family, "applies_to": applies_to, "description": description}


def _entry(rule) -> dict:
    """A catalogue entry from a module's RULES row: a problems.Rule, or a dict of its fields (the shape
    the engine's and plugins' lists still have)."""
    if isinstance(rule, Rule):
        return rule._asdict()
    return {k: rule.get(k, "") for k in Rule._fields}


def _engine_rules(release: str) -> list[dict]:
    """What the engine declares: its own checks and every plugin's of the release (framework.rules),
    and the legacy conversions."""
    from kpt_fn import convert, engine, kueue, policy, rerun
    from kpt_fn.engine import framework
    from kpt_fn.validation import admitted

    return [*engine.RULES, *framework.rules(release), *convert.RULES, *kueue.RULES, *policy.RULES, *rerun.RULES,
            *admitted.RULES]


def rules(bundle: upstream.Bundle | None = None) -> list[dict]:
    bundle = bundle or upstream.bundle()
    entries = bundle.schema_entries
    out = []
    for entry in sorted(entries().values(), key=lambda e: (e.group, e.kind, e.api_version)):
        out.append(_rule(schema_check.rule_id(entry), "schema", entry.kind,
                         f"{entry.api_version} {entry.kind} matches the strict JSON Schema schemas/{entry.file}"))
    out.append(_rule(structural.LIST_TYPE_RULE, "schema", _TEMPLATE_KINDS,
                     "x-kubernetes-list-type map/set lists have unique keys/items"))
    out += [r._asdict() for r in names.RULES]
    seen = set()
    for entry in sorted(entries().values(), key=lambda e: (e.group, e.kind, e.api_version)):
        for cel_rule in structural.cel_rules(entry):
            if cel_rule.id in seen:
                continue
            seen.add(cel_rule.id)
            text = cel_rule.message.strip() or f"failed rule: {cel_rule.rule.strip()}"
            out.append(_rule(cel_rule.id, "cel", entry.kind,
                             f"{cel_rule.schema_path}: {cel_rule.rule.strip()} ({text})"))
    for rule_id, description in runtime_webhook.RULES:
        out.append(_rule(rule_id, "runtime-webhook", "TrainingRuntime, ClusterTrainingRuntime", description))
    for rule_id, description in jobset_webhook.RULES:
        out.append(_rule(rule_id, "jobset-webhook", "JobSet", description))
    for rule_id, description in k8s.RULES:
        out.append(_rule(rule_id, "k8s", "JobSet (its Jobs and Pods)", description))
    ids = {r["id"] for r in out}
    for r in _engine_rules(bundle.release):
        if r["id"] not in ids:
            ids.add(r["id"])
            out.append(_entry(r))
    return out
