"""Offline validation of TrainJobs, runtimes and every generated object.

Public API (pure functions; nothing raises for bad input, everything is reported as Problems whose
`subject` is the checked object and whose `rule` is an id of kpt_fn.rules):

    check_object(obj, bundle) -> list[Problem]
        What the API server checks on create, for TrainJob, TrainingRuntime, ClusterTrainingRuntime
        (trainer.kubeflow.org/v1alpha1), JobSet (jobset.x-k8s.io/v1alpha2), PodGroup
        (scheduling.x-k8s.io/v1alpha1, scheduling.volcano.sh/v1beta1), ConfigMap and Secret (v1):
        ObjectMeta names/labels/annotations, the strict JSON Schema (the release bundle's schemas.json), list-type
        uniqueness, non-transition CEL rules, label syntax of embedded templates, ConfigMap/Secret
        keys. [] for other kinds. The object is validated as written; where the API server would
        fill a default first, the default counts (CEL, list-map keys, required fields), and a
        `null` field value is absent (the API server prunes it) unless the field is required.
    check_runtime_webhook(runtime, bundle) -> list[Problem]
        The Trainer runtime admission webhooks (replicas 1, ancestor container) and the
        deprecation warning for ClusterTrainingRuntimes (severity warning).
    check_jobset_webhook(jobset, bundle) -> list[Problem]
        The validating webhook's offline checks (name lengths, groupName, dependsOn, subdomain,
        managedBy, policies, VolumeClaimPolicies) of the JobSet release the Trainer release's
        bundle pairs with (v0.12.0 for v2.3.0, v0.11.1 for v2.2.1).
    check_job_templates(jobset, blame=None) -> list[Problem]
        Kubernetes 1.36's validation of the Jobs and Pods the JobSet controller creates from each
        replicated job (kpt_fn/validation/k8s); with a kpt_fn.blame.Blame, each problem points at
        the TrainJob / runtimePatch / runtime field the value came from.

The catalogue of every rule (`expand-trainjobs rules`) is kpt_fn.rules.rules(), which sits above
this package.

Messages: schema problems read like the API server's field errors without the path
(`Unsupported value: "X": supported values: "A", "B"`, `Required value`,
`Invalid value: "string": spec.x in body must be of type integer: "string"`, and an unknown field
with its whole path, as strict field validation words it: `unknown field "spec.trainer.numNode"`); CEL problems carry the rule's message (or the evaluated
messageExpression, or `failed rule: <rule>`); name and webhook problems carry upstream's detail
text. Paths are Kubernetes field paths, map keys in brackets: `metadata.labels[app/x]`.
"""

from __future__ import annotations

from kpt_fn.problems import Problem
from kpt_fn.validation import jobset_webhook as _jobset_webhook
from kpt_fn.validation import k8s as _k8s
from kpt_fn.validation import names as _names
from kpt_fn.validation import runtime_webhook as _runtime_webhook
from kpt_fn.validation import schema_check as _schema_check
from kpt_fn.validation import structural as _structural
from kpt_fn import upstream

__all__ = ["check_object", "check_runtime_webhook", "check_jobset_webhook", "check_job_templates", "Problem"]

# TrainJob names must also be RFC 1035 labels, but that is a CEL rule of the CRD, reported as such.
_KIND_CHECKS = {
    "ConfigMap": _names.check_configmap,
    "Secret": _names.check_secret,
}


def check_object(obj: dict, bundle: upstream.Bundle) -> list[Problem]:
    if not isinstance(obj, dict):
        return []
    entry = bundle.entry_for(obj)
    if entry is None:
        return []
    problems = _names.check_object_meta(obj, entry.namespaced)
    problems += _schema_check.check(obj, entry)
    problems += _structural.check(obj, entry)
    extra = _KIND_CHECKS.get(entry.kind) if entry.group == "" else None
    if extra is not None:
        problems += extra(obj)
    return problems


def check_runtime_webhook(runtime: dict, bundle: upstream.Bundle) -> list[Problem]:
    """`bundle`: the Trainer release whose webhook runs."""
    if not isinstance(runtime, dict):
        return []
    return _runtime_webhook.check(runtime, bundle)


def check_jobset_webhook(jobset: dict, bundle: upstream.Bundle) -> list[Problem]:
    """`bundle`: the Trainer release whose JobSet release's webhook runs ."""
    if not isinstance(jobset, dict) or jobset.get("kind") != "JobSet":
        return []
    return _jobset_webhook.check(jobset, frozenset(), bundle.jobset_release)


def check_job_templates(jobset: dict, blame=None) -> list[Problem]:
    if not isinstance(jobset, dict) or jobset.get("kind") != "JobSet":
        return []
    return _k8s.check(jobset, blame)
