"""The JobSet validating webhook's create checks that need no cluster, for the JobSet release the run's
Trainer release installs (the bundle's `jobset_release`: v0.12.0 for Trainer v2.3.0, v0.11.1 for
v2.2.1), from JobSet's pkg/webhooks/jobset_webhook.go at that tag.

The webhook sees the object after the JobSet defaulting webhook and the CRD defaults, so absent
fields read as: replicas 1, groupName "default", completionMode Indexed, failure-policy rule name
`failurePolicyRule<i>`. Feature gates are JobSet's defaults (all off) unless `gates` names them; a
gate the release does not have is ignored. Not checked: an existing PVC whose spec differs from a
VolumeClaimPolicy template (needs the cluster).

What differs between the two releases (`git diff v0.11.1 v0.12.0 -- pkg/webhooks`):

* v0.12.0 added the failure-policy actions `RestartJob` and `RestartJobAndIgnoreMaxRestarts` behind
  the RestartJob gate (pkg/features/features.go), and `validateFailurePolicy` refuses them while the
  gate is off and beside a replicated job of more than 1024 replicas. v0.11.1 has neither the actions
  (its CRD's enum refuses them: a schema error here) nor these checks.
* How the errors reach the user: v0.12.0 wraps them in one `JobSet.jobset.x-k8s.io "<name>" is
  invalid` error, where a check that returns a plain error (no field path) reads "Internal error:
  ..." (`invalidError`); v0.11.1 joins the errors' texts (`errors.Join`). Here every check carries
  the path of the field it is about under both releases, and the message is the check's own text.

Volume claim template errors point at `templates[j].metadata.name`, the field upstream means by
`template[j].name`.
"""

from __future__ import annotations

import re

from kpt_fn.resource import dig
from kpt_fn.problems import Problem, Rule
from kpt_fn.apimachinery import validation as utilvalidation
from kpt_fn.apimachinery.field import REQUIRED, TOO_LONG, body, child, index

MAX_INT32 = 2**31 - 1
MAX_MANAGED_BY = 63
MAX_VOLUME_CLAIM_NAME = 63
MAX_REPLICAS_WITH_RESTART_JOB = 1024
COORDINATOR_KEY = "jobset.sigs.k8s.io/coordinator"
DNS1035_TOO_LONG = "must be no more than 63 characters"
GROUP_NAME_TOO_LONG = ".spec.replicatedJob[].groupName is too long, must be less than 63 characters"
JOB_NAME_TOO_LONG = "JobSet name is too long, job names generated for this JobSet will exceed 63 characters"
POD_NAME_TOO_LONG = "JobSet name is too long, pod names generated for this JobSet will exceed 63 characters"
SUBDOMAIN_TOO_LONG = ".spec.network.subdomain is too long, must be less than 63 characters"
VALID_FAILURE_REASONS = ("BackoffLimitExceeded", "DeadlineExceeded", "FailedIndexes",
                         "MaxFailedIndexesExceeded", "PodFailurePolicy")
RESTART_JOB_ACTIONS = ("RestartJob", "RestartJobAndIgnoreMaxRestarts")

# The JobSet releases a Trainer bundle can pair with, oldest first (a bundle's `jobset_release` says
# which: there is no default here).
V0_11_1, V0_12_0 = "v0.11.1", "v0.12.0"
RELEASES = (V0_11_1, V0_12_0)
# The feature gates each release knows (pkg/features/features.go at the tag; all default off).
GATES = {V0_11_1: frozenset({"InPlaceRestart"}), V0_12_0: frozenset({"InPlaceRestart", "RestartJob"})}

R = "jobset-webhook/"
_FAILURE_POLICY = {
    V0_11_1: "failurePolicy rules: rule names, targets, job failure reasons",
    V0_12_0: "failurePolicy rules: RestartJob gate, replicas <= 1024 with RestartJob, rule names, targets, "
             "job failure reasons",
}


