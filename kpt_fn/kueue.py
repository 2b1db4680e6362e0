"""The `kueue` output profile: a rendered JobSet that Kueue's JobSet integration will manage.

In a cluster with the Trainer controller, Kueue manages the TrainJob and the controller creates the
JobSet. In a cluster without it, the JobSet from Git is what Kueue sees, so what Kueue reads from a
TrainJob must be on the JobSet instead (kubernetes-sigs/kueue v0.19, read for every rule below):

- queue and priority: `jobframework.QueueNameForObject` / `WorkloadPriorityClassName` read the
  `kueue.x-k8s.io/queue-name` and `kueue.x-k8s.io/priority-class` labels of the job object itself
  (pkg/controller/constants/constants.go); Trainer does not copy TrainJob labels to the JobSet
  (pkg/runtime/core/trainingruntime.go), so without this profile the queue is lost;
- suspend: Kueue's JobSet webhook suspends a queued JobSet on create (`ApplyDefaultForSuspend`,
  jobframework/defaults.go) and its reconciler unsuspends it on admission (`RunWithPodSetsInfo`,
  jobs/jobset/jobset_controller.go), which also merges node selectors, tolerations, labels,
  annotations and scheduling gates into the pod templates (`podset.Merge`). The profile renders
  `suspend: true` so that Git equals what the webhook stores; Argo CD must be told to leave the fields
  Kueue owns alone (kpt_fn.argocd.kueue_patch);
- MultiKueue: a TrainJob `managedBy: kueue.x-k8s.io/multikueue` becomes the JobSet's
  `spec.managedBy` (jobs/jobset/jobset_multikueue_adapter.go reads it; JobSet v0.12 has the field),
  so worker clusters only need JobSet;
- max-exec-time: `kueue.x-k8s.io/max-exec-time-seconds` (validateCreateForMaxExecTime: a positive
  integer) deactivates a workload after that much *admitted* time, the nearest thing to Trainer's
  `activeDeadlineSeconds` (which fails the TrainJob that long after creation or the last resume).

Checks Kueue makes when the JobSet is created are rules here: the Topology-Aware-Scheduling pod-set
annotations (kpt_fn/kueue_tas.py), the max-exec-time label and the elastic-job annotation
(`jobframework.ValidateJobOnCreate`); and what would leave the JobSet suspended for ever: more pod
sets than a Workload holds, and requests that can never fit the ClusterQueue (the quota fit).
"""

from __future__ import annotations

# The Kueue release the checks and the profile follow (read from kubernetes-sigs/kueue at this tag;
# `expand-trainjobs --version` names it).
RELEASE = "v0.19.2"

import json

from kpt_fn.engine import RULE_DEADLINE as _CONTROLLER_DEADLINE_RULE
from kpt_fn import kueue_tas as tas, workload
from kpt_fn.resource import dig
from kpt_fn import quantity
from kpt_fn.problems import INFO, WARNING, Problem, Rule
from kpt_fn.kueue_tas import RULE_TAS, check_tas, go_parse_int  # noqa: F401 (check_tas: the pipeline's entry point)

KUEUE = "kueue"

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
MAX_EXEC_TIME_LABEL = "kueue.x-k8s.io/max-exec-time-seconds"
MULTIKUEUE = "kueue.x-k8s.io/multikueue"
DEFAULT_LOCAL_QUEUE = "default"  # pkg/controller/constants/constants.go DefaultLocalQueueName
# pkg/constants/constants.go ElasticJobAnnotation; workloadslicing.Enabled matches the value "true"
ELASTIC_JOB_ANNOTATION = "kueue.x-k8s.io/elastic-job"
# apis/kueue/v1beta2/workload_types.go: Workload spec.podSets has MaxItems=18 (jobframework.MaxPodSets)
MAX_POD_SETS = 18
INT32_MAX = 2**31 - 1
RUNTIME_PATCH_MANAGER = "kueue.x-k8s.io/manager"


RULE_QUEUE = "kueue/queue-name"
RULE_LABEL_LOST = "kueue/labels-not-on-jobset"
RULE_MAX_EXEC = "kueue/max-exec-time"
RULE_STALE_PATCH = "kueue/runtime-patch-in-git"
RULE_DOUBLE_GANG = "kueue/double-gang-scheduling"
RULE_REQUESTS = "kueue/container-requests"
RULE_QUOTA = "kueue/quota-fit"
RULE_CREATE = "kueue/jobset-webhook"

