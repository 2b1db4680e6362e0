"""Kubernetes v1.36's own checks of the Jobs and Pods a rendered JobSet makes.

The API server does not validate a JobSet's pod templates when the JobSet is created; it validates
each Job when the JobSet controller creates it, and each Pod when the Job controller does. A JobSet
that passes its CRD schema and webhook can still never start. This package re-implements, per
replicated job, what `pkg/apis/batch/validation` (the Job spec) and `pkg/apis/core/validation` (the
pod template) reject, with upstream's messages and field paths, on the object as the API server sees
it after the JobSet webhook's and the Job/Pod defaults (so an unset field that gets a valid default is
never an error). Feature gates are Kubernetes 1.36's defaults.

    check(jobset, blame=None) -> list[Problem]

One walk of each replicated job; every module takes (object, field path, Findings). `blame`, when
given, maps a JobSet field path to the TrainJob / runtime / runtimePatch field it came from
(kpt_fn.blame.Blame.locate): the problem then points at that field, with the JobSet path in its
message.
"""

from __future__ import annotations

from kpt_fn.problems import Problem, Rule
from kpt_fn.resource import dig
from kpt_fn.validation.k8s import (containers, env, job, job_selector, metadata, pod, ports, probes, resources, restart,
                                   scheduling, security, volumes)
from kpt_fn.validation.k8s.findings import Findings, as_list

_CORE = "pkg/apis/core/validation/validation.go"
_BATCH = "pkg/apis/batch/validation/validation.go"

# (rule, upstream file, what it covers) -- the catalog behind `expand-trainjobs rules` and docs/validation.md
FAMILIES = (
    (resources.RULE, _CORE, "container, pod-level and overhead resources: names, quantities not negative, "
     "extended resources whole numbers with a limit equal to the request, requests <= limits, hugepages "
     "whole pages and with cpu or memory"),
    (containers.RULE, _CORE, "containers and init containers: names (unique across both), image, "
     "imagePullPolicy, terminationMessagePolicy, resizePolicy (RestartContainer only for sidecars among init "
     "containers); probes and lifecycle only on regular "
     "containers and restartable init containers (sidecars)"),
    (env.RULE, _CORE, "env names (printable ASCII but '='), valueFrom with exactly one of fieldRef, "
     "resourceFieldRef, configMapKeyRef, secretKeyRef, fileKeyRef and each selector; envFrom sources and prefixes"),
    (ports.RULE, _CORE, "container ports: names, numbers, protocols, host-port conflicts, hostNetwork ports"),
    (volumes.RULE, _CORE, "volumes (DNS label names, unique, exactly one source and its fields, an ephemeral "
     "volume's claim template) and volumeMounts / volumeDevices naming a volume, unique mount paths, subPath, "
     "propagation"),
    (probes.RULE, _CORE, "liveness/readiness/startup probes and lifecycle handlers: one handler, ports, "
     "schemes, headers, non-negative timings, successThreshold 1 where required"),
    (security.RULE, _CORE, "pod and container securityContext: user and group ids, sysctls, seccomp, "
     "AppArmor, procMount, policies, privilege escalation; what hostUsers: false forbids (host network, PID, IPC, "
     "volumeDevices); Windows options (GMSA credential spec, runAsUserName, HostProcess pods)"),
    (restart.RULE, _CORE, "a container's own restartPolicy (Always, OnFailure, Never) and restartPolicyRules "
     "(action Restart or RestartAllContainers, exitCodes with In/NotIn and at most 255 values, at most 20 rules)"),
    (scheduling.TOLERATIONS, _CORE, "tolerations: keys, operators, values, effects, tolerationSeconds"),
    (scheduling.AFFINITY, _CORE, "node, pod and pod anti-affinity terms, selectors and weights; matchLabelKeys and "
     "mismatchLabelKeys (label names, not both, a matchLabelKeys key not also in the labelSelector once the "
     "Pod's own value is merged in)"),
    (scheduling.SPREAD, _CORE, "topologySpreadConstraints: maxSkew, topologyKey, whenUnsatisfiable, "
     "uniqueness, minDomains, inclusion policies, labelSelector, matchLabelKeys"),
    (scheduling.NODE_SELECTOR, _CORE, "nodeSelector keys and values"),
    (metadata.RULE, _CORE, "pod-template annotations the API server reads: mirror pod, pod deletion cost "
     "(a 32-bit integer), seccomp and AppArmor profiles (valid, naming a container, agreeing with securityContext)"),
    (pod.RULE, _CORE, "pod-level fields: restartPolicy, dnsPolicy and dnsConfig, hostname, subdomain, "
     "priorityClassName, serviceAccountName, nodeName, activeDeadlineSeconds, preemptionPolicy, "
     "runtimeClassName, hostnameOverride, readiness and scheduling gates, hostAliases, imagePullSecrets, os, resourceClaims, "
     "no ephemeral containers"),
    (job.RULE, _BATCH, "Job spec: non-negative counts and durations, completionMode, completions for "
     "Indexed Jobs, parallelism limit, backoffLimitPerIndex / maxFailedIndexes, podFailurePolicy, "
     "successPolicy, podReplacementPolicy"),
    (job.RESTART_RULE, _BATCH, "a Job's pods restart OnFailure or Never (never Always); Never with a podFailurePolicy"),
    (job_selector.RULE, "pkg/registry/batch/job/strategy.go", "the Job strategy's generated selector: no written "
     "selector the generated labels miss, no job-name or controller-uid pod label other than the generated one; "
     "with manualSelector, a selector that matches the pod template's labels"),
)

