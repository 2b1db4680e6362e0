"""The cases of JobSet's pkg/webhooks/jobset_webhook_test.go that v0.11.1 and v0.12.0 share, as data:
TestValidateCreate, TestJobSetDefaulting and TestValidateUpdate at v0.11.1 (v0.12.0 has every one of
them unchanged and adds its own, which its test module lists). Each case is named by its upstream test
and case; test_jobset_webhook_v0_11_1.py and test_jobset_webhook.py run them under their release.

A create case is (JobSet, wanted messages, feature gates on, note). Upstream's TestValidateCreate passes
when the error text contains the wanted text (`assert.Contains`) and no error is wanted when `want` is
empty; the modules check the same way. The webhook sees a JobSet after `Default`, which upstream's unit
test skips; where that changes the answer, the case says so (`note`).
"""

from __future__ import annotations

import pytest

from kpt_fn.validation import jobset_webhook

MAX_INT32, MIN_INT32 = 2**31 - 1, -(2**31)
POD = {"spec": {"containers": [{"name": "test", "image": "bash:latest"}]}}
DNS1035 = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
           "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
           "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")
RULE_NAME_SYNTAX = ("a failure policy rule name must start with an alphabetic character, optionally followed by a "
                    "string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'")
INDEXED_1 = {"completionMode": "Indexed", "completions": 1, "parallelism": 1}
INDEXED_2 = {"completionMode": "Indexed", "completions": 2, "parallelism": 2}


def rjob(name="rj", replicas=1, pod=None, group="default", depends_on=None, **job_spec):
    out = {"name": name, "replicas": replicas, "template": {"spec": {"template": pod or POD, **job_spec}}}
    if group is not None:
        out["groupName"] = group
    if depends_on is not None:
        out["dependsOn"] = [{"name": n, "status": "Complete"} for n in depends_on]
    return out


def jobset(*rjobs, name="js", **spec):
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": name},
            "spec": {"replicatedJobs": list(rjobs), "successPolicy": {"operator": "All"}, **spec}}


def mounting(claim, init=False):
    container = {"name": "test-init" if init else "test", "image": "bash:latest",
                 "volumeMounts": [{"name": claim, "mountPath": "/test/path"}]}
    return {"spec": {"containers": [POD["spec"]["containers"][0]] if init else [container],
                     **({"initContainers": [container]} if init else {})}}


def claims(*names, retention="Delete"):
    return [{"templates": [{"metadata": {"name": n}, "spec": {"accessModes": ["ReadWriteOnce"]}}],
             "retentionPolicy": {"whenDeleted": retention}} for n in names]


def failure_rules(*names):
    return {"rules": [{"name": n, "action": "FailJobSet"} for n in names]}


def coordinator(rjob_name, job=0, pod=0):
    return {"replicatedJob": rjob_name, "jobIndex": job, "podIndex": pod}


def case(test, name, js, want=(), gates=(), note=""):
    return pytest.param(js, list(want), frozenset(gates), note, id=f"{test}/{name}")


