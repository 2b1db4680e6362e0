"""Kueue v0.19.2's pkg/controller/jobs/jobset/jobset_webhook_test.go, ported: TestValidateCreate's
topology cases (kpt_fn/profiles/kueue_tas.py) and TestDefault's default-LocalQueue cases (the `kueue` profile)."""

from __future__ import annotations

from kpt_fn.profiles import kueue_names
from tests.support.kueue_kit import BLOCK, KUEUE, RACK, TAS, found, jobsets, local_queue, run, runtime, tas, trainjob


# pkg/controller/jobs/jobset/jobset_webhook_test.go TestValidateCreate, the topology cases.
def test_jobset_webhook_topology_cases():
    assert tas(({TAS.REQUIRED_TOPOLOGY: BLOCK}, 1), ({TAS.REQUIRED_TOPOLOGY: BLOCK}, 1)) == []
    assert [m for _, m in tas(({TAS.REQUIRED_TOPOLOGY: BLOCK}, 1), ({TAS.PREFERRED_TOPOLOGY: BLOCK, TAS.REQUIRED_TOPOLOGY: BLOCK}, 1))] == [
        f'Invalid value: must not contain more than one topology annotation: ["{TAS.REQUIRED_TOPOLOGY}", '
        f'"{TAS.PREFERRED_TOPOLOGY}", "{TAS.UNCONSTRAINED_TOPOLOGY}"]']
    assert [m for _, m in tas(({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.SLICE_REQUIRED_TOPOLOGY: BLOCK, TAS.SLICE_SIZE: "20"}, 2))] == [
        'Invalid value: "20": must not be greater than pod set count 2']
    grouped = {TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.GROUP_NAME: "groupname"}
    assert tas((grouped, 1), (grouped, 2)) == []
    assert len(tas((grouped, 1), (grouped, 1), (dict(grouped, **{TAS.GROUP_NAME: "other"}), 2),
                    (dict(grouped, **{TAS.GROUP_NAME: "other"}), 2))) == 2  # "no leader in group", both named
    rack = dict(grouped, **{TAS.REQUIRED_TOPOLOGY: RACK})
    assert [m.split(":")[0] for _, m in tas((rack, 1), (grouped, 2))] == ["Invalid value", "Invalid value"]


def test_the_namespaces_default_local_queue_is_what_kueue_assigns():
    """jobframework/defaults.go: with no queue named, the webhook sets the label to the LocalQueue
    `default` of the namespace when it exists (jobset_webhook_test.go "default lq is created, job
    doesn't have queue label")."""
    outcome = run([runtime(), trainjob(), local_queue("default")], {"profile": "kueue"})
    assert outcome.exit_code == 0
    [js] = jobsets(outcome)
    assert js["metadata"]["labels"][kueue_names.QUEUE_LABEL] == "default"
    assert any("webhook assigns" in r["message"] for r in outcome.results if r["severity"] == "info")
    # "default lq isn't created": another namespace's, or another name, is no default.
    for other in (local_queue("default", namespace="other"), local_queue("team")):
        outcome = run([runtime(), trainjob(), other], {"profile": "kueue"})
        assert outcome.exit_code == 1 and "no LocalQueue" in found(outcome, kueue_names.RULE_QUEUE)[0][1]
    # "default lq is created, job has queue label": the named queue stays. (The named LocalQueue is
    # among the inputs too: beside the namespace's LocalQueues, a name none of them has is an error
    # here, issue 32 point 4; the webhook itself does not look, the Workload then never admits.)
    job = trainjob()
    job["metadata"]["labels"] = {kueue_names.QUEUE_LABEL: "team"}
    [js] = jobsets(run([runtime(), job, local_queue("default"), local_queue("team")], {"profile": "kueue"}))
    assert js["metadata"]["labels"][kueue_names.QUEUE_LABEL] == "team"
    [js] = jobsets(run([runtime(), trainjob(), local_queue("default"), local_queue("q")], KUEUE))
    assert js["metadata"]["labels"][kueue_names.QUEUE_LABEL] == "q"
    assert run([runtime(), job, local_queue("default")], {"profile": "kueue"}).exit_code == 1
