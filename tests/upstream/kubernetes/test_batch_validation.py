"""Kubernetes' own TestValidateJob table cases for the Job rule families (k8s/job,
k8s/job-restart-policy), ported from pkg/apis/batch/validation/validation_test.go (snapshot and
version: docs/validation.md, "Where the cases and messages come from").

Each case is upstream's Job spec written as the YAML a user puts in a replicated job's template, in a
rendered JobSet (tests/upstream/kubernetes/harness.py); the pod template is upstream's
getValidPodTemplateSpecForGenerated (containers `abc`, init container `def`, restartPolicy
OnFailure), `restartPolicy: Never` where upstream uses its Never variant. Upstream's error-case key is
"<field>: <message>" and its test checks the first error; here each expected error is (type, field,
detail) and no finding may name another field. Two things differ from a bare Job by design: the
JobSet webhook defaults completionMode to Indexed, so a case about a NonIndexed Job says so, and the
Job defaults (parallelism and completions 1 when both are unset) apply before validation.
"""

from __future__ import annotations

import pytest

from upstream.kubernetes.harness import (DUPLICATE, INVALID, JOB_SPEC, REQUIRED, TOO_LONG, TOO_MANY, UNSUPPORTED, Place,
                                         case, check, params)

GENERATED = {"restartPolicy": "OnFailure", "containers": [{"name": "abc", "image": "image"}],
             "initContainers": [{"name": "def", "image": "image"}]}
JOB = Place(JOB_SPEC, root="spec", pod=GENERATED)
NEVER = "template: {spec: {restartPolicy: Never}}\n"
NEGATIVE = "must be greater than or equal to 0"
HIGH = "when completions are above 100000 and used with backoff limit per index"

T = "TestValidateJob"


def C(name, text, *errors):
    return case(T, name, text, *errors)


def _rules(n, rule):
    return "[" + ", ".join(rule(i) for i in range(n)) + "]"


SUCCESS = [
    C("success/valid success policy", NEVER + """
completionMode: Indexed
completions: 10
successPolicy:
  rules: [{succeededCount: 1, succeededIndexes: '0,2,4'}, {succeededIndexes: '1,3,5-9'}]
"""),
    C("success/valid pod failure policy", NEVER + """
podFailurePolicy:
  rules:
  - {action: Ignore, onPodConditions: [{type: DisruptionTarget, status: 'True'}]}
  - {action: FailJob, onPodConditions: [{type: CustomConditionType, status: 'False'}]}
  - {action: Count, onExitCodes: {containerName: abc, operator: In, values: [1, 2, 3]}}
  - {action: Ignore, onExitCodes: {containerName: def, operator: In, values: [4]}}
  - {action: FailJob, onExitCodes: {operator: NotIn, values: [5, 6, 7]}}
"""),
    C("success/valid pod failure policy with FailIndex", NEVER + """
completionMode: Indexed
completions: 2
backoffLimitPerIndex: 1
podFailurePolicy:
  rules: [{action: FailIndex, onExitCodes: {operator: In, values: [10]}}]
"""),
    C("success/valid generated selector", "{}"),
    C("success/valid pod replacement", "podReplacementPolicy: TerminatingOrFailed"),
    C("success/valid pod replacement with failed", "podReplacementPolicy: Failed"),
    C("success/valid hostnet", "template: {spec: {hostNetwork: true, containers: [{name: abc, image: image, "
                               "ports: [{containerPort: 12345, protocol: TCP}]}]}}"),
    C("success/valid NonIndexed completion mode", "completionMode: NonIndexed"),
    C("success/valid Indexed completion mode", "{completionMode: Indexed, completions: 2, parallelism: 100000}"),
    C("success/valid parallelism and maxFailedIndexes for high completions when backoffLimitPerIndex is used",
      "{completions: 100000, parallelism: 100000, maxFailedIndexes: 100000, backoffLimitPerIndex: 1, completionMode: Indexed}"),
    C("success/valid parallelism and maxFailedIndexes for unlimited completions when backoffLimitPerIndex is used",
      "{completions: 1000000000, parallelism: 10000, maxFailedIndexes: 10000, backoffLimitPerIndex: 1, completionMode: Indexed}"),
    C("success/valid managedBy field", "managedBy: example.com/foo"),
    # upstream's Required case below, as the API server sees it: batch/v1 defaulting
    # (SetDefaults_PodFailurePolicyOnPodConditionsPattern) sets the missing status to True first
    C("success/onPodConditions without status (defaulted to True)",
      NEVER + "podFailurePolicy: {rules: [{action: Ignore, onPodConditions: [{type: DisruptionTarget}]}]}"),
    C("success/onPodConditions with an empty status (defaulted to True)",
      NEVER + "podFailurePolicy: {rules: [{action: Ignore, onPodConditions: [{type: DisruptionTarget, status: ''}]}]}"),
]