CREATE = [
    case("TestValidateCreate", "number of pods exceeds the limit",
         jobset(rjob("test-jobset-replicated-job-0", MAX_INT32, parallelism=MAX_INT32),
                rjob("test-jobset-replicated-job-1", MIN_INT32, parallelism=MIN_INT32)),
         ["the product of replicas and parallelism must not exceed 2147483647 for replicatedJob "
          "'test-jobset-replicated-job-0'",
          "the product of replicas and parallelism must not exceed 2147483647 for replicatedJob "
          "'test-jobset-replicated-job-1'"]),
    case("TestValidateCreate", "number of pods within the limit", jobset(rjob("test-jobset-replicated-job-0"))),
    case("TestValidateCreate", "success policy has non matching replicated job",
         jobset(rjob("test-jobset-replicated-job-0"),
                successPolicy={"operator": "All", "targetReplicatedJobs": ["does not exist"]}),
         ["invalid replicatedJob name 'does not exist' does not appear in .spec.ReplicatedJobs"]),
    case("TestValidateCreate", "network has invalid dns name",
         jobset(rjob("test-jobset-replicated-job-0"), network={"enableDNSHostnames": True, "subdomain": "a" * 64}),
         [jobset_webhook.SUBDOMAIN_TOO_LONG]),
    case("TestValidateCreate", "jobset name with invalid character", jobset(rjob("username.llama65b")), [DNS1035]),
    case("TestValidateCreate", "group name is not DNS 1035 compliant", jobset(rjob(group="a" * 64)),
         [jobset_webhook.GROUP_NAME_TOO_LONG]),
    case("TestValidateCreate", "jobset name will result in job name being too long",
         jobset(rjob(replicas=101), name="a" * 62), [jobset_webhook.JOB_NAME_TOO_LONG]),
    case("TestValidateCreate", "jobset name will result in a pod name being too long",
         jobset(rjob(**INDEXED_1), name="a" * 56), [jobset_webhook.POD_NAME_TOO_LONG]),
    case("TestValidateCreate", "jobset controller name is not a domain-prefixed path",
         jobset(rjob(**INDEXED_1), managedBy="notDomainPrefixedPathControllerName"),
         ["must be a domain-prefixed path (such as \"acme.io/foo\")"]),
    case("TestValidateCreate", "jobset controller name is too long",
         jobset(rjob(**INDEXED_1), managedBy="foo.bar/" + "a" * 63), ["may not be more than 63 bytes"]),
    case("TestValidateCreate", "jobset controller name is set and valid",
         jobset(rjob(**INDEXED_1), managedBy="jobset.sigs.k8s.io/jobset-controller")),
    case("TestValidateCreate", "jobset controller name is unset", jobset(rjob(**INDEXED_1))),
    case("TestValidateCreate", "failure policy rule name is valid",
         jobset(rjob(**INDEXED_1), failurePolicy=failure_rules("superAwesomeFailurePolicyRule"))),
    case("TestValidateCreate", "jobset failure policy has an invalid on job failure reason",
         jobset(rjob(**INDEXED_1), failurePolicy={"rules": [
             {"name": "r", "action": "FailJobSet", "onJobFailureReasons": ["fakeReason"]}]}),
         ["invalid job failure reason 'fakeReason' in failure policy is not a recognized job failure reason"]),
    case("TestValidateCreate", "jobset failure policy has an invalid replicated job",
         jobset(rjob(**INDEXED_1), failurePolicy={"rules": [
             {"name": "r", "action": "FailJobSet", "targetReplicatedJobs": ["fakeReplicatedJob"]}]}),
         ["invalid replicatedJob name 'fakeReplicatedJob' in failure policy does not appear in .spec.ReplicatedJobs"]),
    case("TestValidateCreate", "jobset failure policy rule name is 0 characters long a.k.a unset",
         jobset(rjob(**INDEXED_1), failurePolicy={"rules": [{"action": "FailJobSet"}]}), [],
         note="Default names the rule failurePolicyRule0 before the webhook validates it (upstream's unit test "
              "calls ValidateCreate on the undefaulted object and wants the length-0 error)"),
    case("TestValidateCreate", "jobset failure policy rule name is greater than 128 characters long",
         jobset(rjob(**INDEXED_1), failurePolicy=failure_rules("a" * 129)),
         ["invalid failure policy rule name of length 129, the rule name must be at least 1 characters long and "
          "at most 128 characters long"]),
    case("TestValidateCreate", "there are two failure policy rules with the same name",
         jobset(rjob(**INDEXED_1), failurePolicy=failure_rules("repeatedRuleName", "repeatedRuleName")),
         ["rule names are not unique, rules with indices [0 1] all have the same name 'repeatedRuleName'"]),
    case("TestValidateCreate", "failure policy rule name does not start with an alphabetic character",
         jobset(rjob(**INDEXED_1), failurePolicy=failure_rules("1ruleToRuleThemAll")),
         [f"invalid failure policy rule name '1ruleToRuleThemAll', {RULE_NAME_SYNTAX}"]),
    case("TestValidateCreate", "failure policy rule name does not end with an alphanumeric nor '_'",
         jobset(rjob(**INDEXED_1), failurePolicy=failure_rules("ruleToRuleThemAll,")),
         [f"invalid failure policy rule name 'ruleToRuleThemAll,', {RULE_NAME_SYNTAX}"]),
    case("TestValidateCreate", "coordinator replicated job does not exist",
         jobset(rjob("replicatedjob-a", 2, **INDEXED_2), rjob("replicatedjob-b", 2, **INDEXED_2),
                coordinator=coordinator("fake-rjob")),
         ["coordinator replicatedJob fake-rjob does not exist"]),
    case("TestValidateCreate", "coordinator replicated job missing completions",
         jobset(rjob("replicatedjob-a", 2, completionMode="Indexed", parallelism=2),
                rjob("replicatedjob-b", 2, **INDEXED_2), coordinator=coordinator("replicatedjob-a")),
         ["job for coordinator pod must be indexed completion mode, and completions number must be set"]),
    case("TestValidateCreate", "coordinator job index invalid",
         jobset(rjob("replicatedjob-a", 2, **INDEXED_2), rjob("replicatedjob-b", 2, **INDEXED_2),
                coordinator=coordinator("replicatedjob-a", job=2)),
         ["coordinator job index 2 is invalid for replicatedJob replicatedjob-a"]),
    case("TestValidateCreate", "coordinator pod index invalid",
         jobset(rjob("replicatedjob-a", 2, **INDEXED_2), rjob("replicatedjob-b", 2, **INDEXED_2),
                coordinator=coordinator("replicatedjob-a", pod=2)),
         ["coordinator pod index 2 is invalid for replicatedJob replicatedjob-a job index 0"]),
    case("TestValidateCreate", "coordinator label value is too long due to long JobSet name",
         jobset(rjob("replicatedjob-a", **INDEXED_1), name="a" * 60, coordinator=coordinator("replicatedjob-a")),
         ["spec will lead to invalid label value"]),
    case("TestValidateCreate", "coordinator label value is too long due to long ReplicatedJob name",
         jobset(rjob("a" * 60, **INDEXED_1), name="jobset", coordinator=coordinator("a" * 60)),
         ["spec will lead to invalid label value"]),
    case("TestValidateCreate", "coordinator label value is too long due to long SubDomain",
         jobset(rjob("replicatedjob-a", **INDEXED_1), name="jobset", network={"subdomain": "a" * 60},
                coordinator=coordinator("replicatedjob-a")),
         ["spec will lead to invalid label value"]),
    case("TestValidateCreate", "DependsOn is valid since job-2 depends on job-1 and job-3 depends on job-1",
         jobset(rjob("job-1"), rjob("job-2", depends_on=["job-1"]), rjob("job-3", depends_on=["job-1"]))),
    case("TestValidateCreate", "DependsOn is valid since job-2 depends on job-1 and job-3 depends on job-2",
         jobset(rjob("job-1"), rjob("job-2", depends_on=["job-1"]), rjob("job-3", depends_on=["job-2"]))),
    case("TestValidateCreate", "DependsOn is valid since job-3 depends on job-1 and job-2",
         jobset(rjob("job-1"), rjob("job-2", depends_on=["job-1"]), rjob("job-3", depends_on=["job-1", "job-2"]))),
    case("TestValidateCreate", "DependsOn is invalid since job-2 depends on job-3",
         jobset(rjob("job-1"), rjob("job-2", depends_on=["job-3"]), rjob("job-3", depends_on=["job-1"])),
         ["replicatedJob: job-2 cannot depend on replicatedJob: job-3"]),
    case("TestValidateCreate", "DependsOn is invalid since job-2 depends on job-3 and job-1",
         jobset(rjob("job-1"), rjob("job-2", depends_on=["job-1", "job-3"]), rjob("job-3", depends_on=["job-1"])),
         ["replicatedJob: job-2 cannot depend on replicatedJob: job-3"]),
    case("TestValidateCreate", "job-2 depends on invalid ReplicatedJob",
         jobset(rjob("job-1"), rjob("job-2", depends_on=["invalid"])),
         ["replicatedJob: job-2 cannot depend on replicatedJob: invalid"]),
    case("TestValidateCreate", "dependsOn should not fail if there are no replicated jobs", jobset()),
    case("TestValidateCreate", "dependsOn cannot be set for first replicated job",
         jobset(rjob("job-1", depends_on=["invalid"])), ["DependsOn can't be set for the first ReplicatedJob"]),
    case("TestValidateCreate", "volumeClaimPolicy is valid since volume exists in the container",
         jobset(rjob("job-1", pod=mounting("test-volume")), volumeClaimPolicies=claims("test-volume"))),
    case("TestValidateCreate", "volumeClaimPolicy is valid since volume exists in the initContainer",
         jobset(rjob("job-1"), rjob("job-2", pod=mounting("test-volume", init=True)),
                volumeClaimPolicies=claims("test-volume"))),
    case("TestValidateCreate", "volumeClaimPolicy is invalid since template names are not unique",
         jobset(rjob("job-1", pod=mounting("duplicate-volume")),
                volumeClaimPolicies=claims("duplicate-volume") + claims("duplicate-volume", retention="Retain")),
         ["names must be unique for VolumeClaimPolicies template"]),
    case("TestValidateCreate", "volumeClaimPolicy is invalid since template name has uppercase letters",
         jobset(rjob("job-1", pod=mounting("InvalidVolumeName")), volumeClaimPolicies=claims("InvalidVolumeName")),
         ["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters"]),
    case("TestValidateCreate", "volumeClaimPolicy is invalid since template name is too long",
         jobset(rjob("job-1", pod=mounting("a" * 64)), volumeClaimPolicies=claims("a" * 64)),
         ["VolumeClaimPolicies template name is too long"]),
    case("TestValidateCreate", "volumeClaimPolicy is invalid since no matching volumeMount in containers",
         jobset(rjob("job-1"), volumeClaimPolicies=claims("test-volume")),
         ["replicatedJob containers don't have a matching volumeMount"]),
    case("TestValidateCreate", "volumeClaimPolicy is invalid since volume name conflicts with existing volume",
         jobset(rjob("job-1", pod={"spec": {**mounting("conflicting-volume")["spec"],
                                            "volumes": [{"name": "conflicting-volume", "emptyDir": {}}]}}),
                volumeClaimPolicies=claims("conflicting-volume")),
         ["volume name conflicts with VolumeClaimPolicy template name"]),
    case("TestValidateCreate", "InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled",
         jobset(rjob(**INDEXED_1), failurePolicy={"restartStrategy": "InPlaceRestart"}),
         ["InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled"]),
    case("TestValidateCreate", "InPlaceRestart restart strategy can be set when InPlaceRestart feature gate is enabled",
         jobset(rjob(backoffLimit=MAX_INT32, podReplacementPolicy="Failed", **INDEXED_1),
                failurePolicy={"restartStrategy": "InPlaceRestart"}), gates=["InPlaceRestart"]),
    case("TestValidateCreate", "InPlaceRestart enabled: backoffLimit is not MaxInt32",
         jobset(rjob(backoffLimit=6, podReplacementPolicy="Failed", **INDEXED_1),
                failurePolicy={"restartStrategy": "InPlaceRestart"}),
         ["replicatedJob rj: must be set to 2147483647 (MaxInt32) when in-place restart is enabled"],
         gates=["InPlaceRestart"]),
    case("TestValidateCreate", "InPlaceRestart enabled: podReplacementPolicy is not Failed",
         jobset(rjob(backoffLimit=MAX_INT32, podReplacementPolicy="TerminatingOrFailed", **INDEXED_1),
                failurePolicy={"restartStrategy": "InPlaceRestart"}),
         ["replicatedJob rj: must be set to Failed when in-place restart is enabled"], gates=["InPlaceRestart"]),
    case("TestValidateCreate", "InPlaceRestart enabled: completions != parallelism",
         jobset(rjob(backoffLimit=MAX_INT32, podReplacementPolicy="Failed", completionMode="Indexed",
                     completions=2, parallelism=1), failurePolicy={"restartStrategy": "InPlaceRestart"}),
         ["replicatedJob rj: completions and parallelism must be set and equal to each other when in-place "
          "restart is enabled"], gates=["InPlaceRestart"]),
    case("TestValidateCreate", "InPlaceRestart enabled: completions is nil",
         jobset(rjob(backoffLimit=MAX_INT32, podReplacementPolicy="Failed", completionMode="Indexed",
                     parallelism=1), failurePolicy={"restartStrategy": "InPlaceRestart"}),
         ["completions and parallelism must be set and equal"], gates=["InPlaceRestart"]),
    case("TestValidateCreate", "InPlaceRestart enabled: parallelism is nil",
         jobset(rjob(backoffLimit=MAX_INT32, podReplacementPolicy="Failed", completionMode="Indexed",
                     completions=1), failurePolicy={"restartStrategy": "InPlaceRestart"}),
         ["completions and parallelism must be set and equal"], gates=["InPlaceRestart"]),
]