RULES = [Rule(rule, "JobSet (its Jobs and Pods)", f"Kubernetes 1.36 {upstream}: {text}")
         for rule, upstream, text in FAMILIES]

_RJ = "spec.replicatedJobs"


def findings(jobset: dict) -> list[tuple]:
    """(rule, JobSet path, body, hint) for every problem of every replicated job's Job and pod template."""
    f = Findings()
    claims = [dig(t, "metadata", "name") for policy in as_list(dig(jobset, "spec", "volumeClaimPolicies"))
              for t in as_list(dig(policy, "templates"))]
    claims = [c for c in claims if isinstance(c, str) and c]
    for i, rj in enumerate(as_list(dig(jobset, "spec", "replicatedJobs"))):
        spec = dig(rj, "template", "spec")
        if not isinstance(spec, dict):
            continue
        path = f"{_RJ}[{i}].template.spec"
        job.check_job_spec(spec, path, f)
        pod_spec = dig(spec, "template", "spec")
        if isinstance(pod_spec, dict):
            metadata.check_annotations(dig(spec, "template", "metadata", "annotations"), pod_spec, f"{path}.template", f)
            pod.check_pod_spec(pod_spec, f"{path}.template.spec", f, claims,
                               dig(spec, "template", "metadata", "labels"))
        job.check_restart_policy(spec, path, f)
        job_selector.check(spec, dig(spec, "template", "metadata", "labels"),
                           job_selector.job_names(dig(jobset, "metadata", "name"), dig(rj, "name"), dig(rj, "replicas")),
                           _known_labels(jobset, rj), path, f)
    return f.items


def _known_labels(jobset: dict, rj: dict) -> dict:
    """The pod-template labels the JobSet controller sets whose values are known before it runs
    (labelAndAnnotateObject in JobSet's pkg/controllers/jobset_controller.go)."""
    known = {"jobset.sigs.k8s.io/jobset-name": dig(jobset, "metadata", "name"),
             "jobset.sigs.k8s.io/replicatedjob-name": dig(rj, "name")}
    return {k: v for k, v in known.items() if isinstance(v, str)}


def check(jobset: dict, blame=None) -> list[Problem]:
    out = []
    who = None
    for rule, path, text, hint in findings(jobset):
        where = blame.locate(jobset, hint or path) if blame is not None else None
        if where is None:
            out.append(Problem(text, path, subject=jobset, rule=rule))
            continue
        if who is None:
            meta = jobset.get("metadata") or {}
            who = f"{meta.get('namespace') or ''}/{meta.get('name')}".lstrip("/")
        source_path, subject = where
        out.append(Problem(f"JobSet {who} {path}: {text}", source_path, subject=subject, rule=rule))
    return out
