"""Resource arithmetic of Trainer v2.3.0: the resourcesPerNode merge, effective pod requests,
PodGroup totals and GPU/CPU detection (upstream pkg/runtime/runtime.go, pkg/util/trainingruntime/trainingruntime.go and the coscheduling and volcano plugins at v2.3.0).

Resource lists come in as plain dicts whose values are quantity strings or numbers (as in the YAML)
or Quantity objects. Invalid quantities raise kpt_fn.quantity.QuantityError; callers turn it
into a Problem with the field path they know.

Keep the original quantity text when passing pod specs to `pod_requests`: upstream computes pod
requests from the quantities as written (for `resourcesPerNode`-merged containers, from the merge
result), and the written form decides the format of the PodGroup totals.
"""

from __future__ import annotations

TYPE_CHECKING = False  # without importing typing, which KRM mode otherwise never needs
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

from kpt_fn.quantity import ZERO, Quantity, canonical, canonicalize, parse
from kpt_fn.engine.smp import merge_list_by_key

_POD_LEVEL_EXACT = frozenset(("cpu", "memory"))
_HUGEPAGES_PREFIX = "hugepages-"


def _quantity(value) -> Quantity:
    return value if isinstance(value, Quantity) else parse(value)


def _typed_resource_list(values: Mapping | None) -> dict[str, str]:
    """A ResourceList as upstream's JSON encoder writes it: canonical strings, keys sorted."""
    if not values:
        return {}
    return {name: canonical(_quantity(values[name])) for name in sorted(values)}


def _typed_claims(claims) -> list[dict]:
    # ResourceClaim JSON: `name` always written, `request` only when non-empty; nothing else survives.
    out = []
    for claim in claims or ():
        typed = {"name": claim.get("name") or ""}
        if claim.get("request"):
            typed["request"] = claim["request"]
        out.append(typed)
    return out


def merge_resource_requirements(base: dict | None, override: dict | None) -> dict:
    """Trainer's MergeResourceRequirements: `override` (the TrainJob's resourcesPerNode) laid over
    `base` (the container's resources).

    limits/requests merge per resource name (override wins, nothing is removed), claims merge by
    name. Quantities come out canonical, maps sorted by resource name; empty parts are omitted.
    The result has `limits`, `requests` and `claims` (the JobSet container gets only the first two).
    """
    base = base or {}
    override = override or {}
    merged: dict = {}
    for field in ("limits", "requests"):
        values = _typed_resource_list(base.get(field))
        for name, text in _typed_resource_list(override.get(field)).items():
            values[name] = text
        if values:
            merged[field] = {name: values[name] for name in sorted(values)}
    base_claims = _typed_claims(base.get("claims"))
    override_claims = _typed_claims(override.get("claims"))
    if base_claims and override_claims:
        claims = merge_list_by_key(base_claims, override_claims, "name", "claims")
    else:
        claims = override_claims or base_claims
    if claims:
        merged["claims"] = claims
    return merged


# ------------------------------------------------------------------------------------------------
# Effective pod requests (component-helpers PodRequests, default options)


def _add_into(total: dict, addend: Mapping) -> None:
    for name, value in addend.items():
        current = total.get(name)
        total[name] = value if current is None else current + value


def _max_into(total: dict, candidate: Mapping) -> None:
    # Ties keep the existing entry (and with it its format and text).
    for name, value in candidate.items():
        current = total.get(name)
        if current is None or value > current:
            total[name] = value


def _requests_of(container: Mapping) -> dict[str, Quantity]:
    requests = (container.get("resources") or {}).get("requests") or {}
    return {name: _quantity(value) for name, value in requests.items()}


def _is_pod_level_resource(name: str) -> bool:
    return name in _POD_LEVEL_EXACT or name.startswith(_HUGEPAGES_PREFIX)


def pod_requests(pod_spec: Mapping) -> dict[str, Quantity]:
    """Effective requests of one pod: containers summed, init containers (with restartable sidecars
    accumulating) as an element-wise maximum, pod-level requests for cpu/memory/hugepages-*
    overriding, overhead added. Only `requests` count; zero values are kept. Sorted by name.
    """
    reqs: dict[str, Quantity] = {}
    for container in pod_spec.get("containers") or ():
        _add_into(reqs, _requests_of(container))

    sidecars: dict[str, Quantity] = {}
    init_peak: dict[str, Quantity] = {}
    for container in pod_spec.get("initContainers") or ():
        requests = _requests_of(container)
        if container.get("restartPolicy") == "Always":
            _add_into(reqs, requests)
            _add_into(sidecars, requests)
            in_use = sidecars
        else:
            in_use = dict(requests)
            _add_into(in_use, sidecars)
        _max_into(init_peak, in_use)
    _max_into(reqs, init_peak)

    pod_level = (pod_spec.get("resources") or {}).get("requests") or {}
    if any(_is_pod_level_resource(name) for name in pod_level):
        for name, value in pod_level.items():
            if _is_pod_level_resource(name):
                reqs[name] = _quantity(value)

    overhead = pod_spec.get("overhead")
    if overhead:
        _add_into(reqs, {name: _quantity(value) for name, value in overhead.items()})
    return {name: reqs[name] for name in sorted(reqs)}


def sum_requests(pairs: Iterable[tuple[Mapping, int]]) -> dict[str, Quantity]:
    """PodGroup minResources: sum of requests * count over (requests, count) pairs, in order.

    Each total starts as an unformatted zero and so takes the format of its first addend (the first
    PodSet that has that resource). Sorted by resource name.
    """
    total: dict[str, Quantity] = {}
    for requests, count in pairs:
        for name, value in requests.items():
            total[name] = total.get(name, ZERO) + _quantity(value) * count
    return {name: total[name] for name in sorted(total)}


def format_resource_list(resources: Mapping) -> dict[str, str]:
    """Canonical strings, sorted by resource name (how upstream serialises a ResourceList)."""
    out = {}
    for name in sorted(resources):
        value = resources[name]
        out[name] = canonical(value) if isinstance(value, Quantity) else canonicalize(value)
    return out


