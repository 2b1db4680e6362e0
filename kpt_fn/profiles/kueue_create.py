"""The Kueue profile's create checks: what Kueue's JobSet webhook rejects when the JobSet is created
(`jobframework.ValidateJobOnCreate`, jobframework/validation.go: the max-exec-time label, the
elastic-job annotation), what leaves it suspended for ever (more pod sets than a Workload holds),
containers that ask the quota for nothing, and a runtimePatch of Kueue's kept in Git.
"""

from __future__ import annotations

import json

from kpt_fn import workload
from kpt_fn.problems import WARNING, Problem
from kpt_fn.profiles.kueue_names import (ELASTIC_JOB_ANNOTATION, INT32_MAX, MAX_EXEC_TIME_LABEL, MAX_POD_SETS,
                                         RULE_CREATE, RULE_MAX_EXEC, RULE_REQUESTS, RULE_STALE_PATCH,
                                         RUNTIME_PATCH_MANAGER, labels as _labels)
from kpt_fn.profiles.kueue_tas import go_parse_int
from kpt_fn.resource import dig, display
from kpt_fn.trainer_names import NODE, TRAINER


def stale_runtime_patches(trainjob: dict) -> list:
    out = []
    patches = dig(trainjob, "spec", "runtimePatches")
    for i, patch in enumerate(patches if isinstance(patches, list) else ()):
        if isinstance(patch, dict) and patch.get("manager") == RUNTIME_PATCH_MANAGER:
            out.append(Problem(
                f"runtimePatches[{i}] belongs to {RUNTIME_PATCH_MANAGER}: Kueue writes it when it admits the TrainJob; "
                "a copy in Git pins the node selectors and tolerations of an earlier admission. Remove it from Git",
                f"spec.runtimePatches[{i}]", severity=WARNING, rule=RULE_STALE_PATCH))
    return out


def _written_at(trainjob: dict | None, kind: str, key: str, jobset: dict) -> tuple[str, dict | None, str]:
    """(path, subject, note) of the JobSet label or annotation `key`: the last runtimePatch that sets
    it (Trainer overlays the runtime's template metadata with every patch's, in order:
    pkg/runtime/core/trainingruntime.go newRuntimeInfo), else the JobSet's own field, noting that the
    runtime's template metadata holds it."""
    patches = dig(trainjob, "spec", "runtimePatches") if trainjob is not None else None
    found = None
    for i, patch in enumerate(patches if isinstance(patches, list) else ()):
        values = dig(patch, "trainingRuntimeSpec", "template", "metadata", kind)
        if isinstance(values, dict) and key in values:
            found = i
    if found is not None:
        return f"spec.runtimePatches[{found}].trainingRuntimeSpec.template.metadata.{kind}[{key}]", None, ""
    return f"metadata.{kind}[{key}]", jobset, f" (from the runtime's spec.template.metadata.{kind})"


