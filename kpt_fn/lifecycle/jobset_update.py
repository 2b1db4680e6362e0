"""Which changes of a created JobSet the cluster refuses.

Two rules decide, and both run on every UPDATE whatever the client. Both are those of the JobSet
release the cluster runs: the bundle's `jobset_release` (v0.12.0 under Trainer v2.3.0, v0.11.1 under
v2.2.1), its CRD read from the bundle's JobSet schema.

* The JobSet validating webhook's `ValidateUpdate` (`pkg/webhooks/jobset_webhook.go` :312-405 at
  v0.12.0): `spec.replicatedJobs` must equal the stored list, compared as Go values, except the pod
  templates' labels, annotations, nodeSelector, tolerations and schedulingGates of replicated jobs
  kept by name while the old or the new JobSet is suspended (:375-391, for Kueue); `spec.managedBy`
  must not change (:396). The ElasticJobSet branch (:324-368) is behind an alpha gate that is off by
  default (`pkg/features/features.go` :75) and is not modelled. v0.11.1's ValidateUpdate (:323-352
  at v0.11.1) pairs the replicated jobs by position instead of by name while suspended, and a new
  list longer than the stored one makes it index past the stored list's end: the webhook panics,
  which controller-runtime answers with an error (`panic: ... [recovered]`), so that update is
  refused too. Paired by position or by name, any other difference of names or order leaves the
  lists unequal, so it is refused alike; only the message differs.
* the CRD's transition rules `self == oldSelf` (jobset.x-k8s.io_jobsets.yaml at v0.12.0: failurePolicy,
  network, replicatedJobs[].dependsOn, startupPolicy, successPolicy, volumeClaimPolicies), compared as
  plain data. A transition rule runs only when the field exists in both objects; items of the
  `replicatedJobs` list map are paired by name. The rule list is read from the project's JobSet
  schema, so it cannot drift from the CRD.

Go comparison (apimachinery `equality.Semantic.DeepEqual`, which treats nil and empty slices and maps
as equal) is approximated on plain data: null, an absent field, `""`, `[]` and `{}` are the same.
Pointer fields that hold an empty struct are thereby equal to absent ones, which Go would tell apart;
no rendered JobSet has such a field.
"""

from __future__ import annotations

from kpt_fn import openapi, upstream
from kpt_fn.problems import Refusal
from kpt_fn.resource import dig, private_copy
from kpt_fn.validation.jobset_webhook import V0_11_1

# The pod-template fields ValidateUpdate lets change while suspended (jobset_webhook.go :384-389).
SUSPENDED_MUTABLE = (("metadata", "annotations"), ("metadata", "labels"), ("spec", "nodeSelector"),
                     ("spec", "tolerations"), ("spec", "schedulingGates"))
IMMUTABLE = "field is immutable"
CEL_IMMUTABLE = "Value is immutable"