ERRORS = [
    # upstream's snapshot words it "may not be longer than 63"; apimachinery v0.36 field.TooLong says
    # "may not be more than 63 bytes": the type and field are compared
    C("spec.managedBy: Too long: may not be longer than 63", "managedBy: example.com/" + "x" * 60,
      (TOO_LONG, "spec.managedBy", "")),
    C('spec.managedBy: Invalid value: "invalid custom controller name": must be a domain-prefixed path (such as "acme.io/foo")',
      "managedBy: invalid custom controller name",
      (INVALID, "spec.managedBy", 'must be a domain-prefixed path (such as "acme.io/foo")')),
    C("spec.successPolicy: Invalid value: batch.SuccessPolicy{Rules:[]batch.SuccessPolicyRule{}}: requires indexed completion mode",
      "{template: {spec: {restartPolicy: Never}}, completionMode: NonIndexed, successPolicy: {rules: []}}",
      (INVALID, "spec.successPolicy", "requires indexed completion mode")),
    C("spec.successPolicy.rules: Required value: at least one rules must be specified when the successPolicy is specified",
      "{template: {spec: {restartPolicy: Never}}, completionMode: Indexed, completions: 5, successPolicy: {}}",
      (REQUIRED, "spec.successPolicy.rules", "at least one rules must be specified when the successPolicy is specified")),
    C("spec.successPolicy.rules[0]: Required value: at least one of succeededCount or succeededIndexes must be specified",
      "{template: {spec: {restartPolicy: Never}}, completionMode: Indexed, completions: 5, successPolicy: {rules: [{}]}}",
      (REQUIRED, "spec.successPolicy.rules[0]", "at least one of succeededCount or succeededIndexes must be specified")),
    C('spec.successPolicy.rules[0].succeededIndexes: Invalid value: "invalid-format": error parsing succeededIndexes: '
      'cannot convert string to integer for index: "invalid"',
      "{template: {spec: {restartPolicy: Never}}, completionMode: Indexed, completions: 5, successPolicy: {rules: [{succeededIndexes: invalid-format}]}}",
      (INVALID, "spec.successPolicy.rules[0].succeededIndexes",
       'error parsing succeededIndexes: cannot convert string to integer for index: "invalid"')),
    C("spec.successPolicy.rules[0].succeededIndexes: Too long: must have at most 65536 bytes",
      "{template: {spec: {restartPolicy: Never}}, completionMode: Indexed, completions: 5, successPolicy: {rules: [{succeededIndexes: '" + "1" * 65537 + "'}]}}",
      (TOO_LONG, "spec.successPolicy.rules[0].succeededIndexes", "")),
    C("spec.successPolicy.rules[0].succeededCount: must be greater than or equal to 0",
      "{template: {spec: {restartPolicy: Never}}, completionMode: Indexed, completions: 5, successPolicy: {rules: [{succeededCount: -1}]}}",
      (INVALID, "spec.successPolicy.rules[0].succeededCount", NEGATIVE)),
    C("spec.successPolicy.rules[0].succeededCount: Invalid value: 6: must be less than or equal to 5 (the number of specified completions)",
      "{template: {spec: {restartPolicy: Never}}, completionMode: Indexed, completions: 5, successPolicy: {rules: [{succeededCount: 6}]}}",
      (INVALID, "spec.successPolicy.rules[0].succeededCount", "must be less than or equal to 5 (the number of specified completions)")),
    C("spec.successPolicy.rules[0].succeededCount: Invalid value: 4: must be less than or equal to 3 "
      "(the number of indexes in the specified succeededIndexes field)",
      "{template: {spec: {restartPolicy: Never}}, completionMode: Indexed, completions: 5, successPolicy: {rules: [{succeededCount: 4, succeededIndexes: 0-2}]}}",
      (INVALID, "spec.successPolicy.rules[0].succeededCount",
       "must be less than or equal to 3 (the number of indexes in the specified succeededIndexes field)")),
    C("spec.successPolicy.rules: Too many: 21: must have at most 20 items",
      "{template: {spec: {restartPolicy: Never}}, completionMode: Indexed, completions: 5, successPolicy: {rules: " + _rules(21, lambda i: "{succeededCount: 5}") + "}}",
      (TOO_MANY, "spec.successPolicy.rules", "Too many: 21: must have at most 20 items")),
    C("spec.podFailurePolicy.rules[0]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required",
      NEVER + "podFailurePolicy: {rules: [{action: FailJob}]}",
      (INVALID, "spec.podFailurePolicy.rules[0]", "specifying one of OnExitCodes and OnPodConditions is required")),
    C("spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Duplicate value: 11",
      NEVER + "podFailurePolicy: {rules: [{action: FailJob, onExitCodes: {operator: In, values: [11, 11]}}]}",
      (DUPLICATE, "spec.podFailurePolicy.rules[0].onExitCodes.values[1]", "Duplicate value: 11")),
    # upstream's 256 values are 0..255: the 0 is refused for In as well (its test reads only errs[0])
    C("spec.podFailurePolicy.rules[0].onExitCodes.values: Too many: 256: must have at most 255 items",
      NEVER + "podFailurePolicy: {rules: [{action: FailJob, onExitCodes: {operator: In, values: "
      + str(list(range(256))) + "}}]}",
      (TOO_MANY, "spec.podFailurePolicy.rules[0].onExitCodes.values", "Too many: 256: must have at most 255 items"),
      (INVALID, "spec.podFailurePolicy.rules[0].onExitCodes.values[0]", "must not be 0 for the In operator")),
    C("spec.podFailurePolicy.rules: Too many: 21: must have at most 20 items",
      NEVER + "podFailurePolicy: {rules: " + _rules(21, lambda i: f"{{action: FailJob, onExitCodes: {{operator: In, values: [{i + 1}]}}}}") + "}",
      (TOO_MANY, "spec.podFailurePolicy.rules", "Too many: 21: must have at most 20 items")),
    C("spec.podFailurePolicy.rules[0].onPodConditions: Too many: 21: must have at most 20 items",
      NEVER + "podFailurePolicy: {rules: [{action: FailJob, onPodConditions: "
      + _rules(21, lambda i: f"{{type: CustomType_{i}, status: 'True'}}") + "}]}",
      (TOO_MANY, "spec.podFailurePolicy.rules[0].onPodConditions", "Too many: 21: must have at most 20 items")),
    C("spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 13",
      NEVER + "podFailurePolicy: {rules: [{action: FailJob, onExitCodes: {operator: In, values: [12, 13, 13, 13]}}]}",
      (DUPLICATE, "spec.podFailurePolicy.rules[0].onExitCodes.values[2]", "Duplicate value: 13"),
      (DUPLICATE, "spec.podFailurePolicy.rules[0].onExitCodes.values[3]", "Duplicate value: 13")),
    C("spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []int32{19, 11}: must be ordered",
      NEVER + "podFailurePolicy: {rules: [{action: FailJob, onExitCodes: {operator: In, values: [19, 11]}}]}",
      (INVALID, "spec.podFailurePolicy.rules[0].onExitCodes.values", "must be ordered")),
    C("spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []int32{}: at least one value is required",
      NEVER + "podFailurePolicy: {rules: [{action: FailJob, onExitCodes: {operator: In, values: []}}]}",
      (INVALID, "spec.podFailurePolicy.rules[0].onExitCodes.values", "at least one value is required")),
    C('spec.podFailurePolicy.rules[0].action: Required value: valid values: ["Count" "FailIndex" "FailJob" "Ignore"]',
      NEVER + "podFailurePolicy: {rules: [{action: '', onExitCodes: {operator: In, values: [1, 2, 3]}}]}",
      (REQUIRED, "spec.podFailurePolicy.rules[0].action", 'valid values: ["Count" "FailIndex" "FailJob" "Ignore"]')),
    C('spec.podFailurePolicy.rules[0].onExitCodes.operator: Required value: valid values: ["In" "NotIn"]',
      NEVER + "podFailurePolicy: {rules: [{action: FailJob, onExitCodes: {operator: '', values: [1, 2, 3]}}]}",
      (REQUIRED, "spec.podFailurePolicy.rules[0].onExitCodes.operator", 'valid values: ["In" "NotIn"]')),
    C("spec.podFailurePolicy.rules[0]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported",
      NEVER + "podFailurePolicy: {rules: [{action: FailJob, onExitCodes: {containerName: abc, operator: In, values: [1, 2, 3]}, "
      "onPodConditions: [{type: DisruptionTarget, status: 'True'}]}]}",
      (INVALID, "spec.podFailurePolicy.rules[0]", "specifying both OnExitCodes and OnPodConditions is not supported")),
    C("spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Invalid value: 0: must not be 0 for the In operator",
      NEVER + "podFailurePolicy: {rules: [{action: Ignore, onExitCodes: {operator: In, values: [1, 0, 2]}}]}",
      (INVALID, "spec.podFailurePolicy.rules[0].onExitCodes.values[1]", "must not be 0 for the In operator"),
      (INVALID, "spec.podFailurePolicy.rules[0].onExitCodes.values", "must be ordered")),
    C('spec.podFailurePolicy.rules[1].onExitCodes.containerName: Invalid value: "xyz": must be one of the container or '
      'initContainer names in the pod template',
      NEVER + "podFailurePolicy: {rules: [{action: Ignore, onExitCodes: {containerName: abc, operator: In, values: [1, 2, 3]}}, "
      "{action: FailJob, onExitCodes: {containerName: xyz, operator: In, values: [5, 6, 7]}}]}",
      (INVALID, "spec.podFailurePolicy.rules[1].onExitCodes.containerName",
       "must be one of the container or initContainer names in the pod template")),
    C('spec.podFailurePolicy.rules[0].action: Unsupported value: "UnknownAction": supported values: "Count", "FailIndex", "FailJob", "Ignore"',
      NEVER + "podFailurePolicy: {rules: [{action: UnknownAction, onExitCodes: {containerName: abc, operator: In, values: [1, 2, 3]}}]}",
      (UNSUPPORTED, "spec.podFailurePolicy.rules[0].action", 'supported values: "Count", "FailIndex", "FailJob", "Ignore"')),
    C('spec.podFailurePolicy.rules[0].onExitCodes.operator: Unsupported value: "UnknownOperator": supported values: "In", "NotIn"',
      NEVER + "podFailurePolicy: {rules: [{action: Ignore, onExitCodes: {operator: UnknownOperator, values: [1, 2, 3]}}]}",
      (UNSUPPORTED, "spec.podFailurePolicy.rules[0].onExitCodes.operator", 'supported values: "In", "NotIn"')),
    C('spec.podFailurePolicy.rules[0].onPodConditions[0].status: Unsupported value: "UnknownStatus": supported values: "False", "True", "Unknown"',
      NEVER + "podFailurePolicy: {rules: [{action: Ignore, onPodConditions: [{type: DisruptionTarget, status: UnknownStatus}]}]}",
      (UNSUPPORTED, "spec.podFailurePolicy.rules[0].onPodConditions[0].status", 'supported values: "False", "True", "Unknown"')),
    C('spec.podFailurePolicy.rules[0].onPodConditions[0].type: Invalid value: "": name part must be non-empty',
      NEVER + "podFailurePolicy: {rules: [{action: Ignore, onPodConditions: [{status: 'True'}]}]}",
      (INVALID, "spec.podFailurePolicy.rules[0].onPodConditions[0].type", "name part must be non-empty")),
    C('spec.podFailurePolicy.rules[0].onPodConditions[0].type: Invalid value: "Invalid Condition Type": name part must consist of ...',
      NEVER + "podFailurePolicy: {rules: [{action: Ignore, onPodConditions: [{type: Invalid Condition Type, status: 'True'}]}]}",
      (INVALID, "spec.podFailurePolicy.rules[0].onPodConditions[0].type",
       "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
       "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
       "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")),
    C('spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed"',
      "{template: {spec: {restartPolicy: Never}}, podReplacementPolicy: TerminatingOrFailed, podFailurePolicy: {rules: [{action: Ignore, "
      "onPodConditions: [{type: DisruptionTarget, status: 'True'}]}]}}",
      (UNSUPPORTED, "spec.podReplacementPolicy", 'supported values: "Failed"')),
    C('spec.podReplacementPolicy: Unsupported value: "": supported values: "Failed", "TerminatingOrFailed"',
      NEVER + "podReplacementPolicy: ''",
      (UNSUPPORTED, "spec.podReplacementPolicy", 'supported values: "Failed", "TerminatingOrFailed"')),
    C('spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified',
      "podFailurePolicy: {rules: []}",
      (INVALID, "spec.template.spec.restartPolicy", 'only "Never" is supported when podFailurePolicy is specified')),
    C("spec.parallelism:must be greater than or equal to 0", "{completionMode: NonIndexed, parallelism: -1}",
      (INVALID, "spec.parallelism", NEGATIVE)),
    C("spec.backoffLimit:must be greater than or equal to 0", "backoffLimit: -1", (INVALID, "spec.backoffLimit", NEGATIVE)),
    C("spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode",
      "{completionMode: NonIndexed, backoffLimitPerIndex: 1}",
      (INVALID, "spec.backoffLimitPerIndex", "requires indexed completion mode")),
    C("spec.backoffLimitPerIndex:must be greater than or equal to 0", "{completionMode: Indexed, backoffLimitPerIndex: -1}",
      (INVALID, "spec.backoffLimitPerIndex", NEGATIVE)),
    C("spec.maxFailedIndexes: Invalid value: 11: must be less than or equal to completions",
      "{completions: 10, maxFailedIndexes: 11, backoffLimitPerIndex: 1, completionMode: Indexed}",
      (INVALID, "spec.maxFailedIndexes", "must be less than or equal to completions")),
    C("spec.maxFailedIndexes: Required value: must be specified when completions is above 100000",
      "{completions: 100001, backoffLimitPerIndex: 1, completionMode: Indexed}",
      (REQUIRED, "spec.maxFailedIndexes", "must be specified when completions is above 100000")),
    C(f"spec.parallelism: Invalid value: 50000: must be less than or equal to 10000 {HIGH}",
      "{completions: 100001, parallelism: 50000, backoffLimitPerIndex: 1, maxFailedIndexes: 1, completionMode: Indexed}",
      (INVALID, "spec.parallelism", f"must be less than or equal to 10000 {HIGH}")),
    C("spec.maxFailedIndexes: Invalid value: 100001: must be less than or equal to 100000",
      "{completions: 100001, backoffLimitPerIndex: 1, maxFailedIndexes: 100001, completionMode: Indexed}",
      (INVALID, "spec.maxFailedIndexes", "must be less than or equal to 100000")),
    C(f"spec.maxFailedIndexes: Invalid value: 50000: must be less than or equal to 10000 {HIGH}",
      "{completions: 100001, backoffLimitPerIndex: 1, maxFailedIndexes: 50000, completionMode: Indexed}",
      (INVALID, "spec.maxFailedIndexes", f"must be less than or equal to 10000 {HIGH}")),
    C("spec.maxFailedIndexes:must be greater than or equal to 0",
      "{backoffLimitPerIndex: 1, maxFailedIndexes: -1, completionMode: Indexed}", (INVALID, "spec.maxFailedIndexes", NEGATIVE)),
    C("spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified",
      "{maxFailedIndexes: 1, completionMode: Indexed}",
      (REQUIRED, "spec.backoffLimitPerIndex", "when maxFailedIndexes is specified")),
    C("spec.completions:must be greater than or equal to 0", "completions: -1", (INVALID, "spec.completions", NEGATIVE)),
    C("spec.activeDeadlineSeconds:must be greater than or equal to 0", "activeDeadlineSeconds: -1",
      (INVALID, "spec.activeDeadlineSeconds", NEGATIVE)),
    C("spec.template.spec.restartPolicy: Required value", "template: {spec: {restartPolicy: Always}}",
      (REQUIRED, "spec.template.spec.restartPolicy", 'valid values: "OnFailure", "Never"')),
    C("spec.template.spec.restartPolicy: Unsupported value", "template: {spec: {restartPolicy: Invalid}}",
      (UNSUPPORTED, "spec.template.spec.restartPolicy", '"OnFailure", "Never"')),
    C("spec.ttlSecondsAfterFinished: must be greater than or equal to 0", "ttlSecondsAfterFinished: -1",
      (INVALID, "spec.ttlSecondsAfterFinished", NEGATIVE)),
    # upstream's Job leaves both counts unset; a defaulted Job (SetDefaults_Job) has completions 1 then,
    # so the error needs parallelism set without completions, as a user writes it
    C("spec.completions: Required value: when completion mode is Indexed (parallelism set)",
      "{completionMode: Indexed, parallelism: 2}", (REQUIRED, "spec.completions", "when completion mode is Indexed")),
    C("spec.parallelism: must be less than or equal to 100000 when completion mode is Indexed",
      "{completionMode: Indexed, completions: 2, parallelism: 100001}",
      (INVALID, "spec.parallelism", "must be less than or equal to 100000 when completion mode is Indexed")),
]


