"""The Job spec of each replicated job, as the API server validates the Job the JobSet controller creates.

Kubernetes v1.36 pkg/apis/batch/validation/validation.go validateJobSpec (counts, completionMode,
backoffLimitPerIndex / maxFailedIndexes, podFailurePolicy, successPolicy, podReplacementPolicy, the
pod template's restartPolicy). Defaults applied first: completionMode Indexed (the JobSet webhook),
restartPolicy OnFailure (the JobSet webhook), parallelism 1 and, when neither count is set,
completions 1, an onPodConditions pattern's status True (the Job defaults).
"""

from __future__ import annotations

import re

from kpt_fn.apimachinery import validation as utilvalidation
from kpt_fn.apimachinery.field import OMIT, REQUIRED, body, child, go_quote, index
from kpt_fn.validation.k8s.findings import as_dict, as_int, as_list, as_str, valid_values

RULE = "k8s/job"
RESTART_RULE = "k8s/job-restart-policy"

NEGATIVE = "must be greater than or equal to 0"
MAX_PARALLELISM_INDEXED = 100_000
MAX_FAILED_INDEXES = 100_000
COMPLETIONS_SOFT_LIMIT = 100_000
PARALLELISM_HIGH_COMPLETIONS = 10_000
MAX_FAILED_HIGH_COMPLETIONS = 10_000
MAX_RULES = 20
MAX_EXIT_CODES = 255
MAX_MANAGED_BY = 63
MAX_SUCCEEDED_INDEXES = 64 * 1024
ACTIONS = ("Count", "FailIndex", "FailJob", "Ignore")
CONDITION_STATUSES = ("False", "True", "Unknown")
REPLACEMENT_POLICIES = ("Failed", "TerminatingOrFailed")
COMPLETION_MODES = ("NonIndexed", "Indexed")
_INT = r"[+-]?\d+"  # strconv.Atoi


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
    managed_by = spec.get("managedBy")
    if isinstance(managed_by, str):
        for etype, value, detail in utilvalidation.is_domain_prefixed_path(managed_by):
            f.add(RULE, child(path, "managedBy"), body(etype, value if etype != REQUIRED else OMIT, detail))
        if len(managed_by.encode()) > MAX_MANAGED_BY:
            f.too_long(RULE, child(path, "managedBy"), MAX_MANAGED_BY)
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
        if completions is not None and completions > COMPLETIONS_SOFT_LIMIT and spec.get("backoffLimitPerIndex") is not None:
            _high_completions(parallelism, max_failed, spec, path, f)
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
        if mode != "Indexed":
            f.invalid(RULE, child(path, "successPolicy"), success_policy, "requires indexed completion mode")
        else:
            _success_policy(success_policy, completions, child(path, "successPolicy"), f)
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


def _high_completions(parallelism, max_failed, spec, path, f) -> None:
    """Indexed Jobs above 100000 completions with a backoff limit per index."""
    if spec.get("maxFailedIndexes") is None:
        f.required(RULE, child(path, "maxFailedIndexes"), f"must be specified when completions is above {COMPLETIONS_SOFT_LIMIT}")
    tail = f"when completions are above {COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index"
    if parallelism is not None and parallelism > PARALLELISM_HIGH_COMPLETIONS:
        f.invalid(RULE, child(path, "parallelism"), parallelism, f"must be less than or equal to {PARALLELISM_HIGH_COMPLETIONS} {tail}")
    if max_failed is not None and max_failed > MAX_FAILED_HIGH_COMPLETIONS:
        f.invalid(RULE, child(path, "maxFailedIndexes"), max_failed, f"must be less than or equal to {MAX_FAILED_HIGH_COMPLETIONS} {tail}")


def dig_template(spec: dict):
    return as_dict(spec.get("template")).get("spec")


def _pod_failure_policy(policy: dict, spec: dict, pod: dict, path: str, f) -> None:
    rules_path = child(path, "rules")
    rules = as_list(policy.get("rules"))
    if len(rules) > MAX_RULES:
        f.too_many(RULE, rules_path, len(rules), MAX_RULES)
    containers = {as_str(as_dict(c).get("name")) for kind in ("containers", "initContainers") for c in as_list(pod.get(kind))}
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
    operator = requirement.get("operator")
    if not operator:
        f.required(RULE, child(path, "operator"), valid_values(("In", "NotIn")))
    elif operator not in ("In", "NotIn"):
        f.unsupported(RULE, child(path, "operator"), operator, ("In", "NotIn"))
    container = requirement.get("containerName")
    if container is not None and (not isinstance(container, str) or container not in containers):
        f.invalid(RULE, child(path, "containerName"), container,
                  "must be one of the container or initContainer names in the pod template")
    values = as_list(requirement.get("values"))
    values_path = child(path, "values")
    if not values:
        f.invalid(RULE, values_path, values, "at least one value is required")
    elif len(values) > MAX_EXIT_CODES:
        f.too_many(RULE, values_path, len(values), MAX_EXIT_CODES)
    ordered, seen = True, set()
    for i, value in enumerate(values):
        if as_int(value) is None:
            continue
        if operator == "In" and value == 0:
            f.invalid(RULE, index(values_path, i), value, "must not be 0 for the In operator")
        if value in seen:
            f.duplicate(RULE, index(values_path, i), value)
        seen.add(value)
        if i > 0 and as_int(values[i - 1]) is not None and values[i - 1] > value:
            ordered = False
    if not ordered:
        f.invalid(RULE, values_path, values, "must be ordered")


