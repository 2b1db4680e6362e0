"""A container's own restartPolicy and restartPolicyRules.

Kubernetes v1.36 pkg/apis/core/validation/validation.go validateContainerRestartPolicy (regular
containers, from validateContainers) and validateInitContainerRestartPolicy (init containers). The
ContainerRestartRules gate is beta and on by default since 1.35 (pkg/features/kube_features.go), so
a regular container may name Always, OnFailure or Never and rules that restart it on exit codes.
RestartAllContainersOnContainerExits was alpha (off) in 1.35 and its 1.36 state was not read from a
1.36 snapshot: the checks that depend on it (the RestartAllContainers action, rules on a restartable
init container) are not applied, so no value it may allow is refused.
"""

from __future__ import annotations

from kpt_fn.validation.fielderr import child, index
from kpt_fn.validation.k8s.findings import as_dict, as_list

RULE = "k8s/container-restart"

POLICIES = ("Always", "Never", "OnFailure")  # sets.List order
OPERATORS = ("In", "NotIn")
ACTIONS = ("Restart",)
GATED_ACTIONS = ("RestartAllContainers",)
MAX_RULES = 20
MAX_EXIT_CODES = 255


def _policy_and_rules(policy, rules: list, path: str, f) -> None:
    """validateContainerRestartPolicy."""
    if policy is None:
        if rules:
            f.required(RULE, child(path, "restartPolicy"), "must specify restartPolicy when restart rules are used")
    elif policy not in POLICIES:
        f.unsupported(RULE, child(path, "restartPolicy"), policy, POLICIES)
    if len(rules) > MAX_RULES:
        f.too_many(RULE, child(path, "restartPolicyRules"), len(rules), MAX_RULES)
    for i, rule in enumerate(rules):
        rule = as_dict(rule)
        where = index(child(path, "restartPolicyRules"), i)
        action = rule.get("action", "")
        if action not in ACTIONS and action not in GATED_ACTIONS:
            f.unsupported(RULE, child(where, "action"), action, ACTIONS)
        codes = rule.get("exitCodes")
        if isinstance(codes, dict):
            operator = codes.get("operator", "")
            if operator not in OPERATORS:
                f.unsupported(RULE, child(child(where, "exitCodes"), "operator"), operator, OPERATORS)
            values = as_list(codes.get("values"))
            if len(values) > MAX_EXIT_CODES:
                f.too_many(RULE, child(child(where, "exitCodes"), "values"), len(values), MAX_EXIT_CODES)
        else:
            f.required(RULE, child(where, "exitCodes"), "must be specified")


def check_container(c: dict, path: str, init: bool, f) -> None:
    policy, rules = c.get("restartPolicy"), as_list(c.get("restartPolicyRules"))
    if policy is not None and not isinstance(policy, str):
        return  # a type error, reported by the schema check
    if init:
        if policy is None:
            if rules:
                f.required(RULE, child(path, "restartPolicy"), "must specify restartPolicy when restart rules are used")
            return
        if policy == "Always":
            return  # rules here depend on RestartAllContainersOnContainerExits (see the module docstring)
    _policy_and_rules(policy, rules, path, f)


def check_pod(pod: dict, path: str, f) -> None:
    for field, init in (("initContainers", True), ("containers", False)):
        for i, c in enumerate(as_list(pod.get(field))):
            if isinstance(c, dict) and ("restartPolicy" in c or "restartPolicyRules" in c):
                check_container(c, index(child(path, field), i), init, f)
