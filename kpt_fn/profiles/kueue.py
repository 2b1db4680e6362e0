"""The `kueue` output profile: a rendered JobSet that Kueue's JobSet integration will manage.

In a cluster with the Trainer controller, Kueue manages the TrainJob and the controller creates the
JobSet. In a cluster without it, the JobSet from Git is what Kueue sees, so what Kueue reads from a
TrainJob must be on the JobSet instead (kubernetes-sigs/kueue v0.19, read for every rule below):

- queue and priority: `jobframework.QueueNameForObject` / `WorkloadPriorityClassName` read the
  `kueue.x-k8s.io/queue-name` and `kueue.x-k8s.io/priority-class` labels of the job object itself
  (pkg/controller/constants/constants.go); Trainer does not copy TrainJob labels to the JobSet
  (pkg/runtime/core/trainingruntime.go), so without this profile the queue is lost;
- suspend: Kueue's JobSet webhook suspends, on create, every JobSet that carries a queue-name label
  (`JobSetWebhook.Default`, pkg/controller/jobs/jobset/jobset_webhook.go :75-90 at v0.19.2;
  `ApplyDefaultForSuspend`, jobframework/defaults.go :36-46; `WorkloadShouldBeSuspended`, utils.go
  :147-150), and its reconciler unsuspends it on admission (`RunWithPodSetsInfo`,
  jobs/jobset/jobset_controller.go), which also merges node selectors, tolerations, labels,
  annotations and scheduling gates into the pod templates (`podset.Merge`). The profile renders **no**
  `spec.suspend` (as Kueue's own example JobSet): the JobSet is queued the same way, and `spec.suspend`
  is then in no apply of the render, so a server-side apply after admission has nothing to conflict on
  with Kueue (docs/lifecycle.md). The cost, and its guard: where Kueue's JobSet integration is off its
  webhook is a no-op (jobset_webhook.go :60-61) and such a JobSet starts at once; the profile requires
  a LocalQueue for every JobSet (an error otherwise), and docs/kueue.md gives the one check of the
  cluster's Kueue configuration to make before the first sync;
- MultiKueue: a TrainJob `managedBy: kueue.x-k8s.io/multikueue` becomes the JobSet's
  `spec.managedBy` (jobs/jobset/jobset_multikueue_adapter.go reads it; JobSet v0.12 has the field),
  so worker clusters only need JobSet;
- max-exec-time: `kueue.x-k8s.io/max-exec-time-seconds` (validateCreateForMaxExecTime: a positive
  integer) deactivates a workload after that much *admitted* time, the nearest thing to Trainer's
  `activeDeadlineSeconds` (which fails the TrainJob that long after creation or the last resume).

Checks Kueue makes when the JobSet is created are rules here: the Topology-Aware-Scheduling pod-set
annotations (profiles/kueue_tas.py), the max-exec-time label and the elastic-job annotation
(`jobframework.ValidateJobOnCreate`); and what would leave the JobSet suspended for ever: more pod
sets than a Workload holds, and requests that can never fit the ClusterQueue (the quota fit).

The profile is this module (queue resolution, the JobSet transform, MultiKueue); beside it
kueue_names (labels, rule ids, RULES), kueue_create (Kueue's create checks), kueue_quota (the quota
fit) and kueue_tas (the TAS annotations, checked under every profile).
"""

from __future__ import annotations

from kpt_fn.argocd import SERVER_SIDE_APPLY, with_sync_option
from kpt_fn.problems import INFO, WARNING, Problem
from kpt_fn.profiles.controller import Controller
from kpt_fn.profiles.kueue_create import create_problems, request_problems, stale_runtime_patches
from kpt_fn.profiles.kueue_names import (DEFAULT_LOCAL_QUEUE, MAX_EXEC_TIME_LABEL, MULTIKUEUE, PRIORITY_LABEL,
                                         QUEUE_LABEL, RULE_DOUBLE_GANG, RULE_MAX_EXEC, RULE_QUEUE, RULE_QUEUE_UNCHECKED,
                                         labels as _labels)
