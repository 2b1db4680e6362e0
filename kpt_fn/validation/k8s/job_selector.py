"""The Job strategy's selector rules: what the API server does with a Job's `selector` and pod labels.

When the JobSet controller creates a Job, the Job strategy (Kubernetes v1.36
pkg/registry/batch/job/strategy.go, PrepareForCreate -> generateSelectorIfNeeded -> generateSelector;
`manualSelector` defaults to false, pkg/apis/batch/v1/defaults.go SetDefaults_Job) adds the labels
`job-name`, `batch.kubernetes.io/job-name` (the Job's name), `controller-uid` and
`batch.kubernetes.io/controller-uid` (the Job's uid) to the pod template, each only where the template
does not carry it already, and adds `batch.kubernetes.io/controller-uid` to the selector's matchLabels.
Validation (pkg/apis/batch/validation/validation.go validateGeneratedSelector, ValidateJobSpec) then
refuses the Job when

* a template label among those four holds another value than the generated one (the user's value is
  kept, ValidateHasLabel: `must be '<name>'`); the uid is made at creation, so no written
  `controller-uid` value can ever be right;
* a written selector does not select the generated labels ("`selector` not auto-generated");
* with `manualSelector: true`: the selector is missing (Required), or does not select the template's
  labels ("`selector` does not match template `labels`").

A Job the API server refuses is never created: the JobSet's pods never start. The Job's name is
`<jobset>-<replicatedJob>-<index>` (JobSet's placement.GenJobName), one per replica, so a written
`job-name` can match only a replicated job of one replica.

The uid and some labels the JobSet controller adds (`jobset.sigs.k8s.io/job-key`, ...) are unknown
here: a selector term about them is counted as matching, so that an unknown value never invents an
error; a written value for the uid is the one exception (it cannot be known before creation).
"""

from __future__ import annotations

from kpt_fn.apimachinery.field import child, key
from kpt_fn.validation.k8s import scheduling
from kpt_fn.validation.k8s.findings import as_dict, as_int, as_list, as_str

RULE = "k8s/job-selector"

JOB_NAME_LABELS = ("job-name", "batch.kubernetes.io/job-name")  # LegacyJobNameLabel, JobNameLabel
UID_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")  # LegacyControllerUidLabel, ControllerUidLabel
UID = "<the Job's uid, set when the Job is created>"
NOT_GENERATED = "`selector` not auto-generated"
NOT_MATCHING = "`selector` does not match template `labels`"

_UNKNOWN = object()  # a label the Job will carry with a value not known before it is created


def job_names(jobset_name, rjob_name, replicas) -> list[str]:
    """The names of the first Jobs of a replicated job (two are enough to tell one from many)."""
    if not isinstance(jobset_name, str) or not isinstance(rjob_name, str):
        return []
    count = as_int(replicas)
    count = 1 if count is None else count
    return [f"{jobset_name}-{rjob_name}-{i}" for i in range(max(0, min(count, 2)))]


def check(spec: dict, labels, names: list[str], known_labels: dict, path: str, f) -> None:
    """`spec` is a replicated job's Job spec at `path`; `labels` its pod template's labels as written;
    `names` the names of its Jobs; `known_labels` what the JobSet controller adds to the template that
    is known here (the other keys it adds count as present with an unknown value)."""
    labels = {k: v for k, v in as_dict(labels).items() if isinstance(k, str)}
    selector = spec.get("selector")
    labels_path = child(path, "template.metadata.labels")
    if spec.get("manualSelector") is True:
        _manual(selector, labels, known_labels, path, labels_path, f)
        return
    for k in UID_LABELS:
        if k in labels:
            f.invalid(RULE, key(labels_path, k), labels, f"must be '{UID}'")
    for k in JOB_NAME_LABELS:
        wrong = [n for n in names if labels.get(k, n) != n]
        if wrong:
            f.invalid(RULE, key(labels_path, k), labels, f"must be '{wrong[0]}'")
    if not isinstance(selector, dict):
        return
    scheduling.label_selector(selector, child(path, "selector"), RULE, f)
    for name in names:
        expected = {k: name for k in JOB_NAME_LABELS} | {k: _UNKNOWN for k in UID_LABELS}
        if _selects(selector, expected, uid_keys=UID_LABELS) is False:
            f.invalid(RULE, child(path, "selector"), selector, NOT_GENERATED)
            break
    # the generated labels always satisfy the selector's match with the template too (upstream's
    # second check): the selector just matched them, and the template carries them


def _manual(selector, labels: dict, known_labels: dict, path: str, labels_path: str, f) -> None:
    if selector is None:
        f.required(RULE, child(path, "selector"))
        return
    if not isinstance(selector, dict):
        return  # the schema check's
    scheduling.label_selector(selector, child(path, "selector"), RULE, f)
    # the JobSet controller's labels overwrite the template's own (labelAndAnnotateObject)
    template = {**labels, **{k: _UNKNOWN for k in scheduling.JOBSET_POD_LABELS}, **known_labels}
    if _selects(selector, template) is False:
        f.invalid(RULE, labels_path, labels, NOT_MATCHING)


def _selects(selector: dict, labels: dict, uid_keys=()):
    """metav1.LabelSelectorAsSelector(selector).Matches(labels): True, False, or None where a label's
    value is unknown. None too for a selector that does not convert (its errors are reported by the
    selector's own validation, and upstream then skips the match)."""
    result = True
    terms = [(k, "In", [v]) for k, v in as_dict(selector.get("matchLabels")).items()]
    for expr in as_list(selector.get("matchExpressions")):
        expr = as_dict(expr)
        terms.append((expr.get("key"), expr.get("operator"), as_list(expr.get("values"))))
    for k, op, values in terms:
        if not isinstance(k, str) or any(as_str(v) is None for v in values):
            return None
        present = k in labels
        value = labels.get(k)
        if op in ("In", "NotIn"):
            if not values:
                return None
            if value is _UNKNOWN:
                # the uid cannot be written ahead: equality with it never holds
                hit = False if k in uid_keys else None
            else:
                hit = present and value in values
            if op == "NotIn" and hit is not None:
                hit = not hit
        elif op == "Exists":
            hit = present
        elif op == "DoesNotExist":
            hit = not present
        else:
            return None
        if hit is False:
            return False
        if hit is None:
            result = None
    return result