def rules(release: str) -> list[Rule]:
    """The rule records of the webhook of JobSet `release` (they differ in the failure-policy checks)."""
    return [Rule(R + rule, "JobSet", description) for rule, description in (
        ("in-place-restart-gate", "failurePolicy.restartStrategy InPlaceRestart needs the InPlaceRestart feature gate"),
        ("depends-on-first", "the first replicatedJob must not have dependsOn"),
        ("subdomain", "network.subdomain must be a DNS-1123 subdomain and a DNS-1035 label"),
        ("managed-by", "managedBy must be a domain-prefixed path of at most 63 characters"),
        ("replicas-parallelism", "replicas x parallelism must not exceed 2147483647"),
        ("group-name", "groupName must be a DNS-1035 label"),
        ("job-name", "<jobset>-<replicatedJob>-<replicas-1> (the Job names) must be a DNS-1035 label"),
        ("pod-name", "<jobset>-<replicatedJob>-<job>-<pod>-abcde (Pod names of Indexed Jobs) must be a DNS-1035 label"),
        ("depends-on-order", "dependsOn may only name earlier replicatedJobs"),
        ("in-place-restart",
         "with InPlaceRestart: backoffLimit MaxInt32, podReplacementPolicy Failed, completions == parallelism"),
        ("success-policy-targets", "successPolicy.targetReplicatedJobs must name replicatedJobs"),
        ("failure-policy", _FAILURE_POLICY[release]),
        ("coordinator",
         "coordinator must name an existing Indexed replicatedJob, job and pod index, and yield a valid label value"),
        ("volume-claim-policies",
         "VolumeClaimPolicies templates: unique DNS-1123 names, PVC names <= 63 characters, mounted by a "
         "container, no volume of the same name"),
    )]


def _rjobs(spec: dict) -> list[dict]:
    rjobs = spec.get("replicatedJobs")
    return [r if isinstance(r, dict) else {} for r in rjobs] if isinstance(rjobs, list) else []




def _dict(obj, *path) -> dict:
    value = dig(obj, *path)
    return value if isinstance(value, dict) else {}


def _int(value, default):
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _str(value, default=""):
    return value if isinstance(value, str) else default


def check(jobset: dict, gates: frozenset, release: str) -> list[Problem]:
    """The create checks of JobSet `release`'s webhook on a JobSet; `gates`: the feature gates on."""
    if release not in GATES:
        raise ValueError(f"no JobSet webhook of release {release!r}: known are {', '.join(RELEASES)}")
    gates = frozenset(gates) & GATES[release]
    out: list[Problem] = []

    def add(message, path, rule):
        out.append(Problem(message, path, subject=jobset, rule=R + rule))

    spec = jobset.get("spec") if isinstance(jobset.get("spec"), dict) else {}
    js_name = _str(dig(jobset, "metadata", "name"))
    rjobs = _rjobs(spec)
    failure_policy = spec.get("failurePolicy") if isinstance(spec.get("failurePolicy"), dict) else None
    in_place = failure_policy is not None and failure_policy.get("restartStrategy") == "InPlaceRestart"

    if in_place and "InPlaceRestart" not in gates:
        add("InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled",
            "spec.failurePolicy.restartStrategy", "in-place-restart-gate")

    if rjobs and rjobs[0].get("dependsOn") is not None:
        add("DependsOn can't be set for the first ReplicatedJob", "spec.replicatedJobs[0].dependsOn",
            "depends-on-first")

    subdomain = _str(dig(spec, "network", "subdomain"))
    if subdomain:
        for m in utilvalidation.is_dns1123_subdomain(subdomain):
            add(m, "spec.network.subdomain", "subdomain")
        for m in utilvalidation.is_dns1035_label(subdomain):
            add(SUBDOMAIN_TOO_LONG if DNS1035_TOO_LONG in m else m, "spec.network.subdomain", "subdomain")

    managed_by = spec.get("managedBy")
    if isinstance(managed_by, str):
        for etype, _value, detail in utilvalidation.is_domain_prefixed_path(managed_by):
            add(body(REQUIRED) if etype == REQUIRED else detail, "spec.managedBy", "managed-by")
        if len(managed_by.encode()) > MAX_MANAGED_BY:
            add(body(TOO_LONG, detail=f"may not be more than {MAX_MANAGED_BY} bytes"), "spec.managedBy",
                "managed-by")

    seen: set[str] = set()
    for i, rjob in enumerate(rjobs):
        path = index("spec.replicatedJobs", i)
        name = _str(rjob.get("name"))
        seen.add(name)
        replicas = _int(rjob.get("replicas"), 1)
        job_spec = _dict(rjob, "template", "spec")
        parallelism = _int(job_spec.get("parallelism"), 1)
        if parallelism * replicas > MAX_INT32:
            add(f"the product of replicas and parallelism must not exceed {MAX_INT32} for replicatedJob "
                f"'{name}'", path, "replicas-parallelism")

        group = rjob.get("groupName")
        group = group if isinstance(group, str) else "default"
        for m in utilvalidation.is_dns1035_label(group):
            add(GROUP_NAME_TOO_LONG if DNS1035_TOO_LONG in m else m, child(path, "groupName"), "group-name")

        longest_job = f"{js_name}-{name}-{replicas - 1}"
        for m in utilvalidation.is_dns1035_label(longest_job):
            add(JOB_NAME_TOO_LONG if DNS1035_TOO_LONG in m else m, child(path, "name"), "job-name")

        indexed = job_spec.get("completionMode", "Indexed") in (None, "Indexed")
        completions = job_spec.get("completions")
        if indexed and isinstance(completions, int) and not isinstance(completions, bool):
            longest_pod = f"{js_name}-{name}-{replicas - 1}-{completions - 1}-abcde"
            for m in utilvalidation.is_dns1035_label(longest_pod):
                add(POD_NAME_TOO_LONG if DNS1035_TOO_LONG in m else m, child(path, "name"), "pod-name")

        depends_on = rjob.get("dependsOn")
        for j, dep in enumerate(depends_on if isinstance(depends_on, list) else []):
            dep_name = _str(dig(dep, "name"))
            if dep_name not in seen:
                add(f"replicatedJob: {name} cannot depend on replicatedJob: {dep_name}",
                    f"{path}.dependsOn[{j}].name", "depends-on-order")

        if in_place and "InPlaceRestart" in gates:
            _in_place_restart(name, job_spec, f"{path}.template.spec", add)

    targets = dig(spec, "successPolicy", "targetReplicatedJobs")
    for j, target in enumerate(targets if isinstance(targets, list) else []):
        if not isinstance(target, str) or target not in seen:
            add(f"invalid replicatedJob name '{target}' does not appear in .spec.ReplicatedJobs",
                f"spec.successPolicy.targetReplicatedJobs[{j}]", "success-policy-targets")

    if failure_policy is not None:
        _failure_policy(failure_policy, rjobs, seen, gates, add, release)

    coordinator = spec.get("coordinator")
    if isinstance(coordinator, dict):
        _coordinator(js_name, spec, coordinator, rjobs, add)

    policies = spec.get("volumeClaimPolicies")
    if isinstance(policies, list) and policies:
        _volume_claim_policies(js_name, policies, rjobs, add)
    return out


