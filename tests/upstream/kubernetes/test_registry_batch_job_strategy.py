"""Kubernetes' own TestJobStrategy_Validate cases for the Job strategy's selector rules (k8s/job-selector),
ported from pkg/registry/batch/job/strategy_test.go (kubernetes/kubernetes, the newest stored version;
the strategy itself: pkg/registry/batch/job/strategy.go generateSelector, and
pkg/apis/batch/validation/validation.go validateGeneratedSelector and ValidateJobSpec).

Upstream's Job is `myjob` with a fixed uid; here the Job is the one the JobSet controller creates for
replicated job `node` of JobSet `js` (one replica): `js-node-0`, with a uid made at creation. Upstream
calls Strategy.Validate on a Job PrepareForCreate has not seen, so its "no labels" cases count the
labels the strategy would have added as missing; through the API, PrepareForCreate adds them first,
and those cases are valid here. The cases after upstream's are the ones issue 32 found (a written
selector, with or without manualSelector, and a job-name label clash) with their valid controls.
"""

from __future__ import annotations

import pytest

from upstream.kubernetes.harness import INVALID, JOB_SPEC, REQUIRED, Place, case, check, params

POD = {"restartPolicy": "OnFailure", "containers": [{"name": "abc", "image": "image"}]}
JOB = Place(JOB_SPEC, root="spec", pod=POD)
NEVER_AB = "{metadata: {labels: {a: b}}, spec: {restartPolicy: Never}}"
NAME_LABELS = "{job-name: js-node-0, batch.kubernetes.io/job-name: js-node-0}"
UID = "<the Job's uid, set when the Job is created>"

T = "TestJobStrategy_Validate"


def C(name, text, *errors):
    return case(T, name, text, *errors)


UPSTREAM = [
    # upstream's batchLabels carry the uid too; a uid cannot be written ahead (see NOT_PORTED)
    C("valid job with batch labels in pod template", f"template: {{metadata: {{labels: {NAME_LABELS}}}}}"),
    C("valid job with batch and non-batch labels in pod template",
      "template: {metadata: {labels: {job-name: js-node-0, batch.kubernetes.io/job-name: js-node-0, a: b}}}"),
    C("job with non-batch labels and without batch labels in pod template", "template: {metadata: {labels: {a: b}}}"),
    C("no labels in job", "{}"),
    C("manual selector; do not generate labels",
      "{manualSelector: true, selector: {matchLabels: {a: b}}, completions: 2, template: {metadata: {labels: {a: b}}}}"),
    C("valid job with extended configuration",
      "{completions: 2, suspend: true, ttlSecondsAfterFinished: 0, completionMode: Indexed, "
      "template: {metadata: {labels: {a: b}}}}"),
    C("FailIndex action; when JobBackoffLimitPerIndex is enabled, but not used - validation error",
      "{manualSelector: true, selector: {matchLabels: {a: b}}, template: " + NEVER_AB + ", "
      "podFailurePolicy: {rules: [{action: FailIndex, onExitCodes: {operator: In, values: [1]}}]}}",
      (INVALID, "spec.podFailurePolicy.rules[0].action", "requires the backoffLimitPerIndex to be set")),
    C("FailIndex action; when JobBackoffLimitPerIndex is enabled and used - no error",
      "{completionMode: Indexed, completions: 2, backoffLimitPerIndex: 1, manualSelector: true, "
      "selector: {matchLabels: {a: b}}, template: " + NEVER_AB + ", "
      "podFailurePolicy: {rules: [{action: FailIndex, onExitCodes: {operator: In, values: [1]}}]}}"),
]

