"""JobSet v0.12.0's webhook (the JobSet Trainer v2.3.0 installs), from JobSet's
pkg/webhooks/jobset_webhook_test.go at v0.12.0: first its cases as data, each named by its upstream test
and case (webhook_cases: those v0.11.1 has too; below: those new in v0.12.0; NOT_PORTED with reasons);
then the function's own, stricter checks of the same behaviour (exact field paths and messages, the
defaults the webhook sees), objects written as plain dicts."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from kpt_fn import upstream
from kpt_fn import validation
from kpt_fn.apimachinery import validation as utilvalidation
from kpt_fn.lifecycle import jobset_defaults, jobset_update
from kpt_fn.validation import jobset_webhook
from upstream.jobset.webhook_cases import (CREATE, DEFAULTING, DNS1035, IMMUTABLE_RJOBS, NOT_PORTED, UPDATE, case,
                                           check_create, jobset, rjob, update)

RELEASE = jobset_webhook.V0_12_0
FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "validation"
OVER_1024 = ("JobSet cannot have a failure policy rule with RestartJob or RestartJobAndIgnoreMaxRestarts action and "
             "a replicated job with replicas > 1024")
GATE_OFF = ("RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed when RestartJob "
            "feature gate is disabled")


def _restart(action, gates, want):
    name = (f"jobset failure policy rule has {action} action and "
            + ("a replicated job with replicas > 1024" if gates else "RestartJob feature gate is disabled"))
    js = jobset(rjob(replicas=1025), failurePolicy={"rules": [{"name": "r", "action": action}]})
    return case("TestValidateCreate", name, js, [want], gates=gates)


# The cases new in v0.12.0's tests.
V0_12_CREATE = [_restart(action, gates, want) for gates, want in ((["RestartJob"], OVER_1024), ((), GATE_OFF))
                for action in jobset_webhook.RESTART_JOB_ACTIONS]
V0_12_UPDATE = [
    update("adding a new ReplicatedJob while suspended does not panic and is rejected",
           {"suspend": True, "replicatedJobs": [rjob("job-a", group=None, parallelism=2)]},
           {"suspend": True, "replicatedJobs": [rjob("job-a", group=None, parallelism=2),
                                                rjob("job-b", group=None, parallelism=2)]}, IMMUTABLE_RJOBS),
    update("invalid scaling of parallelism and completions when feature gate is disabled",
           {"replicatedJobs": [rjob("test-jobset-replicated-job-0", 2, group=None, parallelism=2, completions=2)]},
           {"replicatedJobs": [rjob("test-jobset-replicated-job-0", 2, group=None, parallelism=8, completions=8)]},
           IMMUTABLE_RJOBS),
]
_ELASTIC = ("behind the ElasticJobSet gate (alpha, off by default in pkg/features/features.go), which the "
            "function does not model: with it off, every such change is refused as immutable")
NOT_PORTED_V0_12 = {
    **NOT_PORTED,
    **{f"TestValidateUpdate/{name}": _ELASTIC for name in (
        "valid scaling of parallelism and completions", "invalid scaling of parallelism to < 1",
        "invalid scaling of completions to < 1", "cannot scale parallelism if JobSet is Completed",
        "cannot scale completions if JobSet is Failed", "immutability still enforced for other fields during valid scale",
        "invalid scaling: parallelism and completions must be equal",
        "reordering ReplicatedJobs evaluates ElasticJobSet scaling correctly by name",
        "invalid scaling: immutability enforced for NonIndexed jobs even when ElasticJobSet is enabled")},
}


@pytest.mark.parametrize("js, want, gates, note", CREATE + V0_12_CREATE)
def test_validate_create(js, want, gates, note):
    check_create(js, want, gates, note, RELEASE)


@pytest.mark.parametrize("spec, want", DEFAULTING)
def test_jobset_defaulting(spec, want):
    spec = copy.deepcopy(spec)
    jobset_defaults.webhook_default(spec)
    assert spec == want


@pytest.mark.parametrize("old, new, want", UPDATE + V0_12_UPDATE)
def test_validate_update(old, new, want):
    assert [(r.path, r.message) for r in jobset_update.validate_update(old, new, RELEASE)] == want


def test_each_upstream_case_once():
    ported = [p.id for p in CREATE + V0_12_CREATE + DEFAULTING + UPDATE + V0_12_UPDATE]
    assert len(ported) == len(set(ported))
    assert not set(NOT_PORTED_V0_12) & set(ported)


# --- the function's own checks of the same webhook ------------------------------------------------------------

def problems(js, gates=frozenset()):
    return [(p.path, p.message) for p in jobset_webhook.check(js, gates, RELEASE)]


def test_realistic_jobset_passes():
    js = yaml.safe_load((FIXTURES / "jobset_torchtune.yaml").read_text())
    assert validation.check_jobset_webhook(js, upstream.bundle("v2.3.0")) == []


def test_only_jobsets_are_checked():
    assert validation.check_jobset_webhook({"kind": "TrainJob", "metadata": {"name": "x" * 80}}, upstream.bundle("v2.3.0")) == []


def test_number_of_pods_exceeds_the_limit():
    js = jobset(rjob("test-jobset-replicated-job-0", 2**31 - 1, parallelism=2**31 - 1, completions=1),
                rjob("test-jobset-replicated-job-1", -(2**31), parallelism=-(2**31), completions=1))
    got = problems(js)
    assert ("spec.replicatedJobs[0]", "the product of replicas and parallelism must not exceed 2147483647 for "
                                      "replicatedJob 'test-jobset-replicated-job-0'") in got
    assert ("spec.replicatedJobs[1]", "the product of replicas and parallelism must not exceed 2147483647 for "
                                      "replicatedJob 'test-jobset-replicated-job-1'") in got


def test_number_of_pods_within_the_limit():
    assert problems(jobset(rjob("test-jobset-replicated-job-0"))) == []


def test_success_policy_has_non_matching_replicated_job():
    js = jobset(rjob("test-jobset-replicated-job-0"),
                successPolicy={"operator": "All", "targetReplicatedJobs": ["does not exist"]})
    assert problems(js) == [("spec.successPolicy.targetReplicatedJobs[0]",
                             "invalid replicatedJob name 'does not exist' does not appear in .spec.ReplicatedJobs")]


def test_network_has_invalid_dns_name():
    js = jobset(rjob("test-jobset-replicated-job-0"), network={"enableDNSHostnames": True, "subdomain": "a" * 64})
    assert problems(js) == [("spec.network.subdomain",
                             ".spec.network.subdomain is too long, must be less than 63 characters")]


def test_subdomain_must_also_be_a_dns1035_label():
    js = jobset(rjob(), network={"subdomain": "svc.example"})
    assert problems(js) == [("spec.network.subdomain", DNS1035)]


def test_jobset_name_with_invalid_character():
    assert problems(jobset(rjob("username.llama65b"))) == [("spec.replicatedJobs[0].name", DNS1035)]


def test_group_name_is_not_dns1035_compliant():
    js = jobset(rjob())
    js["spec"]["replicatedJobs"][0]["groupName"] = "a" * 64
    assert problems(js) == [("spec.replicatedJobs[0].groupName",
                             ".spec.replicatedJob[].groupName is too long, must be less than 63 characters")]


def test_group_name_defaults_to_default():
    js = jobset(rjob())
    del js["spec"]["replicatedJobs"][0]["groupName"]
    assert problems(js) == []


def test_jobset_name_will_result_in_job_name_being_too_long():
    js = jobset(rjob("rj", 101), name="a" * 62)
    assert problems(js) == [("spec.replicatedJobs[0].name",
                             "JobSet name is too long, job names generated for this JobSet will exceed 63 characters")]


def test_jobset_name_will_result_in_a_pod_name_being_too_long():
    js = jobset(rjob("rj", 1, completionMode="Indexed", completions=1, parallelism=1), name="a" * 56)
    assert problems(js) == [("spec.replicatedJobs[0].name",
                             "JobSet name is too long, pod names generated for this JobSet will exceed 63 characters")]


def test_completion_mode_defaults_to_indexed_for_the_pod_name_check():
    js = jobset(rjob("rj", 1, completions=1), name="a" * 56)
    assert [m for _, m in problems(js)] == [jobset_webhook.POD_NAME_TOO_LONG]
    js = jobset(rjob("rj", 1, completions=1, completionMode="NonIndexed"), name="a" * 56)
    assert problems(js) == []


def test_trainjob_sized_names():
    # A TrainJob named with the maximum 63 characters gives jobs "<63>-node-0": rejected by JobSet.
    js = jobset(rjob("node", 1, completions=2, parallelism=2), name="t" * 63)
    assert [m for _, m in problems(js)] == [jobset_webhook.JOB_NAME_TOO_LONG, jobset_webhook.POD_NAME_TOO_LONG]


def test_controller_name_is_not_a_domain_prefixed_path():
    js = jobset(rjob(), managedBy="notDomainPrefixedPathControllerName")
    assert problems(js) == [("spec.managedBy", 'must be a domain-prefixed path (such as "acme.io/foo")')]


def test_controller_name_is_too_long():
    js = jobset(rjob(), managedBy="foo.bar/" + "a" * 63)
    assert problems(js) == [("spec.managedBy", "Too long: may not be more than 63 bytes")]


@pytest.mark.parametrize("manager", ["jobset.sigs.k8s.io/jobset-controller", "kueue.x-k8s.io/multikueue", None])
def test_controller_name_is_valid_or_unset(manager):
    js = jobset(rjob()) if manager is None else jobset(rjob(), managedBy=manager)
    assert problems(js) == []


def failure_policy(*rules, **extra):
    return {"maxRestarts": 1, "rules": list(rules), **extra}


def test_failure_policy_valid_rule_name():
    js = jobset(rjob(), failurePolicy=failure_policy({"name": "superAwesomeFailurePolicyRule", "action": "FailJobSet"}))
    assert problems(js) == []


def test_failure_policy_invalid_job_failure_reason():
    js = jobset(rjob(), failurePolicy=failure_policy(
        {"name": "r", "action": "FailJobSet", "onJobFailureReasons": ["fakeReason"]}))
    assert problems(js) == [("spec.failurePolicy.rules[0].onJobFailureReasons[0]",
                             "invalid job failure reason 'fakeReason' in failure policy is not a recognized job "
                             "failure reason")]


def test_failure_policy_invalid_replicated_job():
    js = jobset(rjob(), failurePolicy=failure_policy(
        {"name": "r", "action": "FailJobSet", "targetReplicatedJobs": ["fakeReplicatedJob"]}))
    assert problems(js) == [("spec.failurePolicy.rules[0].targetReplicatedJobs[0]",
                             "invalid replicatedJob name 'fakeReplicatedJob' in failure policy does not appear in "
                             ".spec.ReplicatedJobs")]


def test_failure_policy_rule_name_too_long():
    js = jobset(rjob(), failurePolicy=failure_policy({"name": "a" * 129, "action": "FailJobSet"}))
    assert problems(js) == [("spec.failurePolicy.rules[0].name",
                             "invalid failure policy rule name of length 129, the rule name must be at least 1 "
                             "characters long and at most 128 characters long")]


def test_failure_policy_unset_rule_name_is_defaulted():
    js = jobset(rjob(), failurePolicy=failure_policy({"action": "FailJobSet"}, {"action": "FailJobSet"}))
    assert problems(js) == []


def test_failure_policy_duplicate_rule_names():
    js = jobset(rjob(), failurePolicy=failure_policy({"name": "repeatedRuleName", "action": "FailJobSet"},
                                                     {"name": "repeatedRuleName", "action": "FailJobSet"}))
    assert problems(js) == [("spec.failurePolicy.rules[1].name",
                             "rule names are not unique, rules with indices [0 1] all have the same name "
                             "'repeatedRuleName'")]


@pytest.mark.parametrize("name", ["1ruleToRuleThemAll", "ruleToRuleThemAll,"])
def test_failure_policy_rule_name_syntax(name):
    js = jobset(rjob(), failurePolicy=failure_policy({"name": name, "action": "FailJobSet"}))
    assert problems(js) == [("spec.failurePolicy.rules[0].name",
                             f"invalid failure policy rule name '{name}', a failure policy rule name must start "
                             "with an alphabetic character, optionally followed by a string of alphanumeric "
                             "characters or '_,:', and must end with an alphanumeric character or '_'")]


@pytest.mark.parametrize("action", ["RestartJob", "RestartJobAndIgnoreMaxRestarts"])
def test_restart_job_actions_need_the_feature_gate(action):
    js = jobset(rjob("rj", 1025), failurePolicy=failure_policy({"name": "r", "action": action}))
    assert problems(js) == [("spec.failurePolicy.rules",
                             "RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed "
                             "when RestartJob feature gate is disabled")]
    assert problems(js, frozenset({"RestartJob"})) == [(
        "spec.failurePolicy.rules",
        "JobSet cannot have a failure policy rule with RestartJob or RestartJobAndIgnoreMaxRestarts action and a "
        "replicated job with replicas > 1024")]


def test_in_place_restart_needs_the_feature_gate():
    js = jobset(rjob(), failurePolicy={"restartStrategy": "InPlaceRestart"})
    assert problems(js) == [("spec.failurePolicy.restartStrategy",
                             "InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is "
                             "disabled")]
    assert [p for p, _ in problems(js, frozenset({"InPlaceRestart"}))] == [
        "spec.replicatedJobs[0].template.spec.backoffLimit",
        "spec.replicatedJobs[0].template.spec.podReplacementPolicy",
        "spec.replicatedJobs[0].template.spec.completions",
    ]


def indexed_rjob(name, replicas=2, completions=2):
    return rjob(name, replicas, completionMode="Indexed", completions=completions, parallelism=2)


@pytest.mark.parametrize("coordinator, message", [
    ({"replicatedJob": "fake-rjob"}, "coordinator replicatedJob fake-rjob does not exist"),
    ({"replicatedJob": "replicatedjob-a", "jobIndex": 2},
     "coordinator job index 2 is invalid for replicatedJob replicatedjob-a"),
    ({"replicatedJob": "replicatedjob-a", "podIndex": 2},
     "coordinator pod index 2 is invalid for replicatedJob replicatedjob-a job index 0"),
])
def test_coordinator(coordinator, message):
    js = jobset(indexed_rjob("replicatedjob-a"), indexed_rjob("replicatedjob-b"), coordinator=coordinator)
    assert problems(js) == [("spec.coordinator", message)]


def test_coordinator_job_missing_completions():
    js = jobset(rjob("replicatedjob-a", 2, completionMode="Indexed"), coordinator={"replicatedJob": "replicatedjob-a"})
    assert problems(js) == [("spec.coordinator", "job for coordinator pod must be indexed completion mode, and "
                                                 "completions number must be set")]


def test_coordinator_label_value_too_long():
    js = jobset(indexed_rjob("replicatedjob-a"), coordinator={"replicatedJob": "replicatedjob-a"},
                network={"subdomain": "a" * 60})
    ((path, message),) = problems(js)
    assert path == "spec.coordinator"
    assert message == (
        f'spec will lead to invalid label value "js-replicatedjob-a-0-0.{"a" * 60}" for coordinator label '
        '"jobset.sigs.k8s.io/coordinator" (long JobSet / ReplicatedJob / SubDomain name?): must be no more than '
        "63 bytes")


def test_depends_on_the_first_replicated_job():
    js = jobset(rjob("job-1"), rjob("job-2"))
    js["spec"]["replicatedJobs"][0]["dependsOn"] = [{"name": "job-2", "status": "Ready"}]
    assert problems(js) == [
        ("spec.replicatedJobs[0].dependsOn", "DependsOn can't be set for the first ReplicatedJob"),
        ("spec.replicatedJobs[0].dependsOn[0].name", "replicatedJob: job-1 cannot depend on replicatedJob: job-2"),
    ]


@pytest.mark.parametrize("deps, errors", [
    ({"job-2": ["job-1"], "job-3": ["job-1"]}, []),
    ({"job-2": ["job-1"], "job-3": ["job-2"]}, []),
    ({"job-3": ["job-1", "job-2"]}, []),
    ({"job-2": ["job-3"]}, ["replicatedJob: job-2 cannot depend on replicatedJob: job-3"]),
    ({"job-2": ["job-3", "job-1"]}, ["replicatedJob: job-2 cannot depend on replicatedJob: job-3"]),
])
def test_depends_on_order(deps, errors):
    js = jobset(rjob("job-1"), rjob("job-2"), rjob("job-3"))
    for rj in js["spec"]["replicatedJobs"]:
        if rj["name"] in deps:
            rj["dependsOn"] = [{"name": d, "status": "Complete"} for d in deps[rj["name"]]]
    assert [m for _, m in problems(js)] == errors


def with_claims(js, *names, mounts=(), volumes=()):
    js["spec"]["volumeClaimPolicies"] = [{"templates": [
        {"metadata": {"name": n}, "spec": {"accessModes": ["ReadWriteOnce"]}} for n in names]}]
    pod = js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"] = {"spec": {"containers": [
        {"name": "test", "image": "bash", "volumeMounts": [{"name": m, "mountPath": f"/{i}"}
                                                          for i, m in enumerate(mounts)]}]}}
    if volumes:
        pod["spec"]["volumes"] = [{"name": v, "emptyDir": {}} for v in volumes]
    return js


def test_volume_claim_policies_valid():
    assert problems(with_claims(jobset(rjob("job-1")), "test-volume", mounts=["test-volume"])) == []


# The template errors carry JobSet's own path, `template[j].name` (v0.12.0 jobset_webhook.go
# validateVolumeClaimPolicies), not the field's location `templates[j].metadata.name`.
def test_volume_claim_template_names_must_be_unique():
    js = jobset(rjob("job-1"))
    with_claims(js, "test-volume", mounts=["test-volume"])
    js["spec"]["volumeClaimPolicies"].append(
        {"templates": [{"metadata": {"name": "test-volume"}, "spec": {}}]})
    assert problems(js) == [("spec.volumeClaimPolicies[1].template[0].name",
                             "names must be unique for VolumeClaimPolicies template")]


def test_volume_claim_template_name_syntax():
    js = with_claims(jobset(rjob("job-1")), "InvalidVolumeName", mounts=["InvalidVolumeName"])
    assert problems(js) == [("spec.volumeClaimPolicies[0].template[0].name",
                             utilvalidation.is_dns1123_subdomain("InvalidVolumeName")[0])]


def test_volume_claim_template_name_too_long():
    js = with_claims(jobset(rjob("job-1")), "a" * 64, mounts=["a" * 64])
    assert problems(js) == [("spec.volumeClaimPolicies[0].template[0].name",
                             "VolumeClaimPolicies template name is too long")]


def test_volume_claim_needs_a_matching_mount():
    js = with_claims(jobset(rjob("job-1")), "test-volume", mounts=["other"])
    assert problems(js) == [("spec.replicatedJobs", "replicatedJob containers don't have a matching volumeMount: "
                                                    "test-volume from VolumeClaimPolicies")]


def test_volume_claim_conflicts_with_a_volume():
    js = with_claims(jobset(rjob("job-1")), "conflicting-volume", mounts=["conflicting-volume"],
                     volumes=["conflicting-volume"])
    assert problems(js) == [("spec.replicatedJobs[0].template.spec.template.spec.volumes[0].name",
                             "volume name conflicts with VolumeClaimPolicy template name: conflicting-volume")]
