"""No rerun loops (kpt_fn/rerun.py): a rendered JobSet with spec.ttlSecondsAfterFinished is reported,
a warning by default and an error under strict; the controls without a TTL stay silent."""

from __future__ import annotations

import copy

import pytest

from kpt_fn import rerun, rules, upstream
from support.door import run_with

LOCAL = {"config.kubernetes.io/local-config": "true"}


def _runtime(ttl=None, **spec_extra) -> dict:
    template_spec = {
        "replicatedJobs": [{"name": "node", "template": {
            "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
            "spec": {"template": {"spec": {"containers": [{"name": "node", "image": "pytorch/pytorch:2"}]}}},
        }}],
        **spec_extra,
    }
    if ttl is not None:
        template_spec["ttlSecondsAfterFinished"] = ttl
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
        "metadata": {"name": "shared", "annotations": {**LOCAL, "config.kubernetes.io/path": "platform/shared.yaml"}},
        "spec": {"mlPolicy": {"numNodes": 1, "torch": {}}, "template": {"spec": template_spec}},
    }


def _trainjob(name="mnist", runtime="shared") -> dict:
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
        "metadata": {"name": name, "namespace": "team-a", "annotations": dict(LOCAL)},
        "spec": {"runtimeRef": {"name": runtime}},
    }


def _run(items, **spec):
    config = {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "spec": spec} if spec else None
    return run_with(copy.deepcopy(items), config)


def _ttl_results(outcome) -> list:
    return [r for r in outcome.final_results if r.rule == rerun.RULE]


@pytest.mark.parametrize("ttl", [0, 60, 86400])
def test_a_ttl_from_the_runtime_is_a_warning_on_the_runtime_field(ttl):
    outcome = _run([_runtime(ttl), _trainjob()])
    (r,) = _ttl_results(outcome)
    assert outcome.exit_code == 0
    assert (r.severity, r.field, r.file) == ("warning", rerun.RUNTIME_FIELD, "platform/shared.yaml")
    assert r.resource["kind"] == "ClusterTrainingRuntime"
    assert f"JobSet mnist of TrainJob team-a/mnist has spec.ttlSecondsAfterFinished {ttl}" in r.message
    assert "argo-cd#13851" in r.message and "removing its TrainJob from Git" in r.message
    (js,) = [o for o in outcome.items if o.get("kind") == "JobSet"]
    assert js["spec"]["ttlSecondsAfterFinished"] == ttl  # rendered as the controller would, only reported


def test_strict_makes_it_an_error_and_renders_nothing():
    outcome = _run([_runtime(60), _trainjob()], strict=True)
    (r,) = _ttl_results(outcome)
    assert r.severity == "error" and outcome.exit_code == 1


def test_every_trainjob_of_the_runtime_is_named():
    outcome = _run([_runtime(60), _trainjob("a"), _trainjob("b")])
    assert sorted(r.message.split(" has ")[0] for r in _ttl_results(outcome)) == [
        "JobSet a of TrainJob team-a/a", "JobSet b of TrainJob team-a/b"]


def test_validate_mode_names_the_trainer_controllers_rerun_of_failed_trainjobs():
    outcome = _run([_runtime(60), _trainjob()], mode="validate")
    (r,) = _ttl_results(outcome)
    assert r.severity == "warning" and "kubeflow/trainer#3737" in r.message and "failed TrainJob" in r.message


def test_the_rule_is_listed():
    assert rerun.RULE in {r["id"] for r in rules.rules(upstream.bundle("v2.3.0"))}


# --- valid controls: nothing to report ------------------------------------------------------------

CONTROLS = {
    "no ttl": [_runtime(), _trainjob()],
    "a deadline, no ttl": [_runtime(activeDeadlineSeconds=3600), _trainjob()],
    "a built-in runtime": [_trainjob(runtime="torch-distributed")],
    # A JobSet the user writes is passed through: not rendered here, not this rule's business.
    "a JobSet among the inputs": [
        _runtime(), _trainjob(),
        {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "own", "namespace": "team-a"},
         "spec": {"ttlSecondsAfterFinished": 60, "replicatedJobs": []}},
    ],
}


@pytest.mark.parametrize("name", sorted(CONTROLS))
def test_controls_stay_silent(name):
    for mode in ("render", "validate"):
        outcome = _run(CONTROLS[name], mode=mode, strict=True)
        assert _ttl_results(outcome) == [], (name, mode)


def test_check_without_a_runtime_field_blames_the_trainjob():
    jobset = {"kind": "JobSet", "metadata": {"name": "x"}, "spec": {"ttlSecondsAfterFinished": 5}}
    (p,) = rerun.check(jobset, _trainjob("x"), _runtime(), "render", upstream.bundle("v2.3.0"))
    assert p.subject is None and p.path == "spec" and "(from" not in p.message


def test_validate_mode_names_the_selected_release():
    jobset = {"kind": "JobSet", "metadata": {"name": "x"}, "spec": {"ttlSecondsAfterFinished": 60}}
    (p,) = rerun.check(jobset, _trainjob("x"), {}, "validate", upstream.bundle("v2.2.1"))
    assert "Trainer v2.2.1 controller" in p.message and "v2.3.0" not in p.message