def _in_place_restart(name, job_spec, path, add):
    if job_spec.get("backoffLimit") != MAX_INT32:
        add(f"replicatedJob {name}: must be set to {MAX_INT32} (MaxInt32) when in-place restart is enabled",
            f"{path}.backoffLimit", "in-place-restart")
    if job_spec.get("podReplacementPolicy") != "Failed":
        add(f"replicatedJob {name}: must be set to Failed when in-place restart is enabled",
            f"{path}.podReplacementPolicy", "in-place-restart")
    completions, parallelism = job_spec.get("completions"), job_spec.get("parallelism")
    if completions is None or parallelism is None or completions != parallelism:
        add(f"replicatedJob {name}: completions and parallelism must be set and equal to each other when "
            "in-place restart is enabled", f"{path}.completions", "in-place-restart")


_RULE_NAME_OK = r"[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"  # compiled on first use


def _failure_policy(policy, rjobs, seen, gates, add, release):
    rules = policy.get("rules") if isinstance(policy.get("rules"), list) else []
    rules = [r if isinstance(r, dict) else {} for r in rules]
    # The RestartJob actions and their checks are new in v0.12.0 (validateFailurePolicy there); at
    # v0.11.1 the CRD's enum refuses the actions before the webhook runs.
    if release != V0_11_1 and any(r.get("action") in RESTART_JOB_ACTIONS for r in rules):
        if "RestartJob" not in gates:
            add("RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed when "
                "RestartJob feature gate is disabled", "spec.failurePolicy.rules", "failure-policy")
            return
        if any(_int(r.get("replicas"), 1) > MAX_REPLICAS_WITH_RESTART_JOB for r in rjobs):
            add("JobSet cannot have a failure policy rule with RestartJob or RestartJobAndIgnoreMaxRestarts "
                f"action and a replicated job with replicas > {MAX_REPLICAS_WITH_RESTART_JOB}",
                "spec.failurePolicy.rules", "failure-policy")
    by_name: dict[str, list[int]] = {}
    for i, rule in enumerate(rules):
        path = f"spec.failurePolicy.rules[{i}]"
        name = rule.get("name")
        name = name if isinstance(name, str) and name else f"failurePolicyRule{i}"
        n = len(name.encode())
        if n < 1 or n > 128:
            add(f"invalid failure policy rule name of length {n}, the rule name must be at least 1 characters "
                "long and at most 128 characters long", f"{path}.name", "failure-policy")
        by_name.setdefault(name, []).append(i)
        if not re.fullmatch(_RULE_NAME_OK, name):
            add(f"invalid failure policy rule name '{name}', a failure policy rule name must start with an "
                "alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', "
                "and must end with an alphanumeric character or '_'", f"{path}.name", "failure-policy")
        targets = rule.get("targetReplicatedJobs")
        for j, target in enumerate(targets if isinstance(targets, list) else []):
            if not isinstance(target, str) or target not in seen:
                add(f"invalid replicatedJob name '{target}' in failure policy does not appear in "
                    ".spec.ReplicatedJobs", f"{path}.targetReplicatedJobs[{j}]", "failure-policy")
        reasons = rule.get("onJobFailureReasons")
        for j, reason in enumerate(reasons if isinstance(reasons, list) else []):
            if reason not in VALID_FAILURE_REASONS:
                add(f"invalid job failure reason '{reason}' in failure policy is not a recognized job failure "
                    "reason", f"{path}.onJobFailureReasons[{j}]", "failure-policy")
    for name, indices in by_name.items():
        if len(indices) > 1:
            shown = "[" + " ".join(str(i) for i in indices) + "]"
            add(f"rule names are not unique, rules with indices {shown} all have the same name '{name}'",
                f"spec.failurePolicy.rules[{indices[1]}].name", "failure-policy")