from kpt_fn.profiles import kueue_update
from kpt_fn.profiles.kueue_quota import Quotas, quota_problems
from kpt_fn.resource import dig


class Kueue(Controller):
    """A JobSet that Kueue's JobSet integration manages in a cluster without the Trainer controller
    (docs/kueue.md)."""

    @staticmethod
    def update_refusals(live: dict, applied: dict) -> list:
        """Kueue's webhook on UPDATE (profiles/kueue_update.py: the queue, priority class and the rest
        it refuses while the JobSet runs)."""
        return kueue_update.refusals(live, applied)

    def __init__(self, cfg, items: list, queues: dict):
        super().__init__(cfg, items, queues)
        self.queues = queues
        self.quotas = Quotas(items)  # ClusterQueues and LocalQueues among the items

    def before_engine(self, trainjob: dict) -> dict:
        # A MultiKueue TrainJob is rendered (for the management cluster) instead of being left to
        # another controller.
        spec = trainjob.get("spec")
        if not isinstance(spec, dict) or spec.get("managedBy") != MULTIKUEUE:
            return trainjob
        return {**trainjob, "spec": {k: v for k, v in spec.items() if k != "managedBy"}}

    def after_engine(self, trainjob: dict, objects: list, problems: list) -> tuple[list, list]:
        objects, more = prepare(trainjob, objects, self.queues, self.quotas)
        return objects, problems + more

    def unrendered(self, trainjob: dict, objects: list) -> list:
        # No controller enforces activeDeadlineSeconds here: Kueue's max-exec-time label stands in
        # (rendered), and prepare() says how it differs.
        return []

    def created(self, jobset: dict) -> dict:
        # Kueue's admission changes the pod templates of a running JobSet, which a client-side apply's
        # JSON merge patch would take back (refused); a server-side apply leaves them to their owner.
        return with_sync_option(jobset, SERVER_SIDE_APPLY)

    def check(self, trainjob: dict, jobset: dict, blame=None) -> list:
        problems = super().check(trainjob, jobset, blame)
        problems += request_problems(jobset, self.quotas.limit_ranges(jobset), blame, trainjob)
        if self.quotas:
            queue, _ = queue_for(trainjob, self.queues, self.quotas)
            problems += quota_problems(trainjob, jobset, self.quotas, queue or "", blame)
        return problems


# --- settings ------------------------------------------------------------------------------------


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


def _queue_field(origin: str) -> str:
    """The field to change for a queue name from `origin` (queue_for's wording)."""
    if origin.startswith("label"):
        return f"metadata.labels[{QUEUE_LABEL}]"
    if origin.startswith("kueueQueues"):
        return "kueueQueues"  # the functionConfig's option
    return "spec.runtimeRef"  # the runtime's template metadata


