"""Every rule the function applies (`expand-trainjobs rules`): the concatenation of the problems.Rule
records each checking module declares beside its checks (its `RULES`), plus the schema and CEL rules
read off the release's bundle. It sits above all of them, so that none of them imports upwards."""

from __future__ import annotations

from kpt_fn.validation import jobset_webhook, k8s, names, runtime_webhook, schema_check, structural
from kpt_fn import upstream
from kpt_fn.upstream.behaviour import switch_on
from kpt_fn.problems import Rule

_TEMPLATE_KINDS = "TrainJob, TrainingRuntime, ClusterTrainingRuntime, JobSet"


def _record(rule) -> Rule:
    # Every module declares problems.Rule records.
    if isinstance(rule, Rule):
        return rule
    raise TypeError(f"a RULES entry must be a problems.Rule, not {rule!r}")


def _bundle_rules(bundle: upstream.Bundle) -> list[Rule]:
    """The schema rules (one per schema of the bundle) and the CEL rules of the CRDs, each once."""
    entries = sorted(bundle.schema_entries().values(), key=lambda e: (e.group, e.kind, e.api_version))
    out = [Rule(schema_check.rule_id(e), e.kind,
                f"{e.api_version} {e.kind} matches the strict JSON Schema schemas/{e.file}") for e in entries]
    out.append(Rule(structural.LIST_TYPE_RULE, _TEMPLATE_KINDS,
                    "x-kubernetes-list-type map/set lists have unique keys/items"))
    out += names.RULES
    for entry in entries:
        for cel_rule in structural.cel_rules(entry):
            text = cel_rule.message.strip() or f"failed rule: {cel_rule.rule.strip()}"
            out.append(Rule(cel_rule.id, entry.kind, f"{cel_rule.schema_path}: {cel_rule.rule.strip()} ({text})"))
    return out


def _declared(bundle: upstream.Bundle) -> list[Rule]:
    """What the checking modules declare: the webhooks, the Kubernetes checks, the engine, the
    controller profile's note and every plugin (framework.rules), the conversions, Kueue, policy, reruns, admitted values, the admission
    policies; each record of a release switch (Rule.behaviour) only where the release's row has it."""
    from kpt_fn import apps, argocd, config, convert, engine, function, generated, intake, kustomize_names, orphans, output, policy, reposerver, rerun
    from kpt_fn import resolve, sources
    from kpt_fn.admission import check as admission
    from kpt_fn.engine import framework
    from kpt_fn.profiles import controller, kueue_names
    from kpt_fn.validation import admitted

    declared = [*runtime_webhook.RULES,
                *jobset_webhook.rules(bundle.jobset_release),
                *k8s.RULES,
                *engine.RULES, *controller.RULES, *framework.rules(), *convert.RULES, *kueue_names.RULES, *policy.RULES, *rerun.RULES,
                *admitted.RULES, *admission.RULES, *reposerver.RULES, *orphans.RULES,
                # the rules of reading, triage, resolution, placing and checking the output: every finding has an id
                *sources.RULES, *config.RULES, *intake.RULES, *resolve.RULES, *kustomize_names.RULES, *function.RULES,
                *output.RULES, *generated.RULES, *argocd.RULES, *apps.RULES]
    return [rule for rule in declared if switch_on(bundle.behaviour, _record(rule).behaviour)]


def rules(bundle: upstream.Bundle) -> list[dict]:
    """The catalogue of `bundle`'s release as plain data, each id once (its first declaration)."""
    out, seen = [], set()
    for rule in map(_record, [*_bundle_rules(bundle), *_declared(bundle)]):
        if rule.id not in seen:
            seen.add(rule.id)
            out.append(rule.as_dict())
    return out
