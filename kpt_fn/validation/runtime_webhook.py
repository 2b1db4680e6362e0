"""The Trainer TrainingRuntime / ClusterTrainingRuntime admission webhooks of the run's Trainer release (upstream pkg/webhooks/trainingruntime_webhook.go and clustertrainingruntime_webhook.go, read at v2.3.0; v2.2.1's differ in the objectSelector only, below).

For every replicated job whose Job template carries the ancestor label with a known value, the job
must run exactly one replica (an absent `replicas` is the CRD default 1) and must have the container
the ancestor needs. A ClusterTrainingRuntime labelled `trainer.kubeflow.org/support: deprecated`
draws a warning.

Both webhooks carry an objectSelector (manifests/base/webhook/patch_validating.yaml: the label
`trainer.kubeflow.org/webhook-validation` NotIn [disabled]), and the release overlay puts that label
on every shipped runtime, so a runtime labelled `disabled` is not seen by these rules at all (nor
warned about). The API server's schema and CEL checks still apply to it, and the builders then do
what they do with any runtime (e.g. jobset/builder.go forces replicas 1 on ancestor jobs).

Trainer v2.2.1's webhooks have no objectSelector (its manifests/base/webhook/patch_validating.yaml
adds none; v2.3.0 added both), so there every runtime is checked, whatever its labels.
"""

from __future__ import annotations

from kpt_fn.problems import WARNING, Problem, Rule
from kpt_fn.resource import dig
from kpt_fn.apimachinery.field import child, index
from kpt_fn.trainer_names import ANCESTOR_LABEL

SUPPORT_LABEL = "trainer.kubeflow.org/support"
WEBHOOK_VALIDATION_LABEL = "trainer.kubeflow.org/webhook-validation"
DISABLED = "disabled"
DEPRECATED = "deprecated"
DEPRECATION_POLICY_URL = ("https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html"
                          "#runtime-deprecation-policy")
# ancestor label value -> the container that job must have
REQUIRED_CONTAINER = {
    "trainer": "node",
    "dataset-initializer": "dataset-initializer",
    "model-initializer": "model-initializer",
}
RUNTIME_KINDS = ("TrainingRuntime", "ClusterTrainingRuntime")

RULE_REPLICAS = "runtime-webhook/replicas"
RULE_CONTAINER = "runtime-webhook/ancestor-container"
RULE_DEPRECATED = "runtime-webhook/deprecated"
_RUNTIMES = "TrainingRuntime, ClusterTrainingRuntime"
# Runtimes labelled webhook-validation: disabled are skipped where the release's webhooks have an
# objectSelector (the runtime_webhook_object_selector switch: v2.3.0's manifests/base/webhook).
_SKIPPED = " (not for runtimes labelled trainer.kubeflow.org/webhook-validation: disabled)"
RULES = [
    Rule(rule, _RUNTIMES, description + suffix, behaviour=condition)
    for condition, suffix in (("runtime_webhook_object_selector", _SKIPPED), ("not runtime_webhook_object_selector", ""))
    for rule, description in (
        (RULE_REPLICAS, "replicated jobs labelled with a Trainer ancestor step must have replicas 1"),
        (RULE_CONTAINER, "replicated jobs labelled with a Trainer ancestor step must have its container "
                         "(trainer: node, dataset-initializer, model-initializer)"),
        (RULE_DEPRECATED, "warning for a ClusterTrainingRuntime labelled trainer.kubeflow.org/support: deprecated"),
    )
]


def check(runtime: dict, bundle) -> list[Problem]:
    """The runtime webhooks of `bundle`'s release on a runtime."""
    if runtime.get("kind") not in RUNTIME_KINDS:
        return []
    out: list[Problem] = []
    labels = dig(runtime, "metadata", "labels")
    if bundle.behaviour.runtime_webhook_object_selector and isinstance(labels, dict) \
            and labels.get(WEBHOOK_VALIDATION_LABEL) == DISABLED:
        return out
    if runtime.get("kind") == "ClusterTrainingRuntime" and isinstance(labels, dict) \
            and labels.get(SUPPORT_LABEL) == DEPRECATED:
        name = dig(runtime, "metadata", "name") or ""
        out.append(Problem(
            f'ClusterTrainingRuntime "{name}" is deprecated and will be removed in a future release of '
            f"Kubeflow Trainer. See runtime deprecation policy: {DEPRECATION_POLICY_URL}",
            f"metadata.labels[{SUPPORT_LABEL}]", severity=WARNING, subject=runtime, rule=RULE_DEPRECATED))

    rjobs = dig(runtime, "spec", "template", "spec", "replicatedJobs")
    base = "spec.template.spec.replicatedJobs"
    for i, rjob in enumerate(rjobs if isinstance(rjobs, list) else []):
        ancestor = dig(rjob, "template", "metadata", "labels", ANCESTOR_LABEL)
        if not isinstance(ancestor, str) or ancestor not in REQUIRED_CONTAINER:
            continue
        replicas = rjob.get("replicas", 1)
        if replicas is None:
            replicas = 1
        if replicas != 1 or isinstance(replicas, bool):
            out.append(Problem("always must be 1", child(index(base, i), "replicas"), subject=runtime,
                               rule=RULE_REPLICAS))
        containers = dig(rjob, "template", "spec", "template", "spec", "containers")
        wanted = REQUIRED_CONTAINER[ancestor]
        if not any(dig(c, "name") == wanted for c in (containers if isinstance(containers, list) else [])):
            out.append(Problem(f"must contain the required container for the ancestor: {ancestor}",
                               f"{index(base, i)}.template.spec.template.spec.containers", subject=runtime,
                               rule=RULE_CONTAINER))
    return out
