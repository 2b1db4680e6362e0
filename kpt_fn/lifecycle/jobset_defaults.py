"""What the cluster adds to a JobSet when it is created, so that the function can render it.

The JobSet release is the one the run's Trainer release installs (the bundle's `jobset_release`:
v0.12.0 under v2.3.0, v0.11.1 under v2.2.1). Its mutating webhook's `Default` and its webhook
registration are the same at both tags (`git diff v0.11.1 v0.12.0 -- pkg/webhooks config/components/
webhook` changes only Default's signature); the CRD's `default:` values are read from the bundle's
JobSet schema, so they follow the release. Line numbers below are v0.12.0's.

Three things change a JobSet between the apply that creates it and what is stored:

1. The JobSet mutating webhook, registered for CREATE only (`config/components/webhook/
   manifests.yaml` :21-22 at v0.12.0), runs `Default` (`pkg/webhooks/jobset_webhook.go` :111-160):
   successPolicy `{operator: All}`, startupPolicy `{startupPolicyOrder: AnyOrder}`, every Job template's
   completionMode `Indexed` and pod restartPolicy `OnFailure`, network `enableDNSHostnames` and
   `publishNotReadyAddresses` true, failure-policy rule names `failurePolicyRule<i>`, and a volume claim
   policy's retentionPolicy `{whenDeleted: Delete}`.
2. The webhook answers with a patch from the request to its Go object re-encoded: struct fields that
   encoding/json writes even when empty come back as `{}`. Within the fields the CRD compares as
   plain data (`volumeClaimPolicies`, `self == oldSelf`, an atomic list), that is each claim template's
   `status: {}` (core/v1 PersistentVolumeClaim.Status is a struct, not a pointer), and `metadata: {}`
   and `spec.resources: {}` where the template has none.
3. The API server's structural defaulting (apiextensions-apiserver `pkg/apiserver/schema/defaulting`)
   fills the CRD's `default:` values; it runs on every request and read, not only on create.

Nothing of (1) and (2) is repeated on UPDATE. A later apply that leaves them out therefore removes
them (a JSON merge patch replaces the whole `replicatedJobs` list) and the webhook's ValidateUpdate
refuses the result (`completionMode` and `restartPolicy` live inside that list). Rendering them is
the fix; it is a departure from the controller's payload (the controller never sends them, because
it never re-applies to an existing JobSet's spec), documented in docs/fidelity.md.

`create_defaults` applies them to a copy, exactly as the cluster would; applying it to its own
result changes nothing (the cluster's create of an already defaulted JobSet is the identity).
"""

from __future__ import annotations

from kpt_fn import upstream
from kpt_fn.resource import private_copy
from kpt_fn.upstream.defaults import apply_defaults

INDEXED = "Indexed"
ON_FAILURE = "OnFailure"
RULE_NAME = "failurePolicyRule{}"


JOBSET = ("jobset.x-k8s.io/v1alpha2", "JobSet")


def jobset_schema(bundle: upstream.Bundle) -> dict:
    """The JobSet schema of a Trainer release's bundle (made from the CRD of the JobSet release it
    pairs with)."""
    b = bundle
    return b.schema(b.schema_entries()[JOBSET])


def _spec_tree(bundle: upstream.Bundle) -> dict:
    """The `default:` values below the JobSet CRD's spec (metadata defaults of the strict schema are
    not the API server's)."""
    return bundle.defaults("JobSet")["spec"]  # crd_defaults.json, generated


def _obj(parent: dict, key: str) -> dict:
    """parent[key] as an object, created when absent or null (a Go pointer the webhook allocates)."""
    value = parent.get(key)
    if not isinstance(value, dict):
        value = parent[key] = {}
    return value


def webhook_default(spec: dict) -> None:
    """The JobSet webhook's `Default` on a spec, in place (jobset_webhook.go :111-160 at v0.12.0, the same
    statements at v0.11.1; same order)."""
    if spec.get("successPolicy") is None:
        spec["successPolicy"] = {"operator": "All"}
    if spec.get("startupPolicy") is None:
        spec["startupPolicy"] = {"startupPolicyOrder": "AnyOrder"}
    for rjob in spec.get("replicatedJobs") or ():
        if not isinstance(rjob, dict):
            continue
        job_spec = _obj(_obj(rjob, "template"), "spec")
        if job_spec.get("completionMode") is None:
            job_spec["completionMode"] = INDEXED
        pod_spec = _obj(_obj(job_spec, "template"), "spec")
        # Go compares the string with "": an explicit empty value is defaulted too.
        if not pod_spec.get("restartPolicy"):
            pod_spec["restartPolicy"] = ON_FAILURE
    network = _obj(spec, "network")
    for key in ("enableDNSHostnames", "publishNotReadyAddresses"):
        if network.get(key) is None:
            network[key] = True
    policy = spec.get("failurePolicy")
    if isinstance(policy, dict):
        for i, rule in enumerate(policy.get("rules") or ()):
            if isinstance(rule, dict) and not rule.get("name"):
                rule["name"] = RULE_NAME.format(i)
    for claim_policy in spec.get("volumeClaimPolicies") or ():
        if isinstance(claim_policy, dict) and claim_policy.get("retentionPolicy") is None:
            claim_policy["retentionPolicy"] = {"whenDeleted": "Delete"}


def webhook_round_trip(spec: dict) -> None:
    """The empty structs the webhook's re-encoding adds inside `volumeClaimPolicies` (see above)."""
    for claim_policy in spec.get("volumeClaimPolicies") or ():
        for template in (claim_policy.get("templates") or ()) if isinstance(claim_policy, dict) else ():
            if not isinstance(template, dict):
                continue
            _obj(template, "metadata")
            _obj(_obj(template, "spec"), "resources")
            _obj(template, "status")


def create_defaults(jobset: dict, bundle: upstream.Bundle) -> dict:
    """The JobSet as the API server stores it after the create, under the JobSet release of `bundle`'s
    Trainer release: a defaulted deep copy."""
    return default_created(private_copy(jobset), bundle)


def default_created(jobset: dict, bundle: upstream.Bundle) -> dict:
    """create_defaults in place, for a JobSet nothing else holds (one a render has just made); returns it."""
    spec = jobset.get("spec")
    if isinstance(spec, dict):
        webhook_default(spec)
        webhook_round_trip(spec)
        apply_defaults(spec, _spec_tree(bundle))
    return jobset


def crd_defaults(jobset: dict, bundle: upstream.Bundle) -> dict:
    """The JobSet after the API server's structural defaulting alone (what an UPDATE request gets)."""
    out = private_copy(jobset)
    if isinstance(out.get("spec"), dict):
        apply_defaults(out["spec"], _spec_tree(bundle))
    return out