# Upstream cases not ported, with the reason.
NOT_PORTED = {
    "TestValidateCreate/volumeClaimPolicy is valid when existing PVC matches template spec":
        "reads an existing PersistentVolumeClaim from the cluster; an offline render has none",
    "TestValidateCreate/volumeClaimPolicy retention policy must be retain for existing PVC":
        "reads an existing PersistentVolumeClaim from the cluster",
    "TestValidateCreate/volumeClaimPolicy is invalid when existing PVC does not match template spec":
        "reads an existing PersistentVolumeClaim from the cluster",
}


# --- TestJobSetDefaulting: Default, the same statements at v0.11.1 and v0.12.0 ----------------------------

DEFAULTED = {"successPolicy": {"operator": "All"}, "startupPolicy": {"startupPolicyOrder": "AnyOrder"},
             "network": {"enableDNSHostnames": True, "publishNotReadyAddresses": True}}
MANAGED = {"managedBy": "jobset.sigs.k8s.io/jobset-controller"}


def one_job(pod_spec=None, **job_spec):
    return [{"template": {"spec": {"template": {"spec": {"restartPolicy": "OnFailure", **(pod_spec or {})}},
                                   **job_spec}}}]


def defaulting(name, spec, want):
    return pytest.param(spec, want, id=f"TestJobSetDefaulting/{name}")