def queue_problem(trainjob: dict, queue: str, origin: str, quotas: Quotas | None) -> Problem | None:
    """Whether LocalQueue `queue` can exist: an error when LocalQueues of the TrainJob's namespace
    are among the inputs and none has that name (Kueue keeps a Workload of an unknown LocalQueue
    inadmissible: kueue v0.19 pkg/controller/core/workload_controller.go Reconcile, `case !lqExists`:
    the Workload is marked Inadmissible, "LocalQueue %s doesn't exist", and the
    suspended JobSet waits forever), with the closest name; an always-shown info when none are there
    (the name could not be checked); None when it is one of them. A LocalQueue written without a
    namespace goes to the run's namespace, which is the TrainJob's when it names none: it counts."""
    namespace = dig(trainjob, "metadata", "namespace") or ""
    known = sorted({name for ns, name in (quotas.local_queues if quotas is not None else {})
                    if ns in (namespace, "") and isinstance(name, str)})
    where = f"namespace {namespace}" if namespace else "the TrainJob's namespace"
    if not known:
        return Problem(f"profile kueue: LocalQueue {queue!r} (from {origin}) could not be checked: no LocalQueue of "
                       f"{where} among the inputs (add them to check the name and the quota)",
                       _queue_field(origin), severity=INFO, rule=RULE_QUEUE_UNCHECKED)
    if queue in known:
        return None
    import difflib

    close = difflib.get_close_matches(queue, known, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return Problem(f"profile kueue: LocalQueue {queue!r} (from {origin}) is none of the LocalQueues of {where} among "
                   f"the inputs ({', '.join(known)}): Kueue would never admit the JobSet, which would stay suspended"
                   + hint, _queue_field(origin), rule=RULE_QUEUE)


# --- the JobSet ----------------------------------------------------------------------------------


def prepare(trainjob: dict, objects: list, queues: dict, quotas: Quotas | None = None) -> tuple[list, list]:
    """(objects, problems): the generated objects as the profile wants them, and what the user must know."""
    problems = stale_runtime_patches(trainjob)
    if not objects:
        return objects, problems
    jobset = next((o for o in objects if o.get("kind") == "JobSet"), None)
    queue, origin = queue_for(trainjob, queues, quotas, jobset)
    if not queue:
        problems.append(Problem(
            f"profile kueue: no LocalQueue for this TrainJob: set the label {QUEUE_LABEL} or a kueueQueues entry, or "
            f"add the namespace's LocalQueue {DEFAULT_LOCAL_QUEUE} to the inputs "
            "(the JobSet is rendered without spec.suspend: only a queue-name label makes Kueue's webhook suspend it "
            "on create; without one it would start at once, unmanaged)",
            f"metadata.labels[{QUEUE_LABEL}]", rule=RULE_QUEUE))
        return objects, problems
    from kpt_fn.apimachinery.validation import is_dns1123_subdomain

    wrong = is_dns1123_subdomain(queue)
    if wrong:
        problems.append(Problem(f"profile kueue: LocalQueue name {queue!r} (from {origin}) is invalid: {'; '.join(wrong)}",
                                _queue_field(origin), rule=RULE_QUEUE))
        return objects, problems
    checked = queue_problem(trainjob, queue, origin, quotas)
    if checked is not None:
        problems.append(checked)
        if checked.severity != INFO:
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
        elif obj.get("kind") == "PodGroup":
            problems.append(Problem(
                f"PodGroup {dig(obj, 'metadata', 'name')} ({obj.get('apiVersion')}) and Kueue both gate these pods: "
                "Kueue admits the whole workload at once already; keep one (drop podGroupPolicy from the runtime, and "
                "use Kueue's waitForPodsReady for all-or-nothing start), or leave the profile",
                "spec.runtimeRef", severity=WARNING, rule=RULE_DOUBLE_GANG))
        out.append(obj)
    problems.append(Problem(f"profile kueue: JobSet queued in LocalQueue {queue} ({origin}), rendered without "
                            "spec.suspend: Kueue's JobSet webhook suspends it on create and Kueue resumes it on "
                            "admission (where Kueue's JobSet integration is off it starts at once: docs/kueue.md)",
                            # at the TrainJob's queue-name label when it names the queue (its line), else the object
                            _queue_field(origin) if origin.startswith("label") else "",
                            severity=INFO, rule=RULE_QUEUE))
    return out, problems


def _kueue_jobset(jobset: dict, labels: dict, multikueue: bool) -> dict:
    metadata = dict(jobset.get("metadata") or {})
    metadata["labels"] = {**(metadata.get("labels") or {}), **labels}
    spec = dict(jobset.get("spec") or {})
    # Kueue's webhook suspends it on create; Kueue owns the field from then on (module docstring).
    spec.pop("suspend", None)
    if multikueue:
        spec["managedBy"] = MULTIKUEUE
    return {**jobset, "metadata": metadata, "spec": spec}