# What issue 32 found admitted although the strategy refuses the Job: each refusal and its controls.
REFUSED = [
    C("a written selector without manualSelector", "selector: {matchLabels: {app: train}}\n"
      "template: {metadata: {labels: {app: train}}}",
      (INVALID, "spec.selector", "`selector` not auto-generated")),
    C("a written selector with manualSelector: false", "{manualSelector: false, selector: {matchLabels: {app: train}}, "
      "template: {metadata: {labels: {app: train}}}}",
      (INVALID, "spec.selector", "`selector` not auto-generated")),
    C("a written selector naming a uid", "selector: {matchLabels: {batch.kubernetes.io/controller-uid: 1a2b}}",
      (INVALID, "spec.selector", "`selector` not auto-generated")),
    C("a selector naming another Job's name", "selector: {matchExpressions: [{key: job-name, operator: In, values: [x]}]}",
      (INVALID, "spec.selector", "`selector` not auto-generated")),
    C("manualSelector without a selector", "manualSelector: true", (REQUIRED, "spec.selector", "")),
    C("manualSelector with a selector the pod labels miss", "{manualSelector: true, selector: {matchLabels: {app: x}}, "
      "template: {metadata: {labels: {app: y}}}}",
      (INVALID, "spec.template.metadata.labels", "`selector` does not match template `labels`")),
    C("a pod label job-name of another value", "template: {metadata: {labels: {job-name: trainer}}}",
      (INVALID, "spec.template.metadata.labels[job-name]", "must be 'js-node-0'")),
    C("a pod label batch.kubernetes.io/job-name of another value",
      "template: {metadata: {labels: {batch.kubernetes.io/job-name: trainer}}}",
      (INVALID, "spec.template.metadata.labels[batch.kubernetes.io/job-name]", "must be 'js-node-0'")),
    C("a pod label controller-uid", "template: {metadata: {labels: {controller-uid: abc}}}",
      (INVALID, "spec.template.metadata.labels[controller-uid]", f"must be '{UID}'")),
    C("a pod label batch.kubernetes.io/controller-uid",
      "template: {metadata: {labels: {batch.kubernetes.io/controller-uid: abc}}}",
      (INVALID, "spec.template.metadata.labels[batch.kubernetes.io/controller-uid]", f"must be '{UID}'")),
]

CONTROLS = [
    C("control/a selector the generated labels satisfy (Exists)",
      "selector: {matchExpressions: [{key: batch.kubernetes.io/controller-uid, operator: Exists}]}"),
    C("control/a selector on the Job's own name", "selector: {matchLabels: {job-name: js-node-0}}"),
    C("control/a selector excluding another name (NotIn)",
      "selector: {matchExpressions: [{key: job-name, operator: NotIn, values: [other]}]}"),
    C("control/an empty selector (the strategy adds the uid)", "selector: {}"),
    C("control/a selector with manualSelector on a label JobSet sets",
      "{manualSelector: true, selector: {matchLabels: {jobset.sigs.k8s.io/jobset-name: js}}}"),
    C("control/a selector with manualSelector on a label JobSet sets with an unknown value",
      "{manualSelector: true, selector: {matchExpressions: [{key: jobset.sigs.k8s.io/job-key, operator: Exists}]}}"),
    C("control/manualSelector: false and no selector", "manualSelector: false"),
    C("control/job-name-like labels of other keys", "template: {metadata: {labels: {app.kubernetes.io/job-name: x, "
                                                    "example.com/controller-uid: y}}}"),
]


@pytest.mark.parametrize("case,where", params(UPSTREAM + REFUSED + CONTROLS, JOB))
def test_upstream_case(case, where):
    check(case, where)


def test_a_job_name_label_fits_only_one_replica():
    from upstream.kubernetes.harness import findings, place

    js = place({"template": {"metadata": {"labels": {"job-name": "js-node-0"}}}}, JOB)
    assert findings(js) == []
    js["spec"]["replicatedJobs"][0]["replicas"] = 2
    got = [(f.path, f.message) for f in findings(js)]
    assert got == [("spec.template.metadata.labels[job-name]",
                    'Invalid value: {"job-name":"js-node-0"}: must be \'js-node-1\'')]


# What TestJobStrategy_Validate checks that a JobSet's Job does not meet here, with the reason.
NOT_PORTED = {
    "the uid in batchLabels": "a Job's uid is made when the Job is created; a written controller-uid label can never "
                              "equal it, so it is refused (ported above as a refusal)",
    "fail validation due to invalid volume spec": "a volume without a source is defaulted to an emptyDir by the v1 "
                                                  "API (SetDefaults_Volume) before validation",
    "FailIndex action; when JobBackoffLimitPerIndex is disabled - validation error": "JobBackoffLimitPerIndex is GA "
                                                                                    "and on in 1.36",
    "TestJobStrategy_PrepareForUpdate, TestJobStrategy_ValidateUpdate, TestStatusStrategy_*": "updates and status: "
                                                                                              "a JobSet's Jobs are created",
    "TestJobStrategy_WarningsOnCreate": "warnings, not refusals",
}


def test_not_ported_cases_say_why():
    assert all(reason.strip() for reason in NOT_PORTED.values())