DEFAULTING = [
    defaulting("job completion mode is unset", {**DEFAULTED, "replicatedJobs": one_job(), **MANAGED},
               {**DEFAULTED, "replicatedJobs": one_job(completionMode="Indexed"), **MANAGED}),
    defaulting("job completion mode is set to non-indexed",
               {"successPolicy": {"operator": "All"}, "network": DEFAULTED["network"],
                "replicatedJobs": one_job(completionMode="NonIndexed"), **MANAGED},
               {**DEFAULTED, "replicatedJobs": one_job(completionMode="NonIndexed"), **MANAGED}),
    defaulting("enableDNSHostnames is unset",
               {**DEFAULTED, "network": {}, "replicatedJobs": one_job(completionMode="Indexed"), **MANAGED},
               {**DEFAULTED, "replicatedJobs": one_job(completionMode="Indexed"), **MANAGED}),
    defaulting("enableDNSHostnames is false",
               {**DEFAULTED, "network": {"enableDNSHostnames": False, "publishNotReadyAddresses": True},
                "replicatedJobs": one_job(completionMode="Indexed"), **MANAGED},
               {**DEFAULTED, "network": {"enableDNSHostnames": False, "publishNotReadyAddresses": True},
                "replicatedJobs": one_job(completionMode="Indexed"), **MANAGED}),
    defaulting("PublishNotReadyNetworkAddresess is false",
               {**DEFAULTED, "network": {"enableDNSHostnames": True, "publishNotReadyAddresses": False},
                "replicatedJobs": one_job(completionMode="Indexed"), **MANAGED},
               {**DEFAULTED, "network": {"enableDNSHostnames": True, "publishNotReadyAddresses": False},
                "replicatedJobs": one_job(completionMode="Indexed"), **MANAGED}),
    defaulting("PublishNotReadyNetworkAddresess is true",
               {**DEFAULTED, "network": {"enableDNSHostnames": True},
                "replicatedJobs": one_job(completionMode="Indexed"), **MANAGED},
               {**DEFAULTED, "replicatedJobs": one_job(completionMode="Indexed"), **MANAGED}),
    defaulting("pod restart policy unset",
               {**DEFAULTED, "replicatedJobs": [{"template": {"spec": {"template": {"spec": {}},
                                                                       "completionMode": "Indexed"}}}], **MANAGED},
               {**DEFAULTED, "replicatedJobs": one_job(completionMode="Indexed"), **MANAGED}),
    defaulting("pod restart policy set",
               {**DEFAULTED, "replicatedJobs": one_job({"restartPolicy": "Always"}, completionMode="Indexed"), **MANAGED},
               {**DEFAULTED, "replicatedJobs": one_job({"restartPolicy": "Always"}, completionMode="Indexed"), **MANAGED}),
    defaulting("success policy unset",
               {"startupPolicy": DEFAULTED["startupPolicy"], "network": DEFAULTED["network"],
                "replicatedJobs": one_job({"restartPolicy": "Always"}, completionMode="Indexed"), **MANAGED},
               {**DEFAULTED, "replicatedJobs": one_job({"restartPolicy": "Always"}, completionMode="Indexed"), **MANAGED}),
    defaulting("success policy operator set, replicatedJobNames unset",
               {**DEFAULTED, "successPolicy": {"operator": "Any"},
                "replicatedJobs": one_job({"restartPolicy": "Always"}, completionMode="Indexed"), **MANAGED},
               {**DEFAULTED, "successPolicy": {"operator": "Any"},
                "replicatedJobs": one_job({"restartPolicy": "Always"}, completionMode="Indexed"), **MANAGED}),
    defaulting("startup policy order InOrder set",
               {**DEFAULTED, "successPolicy": {"operator": "Any"}, "startupPolicy": {"startupPolicyOrder": "InOrder"},
                "replicatedJobs": one_job({"restartPolicy": "Always"}, completionMode="Indexed"), **MANAGED},
               {**DEFAULTED, "successPolicy": {"operator": "Any"}, "startupPolicy": {"startupPolicyOrder": "InOrder"},
                "replicatedJobs": one_job({"restartPolicy": "Always"}, completionMode="Indexed"), **MANAGED}),
    defaulting("managedBy field is left nil", {**DEFAULTED, "replicatedJobs": one_job(completionMode="Indexed")},
               {**DEFAULTED, "replicatedJobs": one_job(completionMode="Indexed")}),
    defaulting("when provided, managedBy field is preserved",
               {**DEFAULTED, "replicatedJobs": one_job(completionMode="Indexed"), "managedBy": "other-controller"},
               {**DEFAULTED, "replicatedJobs": one_job(completionMode="Indexed"), "managedBy": "other-controller"}),
    defaulting("failure policy rule name is defaulted when: there is one rule and it does not have a name",
               {**DEFAULTED, "replicatedJobs": one_job(completionMode="Indexed"), "failurePolicy": {"rules": [{}]}},
               {**DEFAULTED, "replicatedJobs": one_job(completionMode="Indexed"),
                "failurePolicy": {"rules": [{"name": "failurePolicyRule0"}]}}),
    defaulting("failure policy rule name is defaulted when: there are two rules, the first rule has a name, "
               "the second rule does not have a name",
               {**DEFAULTED, "replicatedJobs": one_job(completionMode="Indexed"),
                "failurePolicy": {"rules": [{"name": "ruleWithAName"}, {}]}},
               {**DEFAULTED, "replicatedJobs": one_job(completionMode="Indexed"),
                "failurePolicy": {"rules": [{"name": "ruleWithAName"}, {"name": "failurePolicyRule1"}]}}),
    defaulting("volumeClaimPolicy retentionPolicy is defaulted to Delete when nil",
               {**DEFAULTED, "replicatedJobs": one_job(completionMode="Indexed"), **MANAGED,
                "volumeClaimPolicies": [{"templates": [{"metadata": {"name": "test-volume"}}]}]},
               {**DEFAULTED, "replicatedJobs": one_job(completionMode="Indexed"), **MANAGED,
                "volumeClaimPolicies": [{"templates": [{"metadata": {"name": "test-volume"}}],
                                         "retentionPolicy": {"whenDeleted": "Delete"}}]}),
]


