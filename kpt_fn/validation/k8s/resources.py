"""Resource requirements and quantities of containers, pod-level resources and overhead.

Kubernetes v1.36 pkg/apis/core/validation/validation.go validateResourceRequirements,
validateContainerResourceName, ValidateResourceQuantityValue, validateResourceQuantityHugePageValue;
the resource-name predicates are pkg/apis/core/helper/helpers.go (IsNativeResource,
IsExtendedResourceName, IsOvercommitAllowed, IsHugePageResourceName).

What is checked is what the API server sees after defaulting: a container's missing request takes its
limit's value (so "GPU only in limits" is valid), which never produces an error, so requests are checked
as written; and every quantity of a resource list is first rounded up, away from zero, to a milli-unit
(pkg/apis/core/v1/defaults.go SetDefaults_ResourceList: `RoundUp(-3)`, apimachinery v0.36.3
pkg/api/resource/quantity.go:582-597 and math.go:169-199), so a request and a limit that differ only
below 1m are equal, and a message shows the rounded value.
"""

from __future__ import annotations

from kpt_fn import quantity
from kpt_fn.apimachinery import validation as utilvalidation
from kpt_fn.apimachinery.field import child, key
from kpt_fn.validation.k8s.findings import as_dict

RULE = "k8s/resources"

HUGEPAGES = "hugepages-"
_CONTAINER_STANDARD = frozenset({"cpu", "memory", "ephemeral-storage"})
# core/helper standardResources: names without a domain that are valid somewhere (quota included).
_STANDARD = _CONTAINER_STANDARD | frozenset({
    "requests.cpu", "requests.memory", "requests.ephemeral-storage", "limits.cpu", "limits.memory",
    "limits.ephemeral-storage", "pods", "services", "replicationcontrollers", "resourcequotas", "secrets",
    "configmaps", "persistentvolumeclaims", "storage", "requests.storage", "services.nodeports",
    "services.loadbalancers"})
_QOS = ("cpu", "memory")
NEGATIVE = "must be greater than or equal to 0"


def is_native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def is_hugepages(name: str) -> bool:
    return name.startswith(HUGEPAGES)


def is_extended(name: str) -> bool:
    """An extended resource (nvidia.com/gpu): integer-valued, never overcommitted."""
    if is_native(name) or name.startswith("requests."):
        return False
    return not utilvalidation.is_qualified_name("requests." + name)


def overcommit_allowed(name: str) -> bool:
    return is_native(name) and not is_hugepages(name)


def is_standard(name: str) -> bool:
    """core/helper IsStandardResourceName (pod-level resource names use it too)."""
    return _standard(name, _STANDARD)


def _standard(name: str, allowed: frozenset) -> bool:
    return name in allowed or is_hugepages(name) or (allowed is _STANDARD and name.startswith("requests.hugepages-"))


def _name_problems(name: str, path: str, f) -> None:
    # validateResourceName reports every IsQualifiedName message, then stops
    problems = utilvalidation.is_qualified_name(name)
    for msg in problems:
        f.invalid(RULE, path, name, msg)
    if problems:
        return
    if "/" not in name:
        if not _standard(name, _STANDARD):
            f.invalid(RULE, path, name, "must be a standard resource type or fully qualified")
        if not _standard(name, _CONTAINER_STANDARD):
            f.invalid(RULE, path, name, "must be a standard resource for containers")
    elif not is_native(name) and not is_extended(name):
        f.invalid(RULE, path, name, "doesn't follow extended resource name standard")


def _hugepage_problem(name: str, q) -> str | None:
    """validateResourceQuantityHugePageValue: a whole number of pages of the size in the name."""
    try:
        page = quantity.parse(name[len(HUGEPAGES):])
    except (quantity.QuantityError, ValueError):
        page = None
    size = quantity.ceil_value(page) if page is not None else 0
    if size > 0 and quantity.ceil_value(q) % size == 0:
        return None
    return f"{quantity.canonical(q)} is not positive integer multiple of {name}"


_MILLI = 1_000_000  # nanos in a milli-unit


