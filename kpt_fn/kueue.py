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
  Kueue owns alone (`argocd_ignore_differences`);
- MultiKueue: a TrainJob `managedBy: kueue.x-k8s.io/multikueue` becomes the JobSet's
  `spec.managedBy` (jobs/jobset/jobset_multikueue_adapter.go reads it; JobSet v0.12 has the field),
  so worker clusters only need JobSet;
- max-exec-time: `kueue.x-k8s.io/max-exec-time-seconds` (validateCreateForMaxExecTime: a positive
  integer) deactivates a workload after that much *admitted* time, the nearest thing to Trainer's
  `activeDeadlineSeconds` (which fails the TrainJob that long after creation or the last resume).

Checks Kueue makes at admission are rules here: the Topology-Aware-Scheduling pod-set annotations
(`jobframework.ValidateTASPodSetRequest`, `ValidateSliceSizeAnnotationUpperBound`,
`ValidatePodSetGroupingTopology` in jobframework/tas_validation.go), and a quota fit: a workload whose
requests can never fit its ClusterQueue stays Inadmissible forever.
"""

from __future__ import annotations

import json

from kpt_fn.engine import RULE_DEADLINE as _CONTROLLER_DEADLINE_RULE
from kpt_fn import workload
from kpt_fn.resource import dig
from kpt_fn import quantity
from kpt_fn.problems import INFO, WARNING, Problem

PROFILES = ("controller", "kueue")
KUEUE = "kueue"

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
MAX_EXEC_TIME_LABEL = "kueue.x-k8s.io/max-exec-time-seconds"
MULTIKUEUE = "kueue.x-k8s.io/multikueue"
RUNTIME_PATCH_MANAGER = "kueue.x-k8s.io/manager"

REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-required-topology"
PREFERRED_TOPOLOGY = "kueue.x-k8s.io/podset-preferred-topology"
UNCONSTRAINED_TOPOLOGY = "kueue.x-k8s.io/podset-unconstrained-topology"
SLICE_REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-slice-required-topology"
SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
GROUP_NAME = "kueue.x-k8s.io/podset-group-name"

RULE_QUEUE = "kueue/queue-name"
RULE_LABEL_LOST = "kueue/labels-not-on-jobset"
RULE_MAX_EXEC = "kueue/max-exec-time"
RULE_STALE_PATCH = "kueue/runtime-patch-in-git"
RULE_DOUBLE_GANG = "kueue/double-gang-scheduling"
RULE_TAS = "kueue/tas-annotations"
RULE_REQUESTS = "kueue/container-requests"
RULE_QUOTA = "kueue/quota-fit"

RULES = [
    {"id": RULE_QUEUE, "family": "kueue", "applies_to": "TrainJob",
     "description": "kueue profile: the JobSet gets a LocalQueue (TrainJob label kueue.x-k8s.io/queue-name or kueueQueues); "
                    "the name is a DNS-1123 subdomain (jobframework.ValidateQueueName)"},
    {"id": RULE_LABEL_LOST, "family": "kueue", "applies_to": "TrainJob",
     "description": "warning: controller profile and a TrainJob with Kueue labels: the JobSet does not carry them"},
    {"id": RULE_MAX_EXEC, "family": "kueue", "applies_to": "TrainJob",
     "description": "kueue profile: activeDeadlineSeconds becomes kueue.x-k8s.io/max-exec-time-seconds (different semantics: warning)"},
    {"id": RULE_STALE_PATCH, "family": "kueue", "applies_to": "TrainJob",
     "description": "warning: a runtimePatches entry of manager kueue.x-k8s.io/manager is written by Kueue at admission, not kept in Git"},
    {"id": RULE_DOUBLE_GANG, "family": "kueue", "applies_to": "TrainJob",
     "description": "warning: kueue profile and a coscheduling/Volcano PodGroup gate the same pods twice"},
    {"id": RULE_TAS, "family": "kueue", "applies_to": "JobSet",
     "description": "Topology-Aware-Scheduling pod-set annotations are consistent (jobframework tas_validation.go)"},
    {"id": RULE_REQUESTS, "family": "kueue", "applies_to": "JobSet",
     "description": "warning: kueue profile: every container requests cpu and memory (or sets limits), so that quota counts it"},
    {"id": RULE_QUOTA, "family": "kueue", "applies_to": "TrainJob",
     "description": "the TrainJob's total requests can fit its ClusterQueue (nominal quota plus borrowing limit)"},
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


def queue_for(trainjob: dict, queues: dict) -> tuple[str | None, str]:
    """(LocalQueue name, where it came from)."""
    label = _labels(trainjob).get(QUEUE_LABEL)
    if label:
        return label, f"label {QUEUE_LABEL}"
    namespace = dig(trainjob, "metadata", "namespace") or ""
    if namespace in queues:
        return queues[namespace], f"kueueQueues entry for namespace {namespace}"
    if "" in queues:
        return queues[""], "kueueQueues default"
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



def prepare(trainjob: dict, objects: list, profile: str, queues: dict) -> tuple[list, list]:
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
    queue, origin = queue_for(trainjob, queues)
    if not queue:
        problems.append(Problem(
            f"profile kueue: no LocalQueue for this TrainJob: set the label {QUEUE_LABEL} or a kueueQueues entry "
            "(the JobSet is rendered suspended, and without a queue nothing would ever resume it)",
            "metadata.labels", rule=RULE_QUEUE))
        return objects, problems
    from kpt_fn.validation.names import is_dns1123_subdomain

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
            problems += _request_problems(obj)
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


def _request_problems(jobset: dict) -> list:
    out = []
    for ps in workload.pod_sets(jobset):
        if isinstance(dig(ps.pod, "resources", "requests"), dict):
            continue  # pod-level resources cover every container
        for field, j, c in ps.containers():
            res = c.get("resources") or {}
            have = set(res.get("requests") or {}) | set(res.get("limits") or {})
            missing = [r for r in ("cpu", "memory") if r not in have]
            if missing:
                out.append(Problem(
                    f"container {c.get('name')} of replicated job {ps.name} requests no {' or '.join(missing)}: "
                    "Kueue counts it as 0 against the quota",
                    f"{ps.path}.{field}[{j}].resources", severity=WARNING, subject=jobset, rule=RULE_REQUESTS))
    return out


# --- TAS annotations (jobframework/tas_validation.go) -----------------------------------------


def _go_parse_int32(text: str) -> int | None:
    t = text[1:] if text[:1] in "+-" else text
    if not t.isdigit() or not t.isascii():
        return None
    value = int(text)
    return value if -(2**31) <= value < 2**31 else None


def check_tas(jobset: dict) -> list:
    """Kueue's admission checks of the TAS pod-set annotations on a JobSet's pod templates."""
    problems: list = []
    groups: dict[str, list] = {}
    for i, rj in enumerate(dig(jobset, "spec", "replicatedJobs") or ()):
        notes = dig(rj, *workload.POD_META, "annotations") or {}
        base = f"spec.replicatedJobs[{i}].template.spec.template.metadata.annotations"

        def err(key, message, _base=base):
            problems.append(Problem(message, f"{_base}[{key}]" if key else _base, subject=jobset, rule=RULE_TAS))

        required, preferred = notes.get(REQUIRED_TOPOLOGY), notes.get(PREFERRED_TOPOLOGY)
        found = [k for k in (REQUIRED_TOPOLOGY, PREFERRED_TOPOLOGY, UNCONSTRAINED_TOPOLOGY) if k in notes]
        if len(found) > 1:
            err("", f'must not contain more than one topology annotation: ["{REQUIRED_TOPOLOGY}", '
                    f'"{PREFERRED_TOPOLOGY}", "{UNCONSTRAINED_TOPOLOGY}"]')
        from kpt_fn.validation.names import is_qualified_name

        for key in (REQUIRED_TOPOLOGY, PREFERRED_TOPOLOGY, SLICE_REQUIRED_TOPOLOGY):
            if key in notes:
                for message in is_qualified_name(str(notes[key])):
                    err(key, f"Invalid value: {json.dumps(notes[key])}: {message}")
        slice_required, slice_size = SLICE_REQUIRED_TOPOLOGY in notes, SLICE_SIZE in notes
        if GROUP_NAME in notes:
            group = str(notes[GROUP_NAME])
            if group.isdigit() and group.isascii() and int(group) < 2**64:
                err(GROUP_NAME, f"Invalid value: {json.dumps(group)}: must not be a number")
            if slice_size:
                err(GROUP_NAME, f"Forbidden: may not be set when '{SLICE_SIZE}' is specified")
            if slice_required:
                err(GROUP_NAME, f"Forbidden: may not be set when '{SLICE_REQUIRED_TOPOLOGY}' is specified")
            if required is None and preferred is None:
                err(GROUP_NAME, f"Forbidden: may not be set when neither '{PREFERRED_TOPOLOGY}' nor '{REQUIRED_TOPOLOGY}' is specified")
            groups.setdefault(group, []).append((i, rj, required, preferred))
        if UNCONSTRAINED_TOPOLOGY in notes and str(notes[UNCONSTRAINED_TOPOLOGY]) not in _GO_BOOLS:
            err(UNCONSTRAINED_TOPOLOGY, f"Invalid value: {json.dumps(notes[UNCONSTRAINED_TOPOLOGY])}: must be a boolean value")
        if slice_size:
            size = _go_parse_int32(str(notes[SLICE_SIZE]))
            if size is None:
                err(SLICE_SIZE, f"Invalid value: {json.dumps(notes[SLICE_SIZE])}: must be a numeric value")
            elif size < 1:
                err(SLICE_SIZE, f"Invalid value: {json.dumps(notes[SLICE_SIZE])}: must be greater than or equal to 1")
            elif size > workload.pod_count(rj):
                err(SLICE_SIZE, f"Invalid value: {json.dumps(notes[SLICE_SIZE])}: must not be greater than pod set count {workload.pod_count(rj)}")
        if slice_required and not slice_size:
            err(SLICE_SIZE, f"Required value: must be set when '{SLICE_REQUIRED_TOPOLOGY}' is specified")
        if slice_size and not slice_required:
            err(SLICE_SIZE, f"Forbidden: may not be set when '{SLICE_REQUIRED_TOPOLOGY}' is not specified")
    for group, members in groups.items():
        problems += _group_problems(jobset, group, members)
    return problems


# strconv.ParseBool
_GO_BOOLS = {"1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False"}


def _group_problems(jobset: dict, group: str, members: list) -> list:
    def path(i):
        return f"spec.replicatedJobs[{i}].template.spec.template.metadata.annotations[{GROUP_NAME}]"

    if len(members) != 2:
        return [Problem(f"Invalid value: {json.dumps(group)}: can only define groups of exactly 2 pod sets, got: "
                        f"{len(members)} pod set(s)", path(i), subject=jobset, rule=RULE_TAS) for i, *_ in members]
    (i1, rj1, req1, pref1), (i2, rj2, req2, pref2) = members
    out = []
    c1, c2 = workload.pod_count(rj1), workload.pod_count(rj2)
    if c1 != 1 and c2 != 1:
        message = (f"Invalid value: {json.dumps(group)}: can only define groups where at least one pod set has only 1 "
                   f"replica, got: {c1} replica(s) and {c2} replica(s) in the group")
        out += [Problem(message, path(i1), subject=jobset, rule=RULE_TAS), Problem(message, path(i2), subject=jobset, rule=RULE_TAS)]
    consistent = (req1 is not None or pref1 is not None) and (req2 is not None or pref2 is not None) \
        and req1 == req2 and pref1 == pref2
    if not consistent:
        for i, other in ((i1, i2), (i2, i1)):
            out.append(Problem(
                f"must specify '{REQUIRED_TOPOLOGY}' or '{PREFERRED_TOPOLOGY}' topology consistent with "
                f"'spec.replicatedJobs[{other}].template.spec.template.metadata.annotations' in group '{group}'",
                f"spec.replicatedJobs[{i}].template.spec.template.metadata.annotations", subject=jobset, rule=RULE_TAS))
    return out


# --- quota fit -----------------------------------------------------------------------------------

KUEUE_GROUP = "kueue.x-k8s.io"


def is_kueue_object(obj: dict, kind: str) -> bool:
    api = obj.get("apiVersion")
    return obj.get("kind") == kind and isinstance(api, str) and api.split("/")[0] == KUEUE_GROUP


class Quotas:
    """ClusterQueues and LocalQueues found among the items, for the quota-fit check."""

    __slots__ = ("cluster_queues", "local_queues")

    def __init__(self, items):
        self.cluster_queues: dict[str, dict] = {}
        self.local_queues: dict[tuple, str] = {}
        for obj in items:
            if not isinstance(obj, dict):
                continue
            if is_kueue_object(obj, "ClusterQueue"):
                self.cluster_queues[dig(obj, "metadata", "name")] = obj
            elif is_kueue_object(obj, "LocalQueue"):
                cq = dig(obj, "spec", "clusterQueue")
                if isinstance(cq, str):
                    self.local_queues[(dig(obj, "metadata", "namespace") or "", dig(obj, "metadata", "name"))] = cq

    def __bool__(self):
        return bool(self.cluster_queues)


def _flavor_capacity(cq: dict) -> dict:
    """{resource: [(flavor, capacity or None when borrowing is unbounded)]}."""
    in_cohort = bool(dig(cq, "spec", "cohort") or dig(cq, "spec", "cohortName"))
    out: dict = {}
    for group in dig(cq, "spec", "resourceGroups") or ():
        for flavor in group.get("flavors") or ():
            for r in flavor.get("resources") or ():
                nominal = quantity.parse(r.get("nominalQuota", 0))
                borrow = r.get("borrowingLimit")
                if borrow is None:
                    cap = None if in_cohort else nominal
                else:
                    cap = nominal + quantity.parse(borrow)
                out.setdefault(r.get("name"), []).append((flavor.get("name"), cap))
    return out


def quota_problems(trainjob: dict, jobset: dict, quotas: Quotas, queue: str) -> list:
    """Whether the TrainJob's workload can ever be admitted by its ClusterQueue (only when the
    LocalQueue and ClusterQueue are among the items; otherwise nothing is known and nothing said)."""
    namespace = dig(trainjob, "metadata", "namespace") or ""
    cq_name = quotas.local_queues.get((namespace, queue))
    cq = quotas.cluster_queues.get(cq_name) if cq_name else None
    if cq is None:
        return []
    capacity = _flavor_capacity(cq)
    problems = []
    totals: dict = {}
    reported = set()
    for ps in workload.pod_sets(jobset):
        name, count, per_pod = ps.name, ps.count, ps.requests()
        for resource, q in per_pod.items():
            if not q:
                continue
            need = q * count
            totals[resource] = totals.get(resource, quantity.Quantity()) + need
            flavors = capacity.get(resource)
            if not flavors:
                problems.append(Problem(
                    f"pod set {name} requests {resource}, which ClusterQueue {cq_name} (LocalQueue {namespace}/{queue}) "
                    "does not cover: the workload can never be admitted", "spec", rule=RULE_QUOTA))
                continue
            caps = [c for _, c in flavors]
            if None not in caps and all(need > c for c in caps):
                reported.add(resource)
                best = max(caps)
                problems.append(Problem(
                    f"pod set {name} needs {quantity.canonical(need)} {resource} ({count} pod(s) x "
                    f"{quantity.canonical(q)}), more than any flavor of ClusterQueue {cq_name} can ever give "
                    f"(at most {quantity.canonical(best)} with borrowing): the workload stays Inadmissible",
                    "spec", rule=RULE_QUOTA))
    for resource, need in totals.items():
        caps = [c for _, c in capacity.get(resource) or ()]
        if caps and None not in caps and resource not in reported:
            whole = sum(caps[1:], caps[0])
            if need > whole:
                problems.append(Problem(
                    f"the workload needs {quantity.canonical(need)} {resource} in all, more than ClusterQueue "
                    f"{cq_name} can ever give ({quantity.canonical(whole)} over all flavors, with borrowing): "
                    "it stays Inadmissible", "spec", rule=RULE_QUOTA))
    return _unique(problems)


def _unique(problems: list) -> list:
    seen, out = set(), []
    for p in problems:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


# --- Argo CD ---------------------------------------------------------------------------------------


def argocd_ignore_differences() -> dict:
    """The part of an Argo CD Application that lets Kueue own what it changes on a JobSet: without it,
    self-heal re-suspends an admitted JobSet and strips the node selectors Kueue injected."""
    pod = ".spec.replicatedJobs[].template.spec.template"
    return {
        "spec": {
            "ignoreDifferences": [
                {
                    "group": "jobset.x-k8s.io",
                    "kind": "JobSet",
                    "jsonPointers": ["/spec/suspend"],
                    "jqPathExpressions": [
                        f"{pod}.spec.nodeSelector",
                        f"{pod}.spec.tolerations",
                        f"{pod}.spec.schedulingGates",
                        f"{pod}.metadata.labels",
                        f"{pod}.metadata.annotations",
                    ],
                }
            ],
            "syncPolicy": {"syncOptions": ["RespectIgnoreDifferences=true"]},
        }
    }
