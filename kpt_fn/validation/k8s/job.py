"""The Job spec of each replicated job, as the API server validates the Job the JobSet controller creates.

Kubernetes v1.36 pkg/apis/batch/validation/validation.go validateJobSpec (counts, completionMode,
backoffLimitPerIndex / maxFailedIndexes, podFailurePolicy, successPolicy, podReplacementPolicy, the
pod template's restartPolicy). Defaults applied first: completionMode Indexed (the JobSet webhook),
restartPolicy OnFailure (the JobSet webhook), parallelism 1 and, when neither count is set,
completions 1 (the Job defaults).
"""

from __future__ import annotations

import re

from kpt_fn.validation import names
from kpt_fn.validation.fielderr import OMIT, child, index
from kpt_fn.validation.k8s.findings import as_dict, as_int, as_list, as_str, valid_values

RULE = "k8s/job"
RESTART_RULE = "k8s/job-restart-policy"

NEGATIVE = "must be greater than or equal to 0"
MAX_PARALLELISM_INDEXED = 100_000
MAX_FAILED_INDEXES = 100_000
MAX_RULES = 20
MAX_EXIT_CODES = 255
ACTIONS = ("Count", "FailIndex", "FailJob", "Ignore")
CONDITION_STATUSES = ("False", "True", "Unknown")
REPLACEMENT_POLICIES = ("Failed", "TerminatingOrFailed")
COMPLETION_MODES = ("NonIndexed", "Indexed")
_INTERVAL = re.compile(r"(\d+)(?:-(\d+))?")


def check_job_spec(spec: dict, path: str, f) -> None:
    for name in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit",
                 "ttlSecondsAfterFinished", "backoffLimitPerIndex", "maxFailedIndexes"):
        value = as_int(spec.get(name))
        if value is not None and value < 0:
            f.invalid(RULE, child(path, name), value, NEGATIVE)
    parallelism, completions = as_int(spec.get("parallelism")), as_int(spec.get("completions"))
    per_index, max_failed = as_int(spec.get("backoffLimitPerIndex")), as_int(spec.get("maxFailedIndexes"))
    if spec.get("maxFailedIndexes") is not None and spec.get("backoffLimitPerIndex") is None:
        f.required(RULE, child(path, "backoffLimitPerIndex"), "when maxFailedIndexes is specified")
    mode = spec.get("completionMode") or "Indexed"
    if mode not in COMPLETION_MODES:
        f.unsupported(RULE, child(path, "completionMode"), mode, COMPLETION_MODES)
    if mode == "Indexed":
        if spec.get("completions") is None and spec.get("parallelism") is not None:
            f.required(RULE, child(path, "completions"), "when completion mode is Indexed")
        if parallelism is not None and parallelism > MAX_PARALLELISM_INDEXED:
            f.invalid(RULE, child(path, "parallelism"), parallelism,
                      f"must be less than or equal to {MAX_PARALLELISM_INDEXED} when completion mode is Indexed")
        if completions is not None and max_failed is not None and max_failed > completions:
            f.invalid(RULE, child(path, "maxFailedIndexes"), max_failed, "must be less than or equal to completions")
        if max_failed is not None and max_failed > MAX_FAILED_INDEXES:
            f.invalid(RULE, child(path, "maxFailedIndexes"), max_failed, f"must be less than or equal to {MAX_FAILED_INDEXES}")
    else:
        if per_index is not None:
            f.invalid(RULE, child(path, "backoffLimitPerIndex"), per_index, "requires indexed completion mode")
        if max_failed is not None:
            f.invalid(RULE, child(path, "maxFailedIndexes"), max_failed, "requires indexed completion mode")
    pod = as_dict(dig_template(spec))
    failure_policy = spec.get("podFailurePolicy")
    if isinstance(failure_policy, dict):
        _pod_failure_policy(failure_policy, spec, pod, child(path, "podFailurePolicy"), f)
    success_policy = spec.get("successPolicy")
    if isinstance(success_policy, dict):
        _success_policy(success_policy, mode, completions, child(path, "successPolicy"), f)
    replacement = spec.get("podReplacementPolicy")
    if isinstance(replacement, str):
        allowed = ("Failed",) if isinstance(failure_policy, dict) else REPLACEMENT_POLICIES
        if replacement not in allowed:
            f.unsupported(RULE, child(path, "podReplacementPolicy"), replacement, allowed)


def check_restart_policy(spec: dict, path: str, f) -> None:
    """After the pod template's own checks, as upstream orders them."""
    pod = as_dict(dig_template(spec))
    failure_policy = spec.get("podFailurePolicy")
    restart = pod.get("restartPolicy") or "OnFailure"  # the JobSet webhook's default
    where = child(path, "template.spec.restartPolicy")
    if restart == "Always":
        f.required(RESTART_RULE, where, 'valid values: "OnFailure", "Never"')
    elif restart not in ("OnFailure", "Never"):
        f.unsupported(RESTART_RULE, where, restart, ("OnFailure", "Never"))
    elif isinstance(failure_policy, dict) and restart != "Never":
        f.invalid(RESTART_RULE, where, restart, 'only "Never" is supported when podFailurePolicy is specified')


def dig_template(spec: dict):
    return as_dict(spec.get("template")).get("spec")