def _on_pod_conditions(conditions: list, path: str, f) -> None:
    if len(conditions) > MAX_RULES:
        f.too_many(RULE, path, len(conditions), MAX_RULES)
    for i, pattern in enumerate(conditions):
        pattern = as_dict(pattern)
        where = index(path, i)
        kind = as_str(pattern.get("type")) or ""
        for msg in utilvalidation.is_qualified_name(kind):
            f.invalid(RULE, child(where, "type"), kind, msg)
        # batch/v1 SetDefaults_PodFailurePolicyOnPodConditionsPattern (pkg/apis/batch/v1/defaults.go)
        # sets an empty status to True before validation, so upstream's Required never fires for a
        # Job sent through the API (JobSet's CRD requires only `type`)
        status = pattern.get("status")
        status = "True" if status in (None, "") else status
        if isinstance(status, str) and status not in CONDITION_STATUSES:
            f.unsupported(RULE, child(where, "status"), status, CONDITION_STATUSES)


def _interval(text: str, completions: int):
    """parseIndexInterval: (first, last) or an error text."""
    parts = text.split("-")
    if len(parts) > 2:
        return None, f"the fragment {go_quote(text)} violates the requirement that an index interval can have at most two parts separated by '-'"
    bounds = []
    for part in parts:
        # strconv.Atoi: digits with an optional sign, within int64 (a longer number is a range error,
        # reported the same way; the length test keeps Python from converting 65536 digits)
        if not re.fullmatch(_INT, part) or len(part) > 20 or not -2**63 <= int(part) < 2**63:
            return None, f"cannot convert string to integer for index: {go_quote(part)}"
        if int(part) >= completions:
            return None, f"too large index: {go_quote(part)}"
        bounds.append(int(part))
    if len(bounds) == 2 and bounds[0] >= bounds[1]:
        return None, f"non-increasing order, previous: {bounds[0]}, current: {bounds[1]}"
    return (bounds[0], bounds[-1]), None


def _indexes(text: str, completions: int) -> tuple[int, str | None]:
    """validateIndexesFormat: (how many indexes, error) of an interval list such as "1,3-5"."""
    if not text:
        return 0, None
    total, last = 0, None
    for part in text.split(","):
        bounds, error = _interval(part, completions)
        if error:
            return 0, error
        if last is not None and last >= bounds[0]:
            return 0, f"non-increasing order, previous: {last}, current: {bounds[0]}"
        total += bounds[1] - bounds[0] + 1
        last = bounds[1]
    return total, None


def _success_policy(policy: dict, completions: int | None, path: str, f) -> None:
    rules_path = child(path, "rules")
    rules = as_list(policy.get("rules"))
    if not rules:
        f.required(RULE, rules_path, "at least one rules must be specified when the successPolicy is specified")
    if len(rules) > MAX_RULES:
        f.too_many(RULE, rules_path, len(rules), MAX_RULES)
    completions = completions or 0  # an Indexed Job without completions is refused above
    for i, rule in enumerate(rules):
        rule = as_dict(rule)
        where = index(rules_path, i)
        indexes, count = rule.get("succeededIndexes"), as_int(rule.get("succeededCount"))
        if indexes is None and rule.get("succeededCount") is None:
            f.required(RULE, where, "at least one of succeededCount or succeededIndexes must be specified")
        total = 0
        if isinstance(indexes, str):
            if len(indexes) > MAX_SUCCEEDED_INDEXES:
                f.too_long(RULE, child(where, "succeededIndexes"), MAX_SUCCEEDED_INDEXES)
            total, error = _indexes(indexes, completions)
            if error:
                f.invalid(RULE, child(where, "succeededIndexes"), indexes, f"error parsing succeededIndexes: {error}")
        if count is not None:
            if count < 0:
                f.invalid(RULE, child(where, "succeededCount"), count, NEGATIVE)
            if count > completions:
                f.invalid(RULE, child(where, "succeededCount"), count,
                          f"must be less than or equal to {completions} (the number of specified completions)")
            if indexes is not None and count > total:
                f.invalid(RULE, child(where, "succeededCount"), count,
                          f"must be less than or equal to {total} (the number of indexes in the specified succeededIndexes field)")