def create_problems(jobset: dict, deadline_label: bool = False, trainjob: dict | None = None) -> list:
    """What Kueue's JobSet webhook rejects on create (`jobframework.ValidateJobOnCreate`,
    jobframework/validation.go), beyond the queue name and the TAS annotations, and what makes the
    JobSet wait for ever: the labels and annotations come from the runtime's template metadata and the
    runtimePatches (each problem points at the one that set it). `deadline_label`: the max-exec-time
    label is the profile's, from activeDeadlineSeconds."""
    out = []
    labels = _labels(jobset)
    if MAX_EXEC_TIME_LABEL in labels:
        value = str(labels[MAX_EXEC_TIME_LABEL])
        path, subject, note = _written_at(trainjob, "labels", MAX_EXEC_TIME_LABEL, jobset)
        if deadline_label:
            path, subject, note = "spec.activeDeadlineSeconds", None, ""
        # validateCreateForMaxExecTime: strconv.Atoi (64-bit), then a positive value
        number, error = go_parse_int(value, 64, "Atoi")
        if number is None:
            out.append(Problem(f"Invalid value: {json.dumps(value)}: {error}{note}", path, subject=subject, rule=RULE_MAX_EXEC))
        elif number <= 0:
            out.append(Problem(f"Invalid value: {number}: should be greater than 0{note}", path, subject=subject, rule=RULE_MAX_EXEC))
        elif number > INT32_MAX:
            # MaximumExecutionTimeSecondsForObject (jobframework/utils.go) parses it with bitSize 32 and
            # returns no limit on error: the webhook admits what the reconciler then ignores.
            out.append(Problem(
                f"{MAX_EXEC_TIME_LABEL} {number} is above {INT32_MAX}: Kueue's webhook accepts it, but its reconciler "
                f"reads the label as a 32-bit number and ignores it, so no maximum execution time applies{note}",
                path, severity=WARNING, subject=subject, rule=RULE_MAX_EXEC))
    annotations = dig(jobset, "metadata", "annotations")
    if isinstance(annotations, dict) and annotations.get(ELASTIC_JOB_ANNOTATION) == "true":
        # ValidateElasticJobAnnotation: only batch Jobs and Ray kinds may be elastic
        path, subject, note = _written_at(trainjob, "annotations", ELASTIC_JOB_ANNOTATION, jobset)
        out.append(Problem(
            f'Forbidden: elastic job is not supported for "jobset.x-k8s.io/v1alpha2, Kind=JobSet"{note}',
            path, subject=subject, rule=RULE_CREATE))
    replicated = dig(jobset, "spec", "replicatedJobs")
    if isinstance(replicated, list) and len(replicated) > MAX_POD_SETS:
        # The webhook admits it; the Workload Kueue then creates (one pod set per replicated job) fails
        # the Workload CRD's MaxItems, so the JobSet is never admitted and stays suspended.
        out.append(Problem(
            f"Too many: {len(replicated)}: must have at most {MAX_POD_SETS} items: Kueue's Workload for this JobSet has one "
            f"pod set per replicated job and holds at most {MAX_POD_SETS} (spec.podSets); creating it fails, so the "
            "JobSet stays suspended for ever", "spec.replicatedJobs", subject=jobset, rule=RULE_CREATE))
    return out


def _requests_field(jobset: dict, ps, field: str, j: int, container: dict, blame) -> tuple:
    """(path, subject) of the requests to write for a container: the TrainJob's
    spec.trainer.resourcesPerNode for the trainer's `node` container (Trainer writes it there), else
    the container's resources where the runtime or a runtimePatch writes the container (kpt_fn.blame),
    else the JobSet's field."""
    if blame is not None:
        if ps.step == TRAINER and field == "containers" and container.get("name") == NODE:
            return "spec.trainer.resourcesPerNode.requests", None
        found = blame.locate(jobset, f"{ps.path}.{field}[{j}].name")  # the container, where it is written
        if found is not None:
            path, subject = found
            return f"{path.removesuffix('.name')}.resources.requests", subject
    return f"{ps.path}.{field}[{j}].resources", jobset


def request_problems(jobset: dict, limit_range: dict | None, blame=None, trainjob: dict | None = None) -> list:
    """Containers that ask Kueue's quota for no cpu or memory. Kueue fills a missing request from the
    container's limit and, before that, from the namespace's LimitRange defaults
    (`workload.AdjustResources`, pkg/workload/resources.go). `limit_range`: the container defaults
    of the namespace's LimitRanges among the items (None when none is there). With `blame`
    (kpt_fn.blame.Blame) each points at the requests to write in the TrainJob or its runtime."""
    out = []
    defaults = set((limit_range or {}).get("default") or ()) | set((limit_range or {}).get("defaultRequest") or ())
    for ps in workload.pod_sets(jobset):
        if isinstance(dig(ps.pod, "resources", "requests"), dict):
            continue  # pod-level resources cover every container
        for field, j, c in ps.containers():
            res = c.get("resources") or {}
            have = set(res.get("requests") or {}) | set(res.get("limits") or {}) | defaults
            missing = [r for r in ("cpu", "memory") if r not in have]
            if missing:
                namespace = dig(jobset, "metadata", "namespace") or "(none)"
                unless = ("unless a LimitRange sets a default" if limit_range is None
                          else "the namespace's LimitRange sets no default for it")
                path, subject = _requests_field(jobset, ps, field, j, c, blame)
                who = f"{display(trainjob)}: " if trainjob is not None and subject is not None and subject is not jobset else ""
                out.append(Problem(
                    f"{who}container {c.get('name')} of replicated job {ps.name} requests no {' or '.join(missing)}: Kueue "
                    f"counts it as 0 against the quota ({unless}; Kueue fills missing requests from a LimitRange in "
                    f"namespace {namespace}, then from limits)",
                    path, severity=WARNING, subject=subject, rule=RULE_REQUESTS))
    return out