def _coordinator(js_name, spec, coordinator, rjobs, add):
    rjob_name = _str(coordinator.get("replicatedJob"))
    job_index = _int(coordinator.get("jobIndex"), 0)
    pod_index = _int(coordinator.get("podIndex"), 0)
    target = next((r for r in rjobs if r.get("name") == rjob_name), None)
    message = None
    if target is None:
        message = f"coordinator replicatedJob {rjob_name} does not exist"
    else:
        job_spec = _dict(target, "template", "spec")
        completions = job_spec.get("completions")
        if job_index < 0 or job_index >= _int(target.get("replicas"), 1):
            message = f"coordinator job index {job_index} is invalid for replicatedJob {rjob_name}"
        elif job_spec.get("completionMode", "Indexed") not in (None, "Indexed") or not isinstance(completions, int):
            message = "job for coordinator pod must be indexed completion mode, and completions number must be set"
        elif pod_index < 0 or pod_index >= completions:
            message = (f"coordinator pod index {pod_index} is invalid for replicatedJob {rjob_name} "
                       f"job index {job_index}")
    if message:
        add(message, "spec.coordinator", "coordinator")
    subdomain = _str(dig(spec, "network", "subdomain")) or js_name
    label_value = f"{js_name}-{rjob_name}-{job_index}-{pod_index}.{subdomain}"
    errs = utilvalidation.is_label_value(label_value)
    if errs:
        add(f'spec will lead to invalid label value "{label_value}" for coordinator label "{COORDINATOR_KEY}" '
            f"(long JobSet / ReplicatedJob / SubDomain name?): {', '.join(errs)}", "spec.coordinator",
            "coordinator")


def _volume_claim_policies(js_name, policies, rjobs, add):
    claim_names: set[str] = set()
    for i, policy in enumerate(policies):
        templates = dig(policy, "templates")
        for j, template in enumerate(templates if isinstance(templates, list) else []):
            # JobSet's own path for the template's metadata.name, as its webhook writes it
            # (v0.12.0 pkg/webhooks/jobset_webhook.go validateVolumeClaimPolicies: "template", the
            # index, then "name"), so that the message matches what kubectl prints.
            path = f"spec.volumeClaimPolicies[{i}].template[{j}].name"
            name = _str(dig(template, "metadata", "name"))
            if name in claim_names:
                add("names must be unique for VolumeClaimPolicies template", path, "volume-claim-policies")
            for m in utilvalidation.is_dns1123_subdomain(name):
                add(m, path, "volume-claim-policies")
            if len(f"{name}-{js_name}".encode()) > MAX_VOLUME_CLAIM_NAME:
                add("VolumeClaimPolicies template name is too long", path, "volume-claim-policies")
            _claim_mounted(name, rjobs, add)
            claim_names.add(name)


def _claim_mounted(claim: str, rjobs, add):
    mounted = False
    for i, rjob in enumerate(rjobs):
        pod_spec = _dict(rjob, "template", "spec", "template", "spec")
        volumes = pod_spec.get("volumes")
        for v, volume in enumerate(volumes if isinstance(volumes, list) else []):
            if dig(volume, "name") == claim:
                add(f"volume name conflicts with VolumeClaimPolicy template name: {claim}",
                    f"spec.replicatedJobs[{i}].template.spec.template.spec.volumes[{v}].name",
                    "volume-claim-policies")
        if not mounted:
            for kind in ("initContainers", "containers"):
                containers = pod_spec.get(kind)
                for container in containers if isinstance(containers, list) else []:
                    mounts = dig(container, "volumeMounts")
                    if any(dig(m, "name") == claim for m in (mounts if isinstance(mounts, list) else [])):
                        mounted = True
    if not mounted:
        add(f"replicatedJob containers don't have a matching volumeMount: {claim} from VolumeClaimPolicies",
            "spec.replicatedJobs", "volume-claim-policies")