RULES = [
    Rule(RULE_QUEUE, "TrainJob",
         "kueue profile: the JobSet gets a LocalQueue (TrainJob label kueue.x-k8s.io/queue-name, the label from the "
         "runtime's template metadata, kueueQueues, or the namespace's LocalQueue `default` among the inputs, "
         "which Kueue's webhook assigns); the name is a "
         "DNS-1123 subdomain (jobframework.ValidateQueueName)"),
    Rule(RULE_LABEL_LOST, "TrainJob",
         "warning: controller profile and a TrainJob with Kueue labels: the JobSet does not carry them"),
    Rule(RULE_MAX_EXEC, "TrainJob",
         "kueue profile: activeDeadlineSeconds becomes kueue.x-k8s.io/max-exec-time-seconds (different semantics: "
         "warning); the label is a positive integer (validateCreateForMaxExecTime); above 2147483647 Kueue's "
         "reconciler ignores it (warning)"),
    Rule(RULE_STALE_PATCH, "TrainJob",
         "warning: a runtimePatches entry of manager kueue.x-k8s.io/manager is written by Kueue at admission, not kept in Git"),
    Rule(RULE_DOUBLE_GANG, "TrainJob",
         "warning: kueue profile and a coscheduling/Volcano PodGroup gate the same pods twice"),
    Rule(RULE_TAS, "JobSet",
         "Topology-Aware-Scheduling pod-set annotations, the multi-layer slice constraints included, parse "
         "(jobframework/tas.go) and are consistent (jobframework/tas_validation.go)"),
    Rule(RULE_CREATE, "JobSet",
         "kueue profile: no kueue.x-k8s.io/elastic-job annotation on a JobSet (ValidateElasticJobAnnotation); at most "
         "18 replicated jobs, the pod sets of one Workload"),
    Rule(RULE_REQUESTS, "JobSet",
         "warning: kueue profile: every container requests cpu and memory (or sets limits, or a LimitRange among "
         "the inputs sets defaults), so that quota counts it"),
    Rule(RULE_QUOTA, "TrainJob",
         "the TrainJob's requests can fit its ClusterQueue: each pod set in one flavor per resource group, and "
         "the whole workload (nominal quota plus borrowing limit)"),
]

def _labels(obj: dict) -> dict:
    labels = dig(obj, "metadata", "labels")
    return labels if isinstance(labels, dict) else {}


# --- settings ------------------------------------------------------------------------------------


def parse_queues(entries) -> tuple[dict, list[str]]:
    """`kueueQueues` entries: `QUEUE` (every namespace) or `NAMESPACE=QUEUE`. ({namespace or "": queue},
    messages about malformed entries)."""
    queues, bad = {}, []
    for entry in entries or ():
        namespace, sep, queue = str(entry).partition("=")
        if not sep:
            namespace, queue = "", namespace
        namespace, queue = namespace.strip(), queue.strip()
        if not queue or (sep and not namespace):
            bad.append(f"kueueQueues entry {entry!r}: expected QUEUE or NAMESPACE=QUEUE")
            continue
        queues[namespace] = queue
    return queues, bad


def queue_for(trainjob: dict, queues: dict, quotas: Quotas | None = None, jobset: dict | None = None) -> tuple[str | None, str]:
    """(LocalQueue name, where it came from): the TrainJob's label, else the label the JobSet already
    carries (from the runtime's or a runtimePatch's template metadata: what Kueue would read without
    the profile), else a kueueQueues entry, else a LocalQueue named `default` among the items in the
    TrainJob's namespace. That last is what Kueue's webhook assigns a JobSet that names no queue
    (`ApplyDefaultLocalQueueWithManagedJobsNamespaceSelector`, jobframework/defaults.go: the label is
    set to `constants.DefaultLocalQueueName` when that LocalQueue exists), so rendering it makes Git
    equal what the API server stores."""
    label = _labels(trainjob).get(QUEUE_LABEL)
    if label:
        return label, f"label {QUEUE_LABEL}"
    label = _labels(jobset).get(QUEUE_LABEL) if jobset is not None else None
    if label:
        return label, f"the JobSet's label {QUEUE_LABEL}, from the runtime's template metadata"
    namespace = dig(trainjob, "metadata", "namespace") or ""
    if namespace in queues:
        return queues[namespace], f"kueueQueues entry for namespace {namespace}"
    if "" in queues:
        return queues[""], "kueueQueues default"
    if quotas is not None and (namespace, DEFAULT_LOCAL_QUEUE) in quotas.local_queues:
        return DEFAULT_LOCAL_QUEUE, (f"LocalQueue {DEFAULT_LOCAL_QUEUE} in namespace {namespace or '(none)'}, which Kueue's "
                                     "webhook assigns to a JobSet that names no queue")
    return None, ""