def _pod_failure_policy(policy: dict, spec: dict, pod: dict, path: str, f) -> None:
    rules_path = child(path, "rules")
    rules = as_list(policy.get("rules"))
    if len(rules) > MAX_RULES:
        f.too_many(RULE, rules_path, len(rules), MAX_RULES)
    containers = {as_dict(c).get("name") for kind in ("containers", "initContainers") for c in as_list(pod.get(kind))}
    for i, rule in enumerate(rules):
        rule = as_dict(rule)
        where = index(rules_path, i)
        action = rule.get("action")
        if not action:
            f.required(RULE, child(where, "action"), valid_values(ACTIONS))
        elif action == "FailIndex":
            if spec.get("backoffLimitPerIndex") is None:
                f.invalid(RULE, child(where, "action"), action, "requires the backoffLimitPerIndex to be set")
        elif action not in ACTIONS:
            f.unsupported(RULE, child(where, "action"), action, ACTIONS)
        exit_codes, conditions = rule.get("onExitCodes"), as_list(rule.get("onPodConditions"))
        if isinstance(exit_codes, dict):
            _on_exit_codes(exit_codes, containers, child(where, "onExitCodes"), f)
        if conditions:
            _on_pod_conditions(conditions, child(where, "onPodConditions"), f)
        if exit_codes is not None and conditions:
            f.invalid(RULE, where, OMIT, "specifying both OnExitCodes and OnPodConditions is not supported")
        if exit_codes is None and not conditions:
            f.invalid(RULE, where, OMIT, "specifying one of OnExitCodes and OnPodConditions is required")


def _on_exit_codes(requirement: dict, containers: set, path: str, f) -> None:
    container = requirement.get("containerName")
    if container is not None and container not in containers:
        f.invalid(RULE, child(path, "containerName"), container,
                  "must be one of the container or initContainer names in the pod template")
    operator = requirement.get("operator")
    if operator not in ("In", "NotIn"):
        f.unsupported(RULE, child(path, "operator"), operator, ("In", "NotIn"))
    values = as_list(requirement.get("values"))
    values_path = child(path, "values")
    if not values or len(values) > MAX_EXIT_CODES:
        f.invalid(RULE, values_path, values, f"at least one value is required, and at most {MAX_EXIT_CODES} are allowed")
        return
    previous = None
    for i, value in enumerate(values):
        if as_int(value) is None:
            continue
        if value == 0 and operator == "In":
            f.invalid(RULE, index(values_path, i), value, "must not be 0 for the In operator")
        if previous is not None:
            if previous == value:
                f.duplicate(RULE, index(values_path, i), value)
            elif previous > value:
                f.invalid(RULE, index(values_path, i), value, "must be ordered")
        previous = value


def _on_pod_conditions(conditions: list, path: str, f) -> None:
    if len(conditions) > MAX_RULES:
        f.too_many(RULE, path, len(conditions), MAX_RULES)
    for i, pattern in enumerate(conditions):
        pattern = as_dict(pattern)
        where = index(path, i)
        status = pattern.get("status")
        if not status:
            f.required(RULE, child(where, "status"), valid_values(CONDITION_STATUSES))
        elif status not in CONDITION_STATUSES:
            f.unsupported(RULE, child(where, "status"), status, CONDITION_STATUSES)
        f.named(RULE, child(where, "type"), as_str(pattern.get("type")), names.is_qualified_name)


def _indexes(text: str, completions: int | None) -> tuple[int | None, str | None]:
    """(how many indexes, error) of a succeededIndexes interval list such as "1,3-5"."""
    total, last = 0, -1
    for part in text.split(","):
        m = _INTERVAL.fullmatch(part)
        if not m:
            return None, f"cannot parse integer index: {part!r}"
        first = int(m.group(1))
        end = int(m.group(2)) if m.group(2) is not None else first
        if end < first:
            return None, f"non-increasing order, previous: {first}, current: {end}"
        if first <= last:
            return None, f"non-increasing order, previous: {last}, current: {first}"
        if completions is not None and end >= completions:
            return None, f"too large index: {end}"
        total += end - first + 1
        last = end
    return total, None


def _success_policy(policy: dict, mode: str, completions: int | None, path: str, f) -> None:
    if mode != "Indexed":
        f.invalid(RULE, child(path.rsplit(".", 1)[0], "completionMode"), mode, "requires indexed completion mode")
    rules_path = child(path, "rules")
    rules = as_list(policy.get("rules"))
    if not rules:
        f.required(RULE, rules_path, "at least one rules must be specified when the successPolicy is specified")
    if len(rules) > MAX_RULES:
        f.too_many(RULE, rules_path, len(rules), MAX_RULES)
    for i, rule in enumerate(rules):
        rule = as_dict(rule)
        where = index(rules_path, i)
        indexes, count = rule.get("succeededIndexes"), as_int(rule.get("succeededCount"))
        if indexes is None and rule.get("succeededCount") is None:
            f.required(RULE, where, "at least one of succeededCount or succeededIndexes must be specified")
        total = None
        if isinstance(indexes, str):
            total, error = _indexes(indexes, completions)
            if error:
                f.invalid(RULE, child(where, "succeededIndexes"), indexes, f"error parsing succeededIndexes: {error}")
        if count is not None:
            if count < 0:
                f.invalid(RULE, child(where, "succeededCount"), count, NEGATIVE)
            if completions is not None and count > completions:
                f.invalid(RULE, child(where, "succeededCount"), count,
                          f"must be less than or equal to {completions} (the number of specified completions)")
            if total is not None and count > total:
                f.invalid(RULE, child(where, "succeededCount"), count,
                          f"must be less than or equal to {total} (the number of indexes in the specified succeededIndexes field)")
