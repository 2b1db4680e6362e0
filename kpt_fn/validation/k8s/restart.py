"""A container's own restartPolicy and restartPolicyRules.

Kubernetes v1.36 pkg/apis/core/validation/validation.go validateContainerRestartPolicy (regular
containers, from validateContainers) and validateInitContainerRestartPolicy (init containers). The
ContainerRestartRules gate is beta and on by default since 1.35 (pkg/features/kube_features.go), so
a regular container may name Always, OnFailure or Never and rules that restart it on exit codes.
RestartAllContainersOnContainerExits is beta and on in 1.36 (kube_features.go of a snapshot with 1.37
entries, AIAgentSandox/kubernetes@db1f817b): the RestartAllContainers action is allowed, and a
restartable init container's rules are validated like a regular container's.
"""

from __future__ import annotations

from kpt_fn.apimachinery.field import child, index
from kpt_fn.validation.k8s.findings import as_dict, as_list

RULE = "k8s/container-restart"

POLICIES = ("Always", "Never", "OnFailure")  # sets.List order
OPERATORS = ("In", "NotIn")
ACTIONS = ("Restart", "RestartAllContainers")  # supportedContainerRestartRuleActionsWithRestartAllContainers
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
        if action not in ACTIONS:
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
        # validateInitContainerRestartPolicy with AllowRestartAllContainers: Always is validated as a
        # regular container's policy too, its rules included
    _policy_and_rules(policy, rules, path, f)


def check_pod(pod: dict, path: str, f) -> None:
    for field, init in (("initContainers", True), ("containers", False)):
        for i, c in enumerate(as_list(pod.get(field))):
            if isinstance(c, dict) and ("restartPolicy" in c or "restartPolicyRules" in c):
                check_container(c, index(child(path, field), i), init, f)