# --- before the engine ---------------------------------------------------------------------------


def engine_view(trainjob: dict, profile: str) -> dict:
    """The TrainJob as the engine should see it. With the kueue profile a MultiKueue TrainJob is
    rendered (for the management cluster) instead of being left to another controller."""
    spec = trainjob.get("spec")
    if profile != KUEUE or not isinstance(spec, dict) or spec.get("managedBy") != MULTIKUEUE:
        return trainjob
    return {**trainjob, "spec": {k: v for k, v in spec.items() if k != "managedBy"}}


# --- after the engine ----------------------------------------------------------------------------

def engine_problems(problems: list, profile: str) -> list:
    """The engine's problems, less its note that the controller enforces activeDeadlineSeconds (with
    the profile, Kueue's max-exec-time label stands in; prepare() says how it differs)."""
    if profile != KUEUE:
        return problems
    return [p for p in problems if p.rule != _CONTROLLER_DEADLINE_RULE]



def prepare(trainjob: dict, objects: list, profile: str, queues: dict, quotas: Quotas | None = None) -> tuple[list, list]:
    """(objects, problems): the generated objects as the profile wants them, and what the user must know."""
    problems = _stale_runtime_patches(trainjob)
    if profile != KUEUE:
        kept = sorted(k for k in (QUEUE_LABEL, PRIORITY_LABEL) if k in _labels(trainjob))
        if kept and objects:
            problems.append(Problem(
                f"label(s) {', '.join(kept)} stay on the TrainJob: the Trainer controller does not copy them to "
                "the JobSet, so in a cluster without it Kueue never sees them; set `profile: kueue` to render a "
                "JobSet that Kueue manages", "metadata.labels", severity=WARNING, rule=RULE_LABEL_LOST))
        return objects, problems
    if not objects:
        return objects, problems
    jobset = next((o for o in objects if o.get("kind") == "JobSet"), None)
    queue, origin = queue_for(trainjob, queues, quotas, jobset)
    if not queue:
        problems.append(Problem(
            f"profile kueue: no LocalQueue for this TrainJob: set the label {QUEUE_LABEL} or a kueueQueues entry, or "
            f"add the namespace's LocalQueue {DEFAULT_LOCAL_QUEUE} to the inputs "
            "(the JobSet is rendered suspended, and without a queue nothing would ever resume it)",
            "metadata.labels", rule=RULE_QUEUE))
        return objects, problems
    from kpt_fn.apimachinery.validation import is_dns1123_subdomain

    wrong = is_dns1123_subdomain(queue)
    if wrong:
        problems.append(Problem(f"profile kueue: LocalQueue name {queue!r} (from {origin}) is invalid: {'; '.join(wrong)}",
                                f"metadata.labels[{QUEUE_LABEL}]", rule=RULE_QUEUE))
        return objects, problems
    labels = {QUEUE_LABEL: queue}
    priority = _labels(trainjob).get(PRIORITY_LABEL)
    if priority:
        labels[PRIORITY_LABEL] = priority
    deadline = dig(trainjob, "spec", "activeDeadlineSeconds")
    if isinstance(deadline, int) and not isinstance(deadline, bool) and deadline > 0:
        labels[MAX_EXEC_TIME_LABEL] = str(deadline)
        problems.append(Problem(
            f"activeDeadlineSeconds {deadline} becomes the JobSet label {MAX_EXEC_TIME_LABEL}: Kueue deactivates "
            "(evicts, not fails) the workload after that much admitted time, counted across admissions; the Trainer "
            "controller failed the TrainJob that long after creation or its last resume",
            "spec.activeDeadlineSeconds", severity=WARNING, rule=RULE_MAX_EXEC))

    managed_by = dig(trainjob, "spec", "managedBy")
    out = []
    for obj in objects:
        if obj.get("kind") == "JobSet":
            obj = _kueue_jobset(obj, labels, managed_by == MULTIKUEUE)
            problems += create_problems(obj, deadline_label=MAX_EXEC_TIME_LABEL in labels, trainjob=trainjob)
            problems += _request_problems(obj, quotas.limit_ranges(obj) if quotas is not None else None)
        elif obj.get("kind") == "PodGroup":
            problems.append(Problem(
                f"PodGroup {dig(obj, 'metadata', 'name')} ({obj.get('apiVersion')}) and Kueue both gate these pods: "
                "Kueue admits the whole workload at once already; keep one (drop podGroupPolicy from the runtime, and "
                "use Kueue's waitForPodsReady for all-or-nothing start), or leave the profile",
                "spec.runtimeRef", severity=WARNING, rule=RULE_DOUBLE_GANG))
        out.append(obj)
    problems.append(Problem(f"profile kueue: JobSet queued in LocalQueue {queue} ({origin}), rendered suspended",
                            "", severity=INFO, rule=RULE_QUEUE))
    return out, problems