@pytest.mark.parametrize("case,where", params(SUCCESS + ERRORS, JOB))
def test_upstream_case(case, where):
    check(case, where)


# What TestValidateJob checks that a JobSet's Job does not meet here, with the reason.
NOT_PORTED = {
    'spec.podFailurePolicy.rules[0].onPodConditions[0].status: Required value: valid values: ["False" "True" "Unknown"]':
        "upstream validates the internal type without defaults; through the API, batch/v1 defaulting "
        "(SetDefaults_PodFailurePolicyOnPodConditionsPattern) sets the status to True: ported as a success case",
    "success/valid manual selector": "the Job's uid and name appear in upstream's labels; ported as the selector "
                                     "cases of tests/upstream/kubernetes/test_registry_batch_job_strategy.py",
    "success/valid job tracking annotation": "Job metadata the Job controller sets",
    "success/valid batch labels": "Job metadata the Job controller sets",
    "success/do not allow new batch labels": "Job metadata the Job controller sets (a validation option of updates)",
    "spec.selector:Required value": "with manualSelector: ported in test_registry_batch_job_strategy.py",
    "spec.template.metadata.labels: `selector` does not match template `labels` (2 cases)": "with manualSelector: "
        "ported in test_registry_batch_job_strategy.py",
    "spec.template.metadata.labels[controller-uid]: Required value": "the Job strategy always adds the label "
                                                                     "when it is missing (generateSelector)",
    "spec.template.metadata.labels[batch.kubernetes.io/controller-uid]: Required value": "the Job strategy always "
                                                                                         "adds the label when missing",
    "metadata.uid: Required value": "the Job's uid, set by the API server",
    "spec.selector: `selector` not auto-generated": "ported in test_registry_batch_job_strategy.py (a written "
                                                     "selector the generated labels miss)",
    "spec.completions: Required value: when completion mode is Indexed (both counts unset)": "SetDefaults_Job sets "
        "completions 1 when parallelism is unset too; ported with parallelism set",
    "TestValidateJobUpdate, TestValidateJobUpdateStatus, TestValidateCronJob*": "updates, status and CronJobs: a "
                                                                                "JobSet's Jobs are created",
}


def test_not_ported_cases_say_why():
    assert all(reason.strip() for reason in NOT_PORTED.values())