def go_value(value):
    """`value` with what Go cannot tell from absent removed (see the module docstring)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            v = go_value(v)
            if v is not None:
                out[k] = v
        return out or None
    if isinstance(value, list):
        return [go_value(v) for v in value] or None
    if value == "" and isinstance(value, str):
        return None
    return value


def same(a, b) -> bool:
    """Equality of plain data that tells booleans from numbers (Python's True == 1 does not)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _suspended(jobset: dict) -> bool:
    return dig(jobset, "spec", "suspend") is True


def _munged_rjobs(old: dict, new: dict) -> list:
    """New's replicatedJobs with the fields ValidateUpdate masks taken from old (jobset_webhook.go :375-391)."""
    new_rjobs = dig(new, "spec", "replicatedJobs")
    new_rjobs = [r for r in new_rjobs] if isinstance(new_rjobs, list) else []
    if not (_suspended(old) or _suspended(new)):
        return new_rjobs
    old_by_name = {r.get("name"): r for r in dig(old, "spec", "replicatedJobs") or () if isinstance(r, dict)}
    out = []
    for rjob in new_rjobs:
        before = old_by_name.get(rjob.get("name")) if isinstance(rjob, dict) else None
        if before is None:
            out.append(rjob)
            continue
        rjob = _with_pod_template_fields(rjob, before)
        out.append(rjob)
    return out


def _with_pod_template_fields(rjob: dict, source: dict) -> dict:
    """rjob with the SUSPENDED_MUTABLE fields of its pod template set to `source`'s (absent when absent)."""
    out = private_copy(rjob)
    template = out.setdefault("template", {}).setdefault("spec", {}).setdefault("template", {})
    for part, field in SUSPENDED_MUTABLE:
        value = dig(source, "template", "spec", "template", part, field)
        holder = template.setdefault(part, {})
        if value is None:
            holder.pop(field, None)
        else:
            holder[field] = private_copy(value)
    return out


def _positional_overrun(old: dict, new: dict) -> Refusal | None:
    """v0.11.1's ValidateUpdate on a suspended JobSet reads the stored replicated job at each new index
    (jobset_webhook.go :337-345 at v0.11.1, `oldJS.Spec.ReplicatedJobs[index]`): past the stored
    list's end that is Go's index-out-of-range panic, which the webhook server answers as an error."""
    if not (_suspended(old) or _suspended(new)):
        return None
    old_rjobs, new_rjobs = dig(old, "spec", "replicatedJobs"), dig(new, "spec", "replicatedJobs")
    n_old = len(old_rjobs) if isinstance(old_rjobs, list) else 0
    n_new = len(new_rjobs) if isinstance(new_rjobs, list) else 0
    if n_new <= n_old:
        return None
    return Refusal("spec.replicatedJobs",
                   f"panic: runtime error: index out of range [{n_old}] with length {n_old} [recovered]",
                   "jobset-webhook/update")


def validate_update(old: dict, new: dict, release: str) -> list[Refusal]:
    """ValidateUpdate of JobSet `release` (ElasticJobSet off) on two stored-form JobSets."""
    if release == V0_11_1:
        overrun = _positional_overrun(old, new)
        if overrun is not None:
            return [overrun]
    out = []
    old_rjobs = dig(old, "spec", "replicatedJobs")
    if not same(go_value(_munged_rjobs(old, new)), go_value(old_rjobs if isinstance(old_rjobs, list) else [])):
        out.append(Refusal("spec.replicatedJobs", IMMUTABLE, "jobset-webhook/update"))
    if not same(go_value(dig(new, "spec", "managedBy")), go_value(dig(old, "spec", "managedBy"))):
        out.append(Refusal("spec.managedBy", IMMUTABLE, "jobset-webhook/update"))
    return out


def immutable_paths(bundle: upstream.Bundle) -> tuple:
    """The schema paths (tuples of keys, "[]" for list items) carrying `self == oldSelf` in the JobSet CRD
    of `bundle`'s Trainer release."""
    b = bundle
    return b.derived("lifecycle.jobset_immutable_paths", lambda: _immutable_paths(b))


def _immutable_paths(bundle: upstream.Bundle) -> tuple:
    from kpt_fn.lifecycle.jobset_defaults import jobset_schema

    schema = jobset_schema(bundle)
    found = []

    def walk(node, path):
        if not isinstance(node, dict):
            return
        for rule in node.get("x-kubernetes-validations") or ():
            if isinstance(rule, dict) and rule.get("rule", "").replace(" ", "") == "self==oldSelf":
                found.append(path)
        for what, name, sub in openapi.children(node):
            if what != openapi.VALUES:  # no immutable field of the JobSet schema is below a map value
                walk(sub, path + ((name,) if what == openapi.PROPERTY else ("[]",)))

    walk(schema, ())
    return tuple(found)


def _values(obj, path: tuple, where: str):
    """(shown path, value) for every value at `path`, list items named by their `name` key."""
    if not path:
        yield where, obj
        return
    head, rest = path[0], path[1:]
    if head == "[]":
        for item in obj if isinstance(obj, list) else ():
            key = item.get("name") if isinstance(item, dict) else None
            yield from _values(item, rest, f"{where}[name={key}]" if key is not None else where + "[?]")
        return
    if isinstance(obj, dict) and obj.get(head) is not None:
        yield from _values(obj[head], rest, f"{where}.{head}" if where else head)


def cel_immutables(old: dict, new: dict, bundle: upstream.Bundle) -> list[Refusal]:
    """The CRD's `self == oldSelf` rules on two stored-form (CRD-defaulted) JobSets."""
    out = []
    for path in immutable_paths(bundle):
        before = dict(_values(old, path, ""))
        for where, value in _values(new, path, ""):
            if where in before and not same(value, before[where]):
                out.append(Refusal(where, CEL_IMMUTABLE, "cel/jobset/" + path[-1]))  # the field the rule guards
    return out


def refusals(old: dict, new: dict, bundle: upstream.Bundle) -> list[Refusal]:
    """Every reason the cluster refuses to turn stored JobSet `old` into `new` (both stored forms), by the
    JobSet release of `bundle`'s Trainer release."""
    b = bundle
    return cel_immutables(old, new, b) + validate_update(old, new, b.jobset_release)