def _kueue_jobset(jobset: dict, labels: dict, multikueue: bool) -> dict:
    metadata = dict(jobset.get("metadata") or {})
    metadata["labels"] = {**(metadata.get("labels") or {}), **labels}
    spec = dict(jobset.get("spec") or {})
    spec["suspend"] = True
    if multikueue:
        spec["managedBy"] = MULTIKUEUE
    return {**jobset, "metadata": metadata, "spec": spec}


def _stale_runtime_patches(trainjob: dict) -> list:
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


def _request_problems(jobset: dict, limit_range: dict | None) -> list:
    """Containers that ask Kueue's quota for no cpu or memory. Kueue fills a missing request from the
    container's limit and, before that, from the namespace's LimitRange defaults
    (`workload.AdjustResources`, pkg/workload/resources.go). `limit_range`: the container defaults
    of the namespace's LimitRanges among the items (None when none is there)."""
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
                out.append(Problem(
                    f"container {c.get('name')} of replicated job {ps.name} requests no {' or '.join(missing)}: Kueue "
                    f"counts it as 0 against the quota ({unless}; Kueue fills missing requests from a LimitRange in "
                    f"namespace {namespace}, then from limits)",
                    f"{ps.path}.{field}[{j}].resources", severity=WARNING, subject=jobset, rule=RULE_REQUESTS))
    return out


# --- quota fit -----------------------------------------------------------------------------------

KUEUE_GROUP = "kueue.x-k8s.io"


def is_kueue_object(obj: dict, kind: str) -> bool:
    api = obj.get("apiVersion")
    return obj.get("kind") == kind and isinstance(api, str) and api.split("/")[0] == KUEUE_GROUP


class Quotas:
    """ClusterQueues, LocalQueues and LimitRanges found among the items, for the quota-fit check."""

    __slots__ = ("cluster_queues", "local_queues", "_limit_ranges")

    def __init__(self, items):
        self.cluster_queues: dict[str, dict] = {}
        self.local_queues: dict[tuple, str] = {}
        self._limit_ranges: dict[str, list] = {}  # namespace -> [spec.limits entries], in item order
        for obj in items:
            if not isinstance(obj, dict):
                continue
            if is_kueue_object(obj, "ClusterQueue"):
                self.cluster_queues[dig(obj, "metadata", "name")] = obj
            elif is_kueue_object(obj, "LocalQueue"):
                cq = dig(obj, "spec", "clusterQueue")
                if isinstance(cq, str):
                    self.local_queues[(dig(obj, "metadata", "namespace") or "", dig(obj, "metadata", "name"))] = cq
            elif obj.get("kind") == "LimitRange" and obj.get("apiVersion") == "v1":
                limits = dig(obj, "spec", "limits")
                entries = self._limit_ranges.setdefault(dig(obj, "metadata", "namespace") or "", [])
                entries += [item for item in limits if isinstance(item, dict)] if isinstance(limits, list) else []

    def __bool__(self):
        return bool(self.cluster_queues)

    def limit_ranges(self, obj: dict) -> dict | None:
        """The Container-type defaults of the LimitRanges in `obj`'s namespace, as Kueue summarises
        them (`limitrange.Summarize`, pkg/util/limitrange/limitrange.go: the first value of each
        resource wins): {"default": {...}, "defaultRequest": {...}}; None when no LimitRange of the
        namespace is among the items (the cluster may still have one)."""
        items = self._limit_ranges.get(dig(obj, "metadata", "namespace") or "")
        if items is None:
            return None
        out: dict = {"default": {}, "defaultRequest": {}}
        for item in items:
            if item.get("type") == "Container":
                for key in out:
                    for name, value in (item.get(key) or {}).items():
                        out[key].setdefault(name, value)
        return out