# --- TestValidateUpdate ------------------------------------------------------------------------------------

VALID_RJOBS = [rjob("test-jobset-replicated-job-0", group=None, parallelism=1),
               rjob("test-jobset-replicated-job-1", group=None, parallelism=1)]


def two_replicas(name="test-jobset-replicated-job-0", pod=None):
    return [rjob(name, 2, pod=pod, group=None, parallelism=2)]


ANNOTATED = {"metadata": {"annotations": {"key": "value"}}, **POD}
GATED = {"spec": {**POD["spec"], "schedulingGates": [{"name": "example.com/gate"}]}}
IMMUTABLE_RJOBS = [("spec.replicatedJobs", "field is immutable")]


def update(name, old_spec, new_spec, want=()):
    old = {"kind": "JobSet", "metadata": {"name": "js"}, "spec": old_spec}
    new = {"kind": "JobSet", "metadata": {"name": "js"}, "spec": new_spec}
    return pytest.param(old, new, list(want), id=f"TestValidateUpdate/{name}")


UPDATE = [
    update("update suspend", {"replicatedJobs": VALID_RJOBS}, {"replicatedJobs": VALID_RJOBS, "suspend": True}),
    update("update labels", {"replicatedJobs": VALID_RJOBS}, {"replicatedJobs": VALID_RJOBS, "suspend": True}),
    update("managedBy is immutable", {"replicatedJobs": VALID_RJOBS, "managedBy": "example.com/old"},
           {"replicatedJobs": VALID_RJOBS, "managedBy": "example.com/new"},
           [("spec.managedBy", "field is immutable")]),
    update("replicated job pod template can be updated for suspended jobset",
           {"replicatedJobs": two_replicas()}, {"replicatedJobs": two_replicas(pod=ANNOTATED), "suspend": True}),
    update("replicated job pod template can be updated for jobset getting suspended",
           {"replicatedJobs": two_replicas(), "suspend": False},
           {"replicatedJobs": two_replicas(pod=ANNOTATED), "suspend": True}),
    update("replicated job pod template cannot be updated for running jobset",
           {"replicatedJobs": two_replicas()}, {"replicatedJobs": two_replicas(pod=ANNOTATED)}, IMMUTABLE_RJOBS),
    update("schedulingGates for pod template can be updated for suspended JobSet",
           {"replicatedJobs": two_replicas()}, {"replicatedJobs": two_replicas(pod=GATED), "suspend": True}),
    update("schedulingGates for pod template cannot be updated for unsuspended JobSet",
           {"replicatedJobs": two_replicas()}, {"replicatedJobs": two_replicas(pod=GATED)}, IMMUTABLE_RJOBS),
    update("replicated job name cannot be updated", {"replicatedJobs": two_replicas()},
           {"replicatedJobs": two_replicas("new-replicated-job-name"), "suspend": True}, IMMUTABLE_RJOBS),
]


def check_create(js, want, gates, note, release):
    """Upstream's verdict: every wanted text in a reported message, nothing reported when nothing is wanted."""
    found = [p.message for p in jobset_webhook.check(js, gates, release=release)]
    if not want:
        assert found == [], note
    for message in want:
        assert any(message in f for f in found), (message, found)
