"""JobSet v0.11.1's webhook (the JobSet Trainer v2.2.1 installs): the cases of JobSet's
pkg/webhooks/jobset_webhook_test.go at v0.11.1 (webhook_cases: TestValidateCreate, TestJobSetDefaulting,
TestValidateUpdate, each named by its upstream test and case; NOT_PORTED with reasons) run against the
function's emulation of that release (kpt_fn.validation.jobset_webhook with release v0.11.1,
kpt_fn.lifecycle.jobset_update), then what v0.11.1 does differently from v0.12.0. TestJobSetDefaulting
runs once, in test_jobset_webhook.py: `Default` is the same at both tags, and so is
kpt_fn.lifecycle.jobset_defaults.webhook_default.
"""

from __future__ import annotations

import pytest

from kpt_fn import rules, upstream, validation
from kpt_fn.lifecycle import jobset_update
from kpt_fn.validation import jobset_webhook
from upstream.jobset.webhook_cases import CREATE, DEFAULTING, NOT_PORTED, UPDATE, check_create, jobset, rjob, two_replicas

RELEASE = jobset_webhook.V0_11_1


@pytest.mark.parametrize("js, want, gates, note", CREATE)
def test_validate_create(js, want, gates, note):
    check_create(js, want, gates, note, RELEASE)


VALID = [p for p in CREATE if not p.values[1]]


def test_each_upstream_case_once():
    ported = [p.id for p in CREATE + DEFAULTING + UPDATE]
    assert len(ported) == len(set(ported))
    assert not set(NOT_PORTED) & set(ported)


@pytest.mark.parametrize("js, want, gates, note", VALID)
def test_valid_controls_admitted_by_both_releases(js, want, gates, note):
    """Every valid case of v0.11.1's table passes v0.12.0's webhook too (no false positive either way)."""
    for release in jobset_webhook.RELEASES:
        assert jobset_webhook.check(js, gates, release=release) == [], release


@pytest.mark.parametrize("old, new, want", UPDATE)
def test_validate_update(old, new, want):
    assert [(r.path, r.message) for r in jobset_update.validate_update(old, new, RELEASE)] == want


# --- What v0.11.1 does differently from v0.12.0 ------------------------------------------------------------

@pytest.mark.parametrize("action", jobset_webhook.RESTART_JOB_ACTIONS)
def test_restart_job_actions_are_not_the_webhooks_business(action):
    """v0.12.0's cases "jobset failure policy rule has RestartJob action and RestartJob feature gate is
    disabled" and "... replicas > 1024": v0.11.1 has no such action (its CRD's enum refuses it, a schema
    error under Trainer v2.2.1), and its webhook no RestartJob check, whatever gate is named."""
    js = jobset(rjob(replicas=1025), failurePolicy={"rules": [{"name": "r", "action": action}]})
    for gates in (frozenset(), frozenset({"RestartJob"})):
        assert jobset_webhook.check(js, gates, release=RELEASE) == []
    assert jobset_webhook.check(js, frozenset(), jobset_webhook.V0_12_0) != []
    schema = [p.message for p in validation.check_object(js, upstream.bundle("v2.2.1")) if p.is_error]
    assert any(f'Unsupported value: "{action}"' in m for m in schema), schema
    assert not [p for p in validation.check_object(js, upstream.bundle("v2.3.0"))
                if p.is_error and "action" in p.path]


def test_adding_a_replicated_job_while_suspended_panics_and_is_refused():
    """v0.12.0's case "adding a new ReplicatedJob while suspended does not panic and is rejected": at
    v0.11.1 ValidateUpdate indexes the stored list by the new list's positions and panics; the update
    is refused either way."""
    old = {"kind": "JobSet", "spec": {"replicatedJobs": two_replicas(), "suspend": True}}
    new = {"kind": "JobSet", "spec": {"replicatedJobs": two_replicas() + two_replicas("added"), "suspend": True}}
    assert [(r.path, r.message) for r in jobset_update.validate_update(old, new, RELEASE)] == [
        ("spec.replicatedJobs", "panic: runtime error: index out of range [1] with length 1 [recovered]")]
    assert [(r.path, r.message) for r in jobset_update.validate_update(old, new, jobset_webhook.V0_12_0)] == [
        ("spec.replicatedJobs", "field is immutable")]


def test_the_trainer_release_selects_the_jobset_release():
    assert upstream.bundle("v2.2.1").jobset_release == RELEASE
    assert upstream.bundle("v2.3.0").jobset_release == jobset_webhook.V0_12_0
    js = jobset(rjob(), failurePolicy={"rules": [{"name": "r", "action": "RestartJob"}]})
    assert validation.check_jobset_webhook(js, upstream.bundle("v2.2.1")) == []
    assert [p.rule for p in validation.check_jobset_webhook(js, upstream.bundle("v2.3.0"))] == [
        "jobset-webhook/failure-policy"]


def test_the_catalogue_describes_the_release():
    described = {r["id"]: r["description"] for r in rules.rules(upstream.bundle("v2.2.1"))}
    assert "RestartJob" not in described["jobset-webhook/failure-policy"]


def test_an_unknown_release_is_refused():
    with pytest.raises(ValueError, match="v0.11.1, v0.12.0"):
        jobset_webhook.check(jobset(rjob()), frozenset(), "v0.10.0")