def _with_limit_range(pod: dict, limit_range: dict | None) -> dict:
    """The pod as Kueue counts it: each container's missing limits and requests filled from the
    LimitRange's `default` and `defaultRequest` (pkg/workload/resources.go handlePodLimitRange)."""
    if not limit_range or (not limit_range["default"] and not limit_range["defaultRequest"]):
        return pod

    def fill(c):
        if not isinstance(c, dict):
            return c
        res = dict(c.get("resources") or {})
        res["limits"] = {**limit_range["default"], **(res.get("limits") or {})}
        res["requests"] = {**limit_range["defaultRequest"], **(res.get("requests") or {})}
        return {**c, "resources": res}

    return {**pod, **{f: [fill(c) for c in pod.get(f) or ()] for f in ("containers", "initContainers")}}


class _ClusterQueue:
    """What can ever be admitted: per resource group its covered resources and, per flavor, the most
    of each it can give (nominal quota plus borrowing limit; None when borrowing from a cohort is
    unbounded: without the other ClusterQueues of the cohort nothing bounds it)."""

    def __init__(self, cq: dict):
        in_cohort = bool(dig(cq, "spec", "cohort") or dig(cq, "spec", "cohortName"))
        self.groups: list[tuple[set, list]] = []  # (covered resources, [(flavor, {resource: capacity})])
        self.group_of: dict[str, int] = {}
        for group in dig(cq, "spec", "resourceGroups") or ():
            if not isinstance(group, dict):
                continue
            flavors = []
            covered = set(group.get("coveredResources") or ())
            for flavor in group.get("flavors") or ():
                caps = {}
                for r in flavor.get("resources") or ():
                    nominal = quantity.parse(r.get("nominalQuota", 0))
                    borrow = r.get("borrowingLimit")
                    if not in_cohort:
                        caps[r.get("name")] = nominal  # nothing to borrow from
                    else:
                        caps[r.get("name")] = None if borrow is None else nominal + quantity.parse(borrow)
                    covered.add(r.get("name"))
                flavors.append((flavor.get("name"), caps))
            for name in covered:
                self.group_of.setdefault(name, len(self.groups))
            self.groups.append((covered, flavors))


def _pod_set_groups(jobset: dict, limit_range: dict | None, count_pods: bool) -> list[tuple[str, dict, list]]:
    """[(pod set or TAS group name, {resource: total request}, [(pod count, {resource: per-pod request})])]. Kueue assigns flavors to a TAS pod-set
    group (podset-group-name beside a required or preferred topology) as one, with the requests of
    its pod sets added up (flavorassigner.go assignFlavors); `pods` is requested when the
    ClusterQueue has a quota for it."""
    groups: dict[str, tuple[str, dict, list]] = {}
    for ps in workload.pod_sets(jobset):
        notes = dig(jobset, "spec", "replicatedJobs", ps.index, *workload.POD_META, "annotations") or {}
        key, label = f"#{ps.index}", f"pod set {ps.name}"
        if tas.GROUP_NAME in notes and (tas.REQUIRED_TOPOLOGY in notes or tas.PREFERRED_TOPOLOGY in notes):
            key, label = str(notes[tas.GROUP_NAME]), f"pod-set group {notes[tas.GROUP_NAME]}"
        per_pod = workload.pod_requests(_with_limit_range(ps.pod, limit_range))
        if count_pods:
            per_pod["pods"] = quantity.parse(1)
        _, total, members = groups.setdefault(key, (label, {}, []))
        members.append((ps.count, per_pod))
        for resource, q in per_pod.items():
            total[resource] = total.get(resource, quantity.Quantity()) + q * ps.count
    return list(groups.values())


