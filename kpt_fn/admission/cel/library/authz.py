"""Kubernetes' authz library (k8s.io/apiserver@v0.36.3 pkg/cel/library/authz.go, enabled from 1.27 on,
with the selectors of 1.31): the builder functions (path, group, serviceAccount, resource,
subresource, namespace, name, fieldSelector, labelSelector) build a check as the API server does;
`check(verb)` asks the cluster's authorizer, which cannot be asked offline: its decision, and every
accessor of it (allowed, reason, errored, error), is an Unknown naming the check, which the policy
side reports per policy instead of passing or failing it. Costs: library/cost.go (a check 350,000,
so that two of them fit in the per-call limit).
"""

from __future__ import annotations

import math

from kpt_fn.admission.cel.runtime import no_overload
from kpt_fn.admission.cel.stdlib import Function
from kpt_fn.admission.cel.values import EvalError, Unknown
from kpt_fn.apimachinery import validation as names

AUTHORIZER = "kubernetes.authorization.Authorizer"
PATH_CHECK = "kubernetes.authorization.PathCheck"
GROUP_CHECK = "kubernetes.authorization.GroupCheck"
RESOURCE_CHECK = "kubernetes.authorization.ResourceCheck"
DECISION = "kubernetes.authorization.Decision"
CHECK_COST = 350_000


class Check:
    """An authorizer, or a check being built: `kind` is its CEL type, `fields` what it asks."""

    __slots__ = ("kind", "fields")

    def __init__(self, kind, fields):
        self.kind = kind
        self.fields = fields

    @property
    def CEL_TYPE(self):  # noqa: N802 (the name runtime.type_name reads)
        return self.kind

    def __eq__(self, other):
        return type(other) is Check and (other.kind, other.fields) == (self.kind, self.fields)

    __hash__ = None

    def describe(self) -> str:
        return ", ".join(f"{k}={v!r}" for k, v in self.fields.items() if v not in ("", None)) or "cluster scope"


def authorizer(service_account: str | None = None) -> Check:
    """The `authorizer` value of an activation: the request's principal (or a service account)."""
    return Check(AUTHORIZER, {"principal": service_account or "the requesting user"})


def resource_check(attributes: dict) -> Check:
    """`authorizer.requestResource`: a ResourceCheck of the request's resource (composition of
    activation.go: group, resource, subresource, namespace and name of the request)."""
    return Check(RESOURCE_CHECK, dict(attributes))


def _builder(name, takes, gives, key):
    def build(target, value):
        if type(target) is not Check or target.kind not in takes or type(value) is not str:
            raise no_overload(name)
        return Check(gives or target.kind, {**target.fields, key: value})
    return build


def path(target, value):
    if type(target) is not Check or target.kind != AUTHORIZER or type(value) is not str:
        raise no_overload("path")
    if value == "":
        raise EvalError("path must not be empty")
    return Check(PATH_CHECK, {**target.fields, "path": value})


def service_account(target, namespace, name):
    if type(target) is not Check or target.kind != AUTHORIZER or type(namespace) is not str or type(name) is not str:
        raise no_overload("serviceAccount")
    if names.is_dns1123_label(namespace):
        raise EvalError(f"invalid service account namespace: {namespace!r}: " + "; ".join(names.is_dns1123_label(namespace)))
    if names.is_dns1123_subdomain(name):
        raise EvalError(f"invalid service account name: {name!r}: " + "; ".join(names.is_dns1123_subdomain(name)))
    return Check(AUTHORIZER, {"principal": f"system:serviceaccount:{namespace}:{name}"})


def check(target, verb):
    if type(target) is not Check or target.kind not in (PATH_CHECK, RESOURCE_CHECK) or type(verb) is not str:
        raise no_overload("check")
    return Unknown(f"authorizer check (verb={verb!r}, {target.describe()}): the cluster's authorization "
                   "cannot be known offline")


def _decision(name):
    def accessor(decision):
        if type(decision) is Unknown:
            return decision
        raise no_overload(name)
    return accessor


def _cost(n):
    return lambda args, result: n


def _selector_cost(args, result):
    """library/cost.go selectorCostEstimate: a list, the selector's parse, and a list and a struct per
    requirement, at one requirement per two characters."""
    length = len(args[1]) if len(args) > 1 and type(args[1]) is str else 0
    return 10 + math.ceil(length * 0.1) + math.ceil(length * 0.5) * 50


FUNCTIONS = [
    Function("path", [f"{AUTHORIZER}.path(string) -> {PATH_CHECK}"], path, _cost(1)),
    Function("group", [f"{AUTHORIZER}.group(string) -> {GROUP_CHECK}"],
             _builder("group", (AUTHORIZER,), GROUP_CHECK, "group"), _cost(1)),
    Function("serviceAccount", [f"{AUTHORIZER}.serviceAccount(string, string) -> {AUTHORIZER}"], service_account,
             _cost(1)),
    Function("resource", [f"{GROUP_CHECK}.resource(string) -> {RESOURCE_CHECK}"],
             _builder("resource", (GROUP_CHECK,), RESOURCE_CHECK, "resource"), _cost(1)),
    *(Function(field, [f"{RESOURCE_CHECK}.{field}(string) -> {RESOURCE_CHECK}"],
               _builder(field, (RESOURCE_CHECK,), None, field), _cost(1))
      for field in ("subresource", "namespace", "name")),
    *(Function(field, [f"{RESOURCE_CHECK}.{field}(string) -> {RESOURCE_CHECK}"],
               _builder(field, (RESOURCE_CHECK,), None, field), _selector_cost)
      for field in ("fieldSelector", "labelSelector")),
    Function("check", [f"{PATH_CHECK}.check(string) -> {DECISION}", f"{RESOURCE_CHECK}.check(string) -> {DECISION}"],
             check, _cost(CHECK_COST)),
    Function("allowed", [f"{DECISION}.allowed() -> bool"], _decision("allowed"), _cost(1)),
    Function("reason", [f"{DECISION}.reason() -> string"], _decision("reason"), _cost(1)),
    Function("errored", [f"{DECISION}.errored() -> bool"], _decision("errored"), _cost(1)),
    Function("error", [f"{DECISION}.error() -> string"], _decision("error"), _cost(1)),
]