def milli_rounded(q):
    """SetDefaults_ResourceList: the quantity rounded up, away from zero, to a whole milli-unit."""
    whole, rest = divmod(abs(q.nanos), _MILLI)
    if not rest:
        return q
    nanos = (whole + 1) * _MILLI
    return quantity.Quantity(nanos if q.nanos > 0 else -nanos, q.format)


def _quantities(resources: dict, path: str, f) -> dict:
    """Each listed quantity parsed and defaulted; unparsable ones are the schema check's to report."""
    out = {}
    for name, value in resources.items():
        if not isinstance(name, str):
            continue
        try:
            out[name] = milli_rounded(quantity.parse(value))
        except (quantity.QuantityError, TypeError, ValueError):
            continue
    return out


def _value(name: str, q, path: str, f) -> None:
    """ValidateResourceQuantityValue: not negative; extended resources whole numbers."""
    if q.nanos < 0:
        f.invalid(RULE, path, quantity.canonical(q), NEGATIVE)
    if is_extended(name) and q.nanos % 1_000_000_000:
        f.invalid(RULE, path, quantity.canonical(q), "must be an integer")


def _one(name: str, q, where: str, check_names: bool, f) -> bool:
    """The checks of one listed quantity, limit or request; whether it is hugepages."""
    if check_names:
        _name_problems(name, where, f)
    _value(name, q, where, f)
    if not is_hugepages(name):
        return False
    problem = _hugepage_problem(name, q)
    if problem:
        f.invalid(RULE, where, quantity.canonical(q), problem)
    return True


def check_requirements(resources, path: str, f, check_names: bool = True) -> None:
    """One ResourceRequirements (a container's, the pod's, or overhead as limits)."""
    resources = as_dict(resources)
    lim_path, req_path = child(path, "limits"), child(path, "requests")
    limits = _quantities(as_dict(resources.get("limits")), lim_path, f)
    requests = _quantities(as_dict(resources.get("requests")), req_path, f)
    lim_qos = req_qos = lim_huge = req_huge = False
    for name, q in limits.items():
        lim_huge = _one(name, q, key(lim_path, name), check_names, f) or lim_huge
        lim_qos = lim_qos or name in _QOS
    for name, q in requests.items():
        where = key(req_path, name)
        req_huge = _one(name, q, where, check_names, f) or req_huge
        limit = limits.get(name)
        if limit is not None:
            # upstream reports both at `requests` (not `requests[<name>]`)
            if q != limit and not overcommit_allowed(name):
                f.invalid(RULE, req_path, quantity.canonical(q),
                          f"must be equal to {name} limit of {quantity.canonical(limit)}", hint=where)
            elif q > limit:
                f.invalid(RULE, req_path, quantity.canonical(q),
                          f"must be less than or equal to {name} limit of {quantity.canonical(limit)}", hint=where)
        elif not overcommit_allowed(name):
            f.required(RULE, lim_path, "Limit must be set for non overcommitable resources", hint=where)
        req_qos = req_qos or name in _QOS
    if not lim_qos and not req_qos and (req_huge or lim_huge):
        f.forbidden(RULE, path, "HugePages require cpu or memory")
    claims = resources.get("claims")
    if isinstance(claims, list):
        _claims(claims, child(path, "claims"), f)


def _claims(claims: list, path: str, f) -> None:
    # validateResourceClaimNames: every claim names an entry of pod.spec.resourceClaims; the
    # JobSet's pods carry none unless the template declares them (checked by the caller's set).
    for i, claim in enumerate(claims):
        if isinstance(claim, dict) and not claim.get("name"):
            f.required(RULE, f"{path}[{i}]")


def check_claims_declared(claims, declared: set, path: str, f) -> None:
    for i, claim in enumerate(claims if isinstance(claims, list) else ()):
        name = claim.get("name") if isinstance(claim, dict) else None
        if name and name not in declared:
            detail = "must be one of the names in pod.spec.resourceClaims"
            detail += ": " + ", ".join(sorted(declared)) if declared else " which is empty"
            f.not_found(RULE, f"{path}[{i}]", name, detail)