def _bad_quota(cq: dict) -> Problem | None:
    """An error for the first quota of the ClusterQueue that is not a quantity (Kueue's API would refuse
    it): the ClusterQueue is wrong, not the TrainJob, and the quota check cannot run."""
    for g, group in enumerate(dig(cq, "spec", "resourceGroups") or ()):
        for f, flavor in enumerate((group.get("flavors") if isinstance(group, dict) else None) or ()):
            for r, resource in enumerate((flavor.get("resources") if isinstance(flavor, dict) else None) or ()):
                for key in ("nominalQuota", "borrowingLimit", "lendingLimit"):
                    value = resource.get(key) if isinstance(resource, dict) else None
                    if value is None:
                        continue
                    try:
                        quantity.parse(value)
                    except (quantity.QuantityError, TypeError, ValueError):
                        path = f"spec.resourceGroups[{g}].flavors[{f}].resources[{r}].{key}"
                        return Problem(f"Invalid value: {value!r}: {path} of ClusterQueue {dig(cq, 'metadata', 'name')} "
                                       "is not a quantity; the quota check cannot run", path, subject=cq)
    return None


def quota_problems(trainjob: dict, jobset: dict, quotas: Quotas, queue: str) -> list:
    """Whether the TrainJob's workload can ever be admitted by its ClusterQueue (only when the
    LocalQueue and ClusterQueue are among the items; otherwise nothing is known and nothing said).

    As Kueue's flavor assigner does (pkg/scheduler/flavorassigner/flavorassigner.go
    `findFlavorForPodSets`), a pod set (or TAS group) takes one flavor per resource group for all
    the resources of that group it requests: a flavor fits only if every one of them fits in it."""
    namespace = dig(trainjob, "metadata", "namespace") or ""
    queue = _labels(jobset).get(QUEUE_LABEL) or queue  # the profile's JobSet names the queue Kueue reads
    cq_name = quotas.local_queues.get((namespace, queue))
    cq_obj = quotas.cluster_queues.get(cq_name) if cq_name else None
    if cq_obj is None:
        return []
    bad = _bad_quota(cq_obj)
    if bad is not None:
        return [bad]
    cq = _ClusterQueue(cq_obj)
    where = f"ClusterQueue {cq_name} (LocalQueue {namespace}/{queue})" if namespace else f"ClusterQueue {cq_name}"
    problems = []
    totals: dict = {}
    reported = set()
    sharing: dict[int, list] = {}  # resource group -> [(pod set label, {resource: need})] that fit alone
    for label, requests, members in _pod_set_groups(jobset, quotas.limit_ranges(jobset), "pods" in cq.group_of):
        by_group: dict[int, dict] = {}
        for resource, need in requests.items():
            if not need:
                continue  # a zero request needs no quota, declared or not
            totals[resource] = totals.get(resource, quantity.Quantity()) + need
            if resource not in cq.group_of:
                problems.append(Problem(
                    f"{label} requests {resource}, which {where} does not cover (Kueue: resource {resource} unavailable "
                    "in ClusterQueue): the workload can never be admitted", "spec", rule=RULE_QUOTA))
                continue
            by_group.setdefault(cq.group_of[resource], {})[resource] = need
        for g, needs in by_group.items():
            flavors = cq.groups[g][1]
            if any(all(_fits(need, caps.get(r, quantity.Quantity())) for r, need in needs.items()) for _, caps in flavors):
                sharing.setdefault(g, []).append((label, needs))
                continue
            alone = [r for r, need in needs.items() if not any(_fits(need, caps.get(r, quantity.Quantity())) for _, caps in flavors)]
            for resource in alone:  # more than any flavor has: say so resource by resource
                reported.add(resource)
                best = max((caps.get(resource, quantity.Quantity()) for _, caps in flavors), default=quantity.Quantity())
                problems.append(Problem(
                    f"{label} needs {_describe(resource, needs[resource], members)}, more than any flavor of "
                    f"ClusterQueue {cq_name} can ever give (at most {quantity.canonical(best)} with borrowing): the "
                    "workload stays Inadmissible", "spec", rule=RULE_QUOTA))
            if alone:
                continue
            short = "; ".join(
                f"flavor {name}: " + ", ".join(f"{r} {quantity.canonical(needs[r])} > {quantity.canonical(caps.get(r, quantity.Quantity()))}"
                                               for r in sorted(needs) if not _fits(needs[r], caps.get(r, quantity.Quantity())))
                for name, caps in flavors)
            wanted = ", ".join(f"{quantity.canonical(needs[r])} {r}" for r in sorted(needs))
            problems.append(Problem(
                f"{label} needs {wanted} from one flavor of ClusterQueue {cq_name} (Kueue gives a pod set one flavor "
                f"per resource group for all its resources), and no flavor can ever give all of it ({short or 'no flavors'}): "
                "the workload stays Inadmissible", "spec", rule=RULE_QUOTA))
    for resource, need in totals.items():
        if resource in reported or resource not in cq.group_of:
            continue
        caps = [flavor_caps.get(resource, quantity.Quantity()) for _, flavor_caps in cq.groups[cq.group_of[resource]][1]]
        if caps and None not in caps:
            whole = sum(caps[1:], caps[0])
            if need > whole:
                reported.add(resource)
                problems.append(Problem(
                    f"the workload needs {quantity.canonical(need)} {resource} in all, more than ClusterQueue "
                    f"{cq_name} can ever give ({quantity.canonical(whole)} over all flavors, with borrowing): "
                    "it stays Inadmissible", "spec", rule=RULE_QUOTA))
    for g, members in sharing.items():
        if len(members) < 2 or any(r in reported for _, needs in members for r in needs):
            continue
        if _assignment_exists([needs for _, needs in members], [caps for _, caps in cq.groups[g][1]]) is False:
            names = ", ".join(label for label, _ in members)
            problems.append(Problem(
                f"{names} each fit a flavor of ClusterQueue {cq_name}, but no choice of one flavor per pod set fits them "
                "all at once (Kueue gives each pod set one flavor per resource group for all its resources, within "
                "each flavor's quota and borrowing limit): the workload stays Inadmissible", "spec", rule=RULE_QUOTA))
    return _unique(problems)


