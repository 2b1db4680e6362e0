"""Which changes of a JobSet Kueue's webhook refuses on UPDATE, under `profile: kueue` (docs/lifecycle.md).

Kueue v0.19.2's JobSet webhook runs `ValidateUpdate` (pkg/controller/jobs/jobset/jobset_webhook.go
:110-131): the generic job checks `jobframework.ValidateJobOnUpdate` (pkg/controller/jobframework/
validation.go :107-119) and then the create checks on the new JobSet (the function's Kueue create
checks, kpt_fn/profiles/kueue_create.py, answer those for every render). The update checks compare labels and
annotations of the stored JobSet with the applied one, and most of them only while the JobSet runs
(`spec.suspend` false: admitted and started):

* the queue (`kueue.x-k8s.io/queue-name`) cannot change while it runs (:180-190, `ValidateImmutableField`),
  and cannot be emptied in a namespace with a `default` LocalQueue (that needs the cluster's queues:
  `default_queue` says whether one exists);
* the prebuilt workload's name cannot change while it runs (:192-200; the annotation when
  WorkloadIdentifierAnnotations, on by default since v0.18, and it is set, else the label);
* `kueue.x-k8s.io/max-exec-time-seconds` cannot change unless the JobSet is suspended before and after
  (:249-258);
* a WorkloadPriorityClass (`kueue.x-k8s.io/priority-class`) cannot be added while it runs, nor removed
  at all (:219-233);
* `kueue.x-k8s.io/elastic-job: "true"` cannot be added or removed (:212-217; ElasticJobsViaWorkloadSlices
  is on by default since v0.18);
* `kueue.x-k8s.io/admission-gated-by` cannot be added after the create, and its gates can only be
  removed (pkg/util/webhook/validation_admissiongatedby.go :45-85; AdmissionGatedBy is on by default
  since v0.19). The format checks of both annotations are create checks.

Feature gates default as in pkg/features/kube_features.go at v0.19.2; `gates` overrides them (the
upstream test table sets some).
"""

from __future__ import annotations

from kpt_fn.problems import Refusal
from kpt_fn.profiles.kueue_names import ELASTIC_JOB_ANNOTATION as ELASTIC
from kpt_fn.profiles.kueue_names import MAX_EXEC_TIME_LABEL as MAX_EXEC_TIME
from kpt_fn.profiles.kueue_names import PRIORITY_LABEL as PRIORITY_CLASS
from kpt_fn.profiles.kueue_names import QUEUE_LABEL as QUEUE

PREBUILT = "kueue.x-k8s.io/prebuilt-workload-name"  # the label's key and the annotation's alike
ADMISSION_GATED_BY = "kueue.x-k8s.io/admission-gated-by"
RULE = "kueue-webhook/update"

WORKLOAD_IDENTIFIER_ANNOTATIONS = "WorkloadIdentifierAnnotations"
ELASTIC_JOBS = "ElasticJobsViaWorkloadSlices"
ADMISSION_GATED = "AdmissionGatedBy"
DEFAULT_GATES = {WORKLOAD_IDENTIFIER_ANNOTATIONS: True, ELASTIC_JOBS: True, ADMISSION_GATED: True}

IMMUTABLE = "field is immutable"  # apimachinery's FieldImmutableErrorMsg


def _meta(obj: dict, part: str) -> dict:
    value = (obj.get("metadata") or {}).get(part) if isinstance(obj, dict) else None
    return value if isinstance(value, dict) else {}


def _label(obj: dict, key: str) -> str:
    value = _meta(obj, "labels").get(key)
    return value if isinstance(value, str) else ""


def _annotation(obj: dict, key: str):
    """The annotation's value, None when absent (admission-gated-by tells absent from empty)."""
    value = _meta(obj, "annotations").get(key)
    return value if isinstance(value, str) else None


def suspended(jobset: dict) -> bool:
    spec = jobset.get("spec") if isinstance(jobset, dict) else None
    return isinstance(spec, dict) and spec.get("suspend") is True


def _label_path(key: str) -> str:
    return f"metadata.labels[{key}]"


def _annotation_path(key: str) -> str:
    return f"metadata.annotations[{key}]"


def _prebuilt(obj: dict, gates: dict) -> str:
    if gates[WORKLOAD_IDENTIFIER_ANNOTATIONS] and _annotation(obj, PREBUILT):
        return _annotation(obj, PREBUILT)
    return _label(obj, PREBUILT)


def _prebuilt_path(obj: dict, gates: dict) -> str:
    annotation = _annotation(obj, PREBUILT) or ""
    if (gates[WORKLOAD_IDENTIFIER_ANNOTATIONS] or len(annotation) > 63) and annotation:
        return _annotation_path(PREBUILT)
    return _label_path(PREBUILT)


def _elastic(obj: dict, gates: dict) -> bool:
    return gates[ELASTIC_JOBS] and _annotation(obj, ELASTIC) == "true"


def _gates(value: str) -> list:
    """Kueue's csv.Parse: comma-separated names, spaces around each removed; none for a blank value."""
    return [] if not value.strip() else [part.strip() for part in value.split(",")]


def refusals(old: dict, new: dict, default_queue: bool = False, gates: dict | None = None) -> list[Refusal]:
    """ValidateJobOnUpdate of Kueue v0.19.2 on the stored JobSet `old` and the applied `new` (their
    `spec.suspend` decides what runs). `default_queue`: the namespace has a LocalQueue named `default`."""
    g = {**DEFAULT_GATES, **(gates or {})}
    out = []
    running = not suspended(new)
    # validateUpdateForQueueName
    if running and _label(new, QUEUE) != _label(old, QUEUE):
        out.append(Refusal(_label_path(QUEUE), IMMUTABLE, RULE))
    if not _label(new, QUEUE) and _label(old, QUEUE) and default_queue:
        out.append(Refusal(_label_path(QUEUE), "queue-name must not be empty in namespace with default queue", RULE))
    # validateUpdateForPrebuiltWorkload (suspended or elastic: the create checks, answered elsewhere)
    if running and not _elastic(old, g) and _prebuilt(new, g) != _prebuilt(old, g):
        out.append(Refusal(_prebuilt_path(new, g), IMMUTABLE, RULE))
    # validateUpdateForMaxExecTime
    if (running or not suspended(old)) and _label(new, MAX_EXEC_TIME) != _label(old, MAX_EXEC_TIME):
        out.append(Refusal(_label_path(MAX_EXEC_TIME), IMMUTABLE, RULE))
    # ValidateUpdateForWorkloadPriorityClassName: one error at most
    if running and not _label(old, PRIORITY_CLASS) and _label(new, PRIORITY_CLASS):
        out.append(Refusal(_label_path(PRIORITY_CLASS), "WorkloadPriorityClass cannot be added to a non-suspended workload", RULE))
    elif not _label(new, PRIORITY_CLASS) and _label(old, PRIORITY_CLASS):
        out.append(Refusal(_label_path(PRIORITY_CLASS), "WorkloadPriorityClass cannot be removed from a workload", RULE))
    # validatedUpdateForEnabledWorkloadSlice
    if _elastic(old, g) != _elastic(new, g):
        out.append(Refusal(_annotation_path(ELASTIC), IMMUTABLE, RULE))
    if g[ADMISSION_GATED]:
        out += _admission_gated_by(old, new)
    return out


def _admission_gated_by(old: dict, new: dict) -> list[Refusal]:
    """ValidateAdmissionGatedByAnnotationOnUpdate, without the format checks of the new value."""
    before, after = _annotation(old, ADMISSION_GATED_BY) or "", _annotation(new, ADMISSION_GATED_BY) or ""
    out = []
    if not before and after:
        out.append(Refusal(_annotation_path(ADMISSION_GATED_BY), "cannot add admission gate after creation", RULE))
    if before and after and any(gate not in _gates(before) for gate in _gates(after)):
        out.append(Refusal(_annotation_path(ADMISSION_GATED_BY), "can only remove gates, not add new ones", RULE))
    return out