def _fits(need, capacity) -> bool:
    return capacity is None or need <= capacity


def _assignment_exists(demands: list[dict], flavors: list[dict], budget: int = 20000) -> bool | None:
    """Whether each demand ({resource: quantity}) can take one flavor ({resource: capacity or None})
    with no flavor over capacity: a search over the choices, biggest demands first. None when it
    takes more than `budget` steps (then nothing is claimed)."""
    zero = quantity.Quantity()
    order = sorted(demands, key=lambda d: sorted((v for v in d.values()), reverse=True), reverse=True)
    used = [dict() for _ in flavors]
    steps = 0

    def place(i: int) -> bool | None:
        nonlocal steps
        if i == len(order):
            return True
        for f, caps in enumerate(flavors):
            steps += 1
            if steps > budget:
                return None
            if all(_fits(used[f].get(r, zero) + need, caps.get(r, zero)) for r, need in order[i].items()):
                for r, need in order[i].items():
                    used[f][r] = used[f].get(r, zero) + need
                found = place(i + 1)
                for r, need in order[i].items():
                    used[f][r] = used[f][r] - need
                if found is not False:
                    return found
        return False

    return place(0)


def _describe(resource: str, need, members: list) -> str:
    """`4 nvidia.com/gpu (2 pod(s) x 2)` for a single pod set, the total for a group."""
    if len(members) == 1:
        count, per_pod = members[0]
        return f"{quantity.canonical(need)} {resource} ({count} pod(s) x {quantity.canonical(per_pod[resource])})"
    return f"{quantity.canonical(need)} {resource}"


def _unique(problems: list) -> list:
    seen, out = set(), []
    for p in problems:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out
