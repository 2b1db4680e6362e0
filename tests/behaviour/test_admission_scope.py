"""Admission scope: which admission rules see which objects.

* The TrainJob webhook has no objectSelector and no managedBy check, so a TrainJob managed by
  another controller is still checked (fixtures/golden/v2.3.0/admission/admission-managed-by-external-still-checked);
  nothing is rendered for it when it passes.
* The runtime webhooks skip runtimes labelled trainer.kubeflow.org/webhook-validation=disabled
  (fixtures/golden/v2.3.0/admission/runtime-webhook-validation-disabled shows what the builders then do).
"""

from __future__ import annotations

from kpt_fn import upstream

import copy

import pytest

from kpt_fn import validation
from kpt_fn.engine import expand

from support.golden_engine import Case, engine_options, find_case
from support.door import run_with



def _rt_errors(runtime) -> list[str]:
    return [p.message for p in validation.check_runtime_webhook(runtime, upstream.bundle("v2.3.0"))]


def test_runtime_webhook_skips_runtimes_with_validation_disabled():
    runtime = Case(find_case("runtime-webhook-validation-disabled")).runtime
    assert _rt_errors(runtime) == []
    checked = copy.deepcopy(runtime)
    del checked["metadata"]["labels"]
    assert _rt_errors(checked) == [
        "always must be 1", "must contain the required container for the ancestor: dataset-initializer",
        "always must be 1"]


def test_runtime_webhook_label_must_say_disabled():
    runtime = copy.deepcopy(Case(find_case("runtime-webhook-validation-disabled")).runtime)
    runtime["metadata"]["labels"]["trainer.kubeflow.org/webhook-validation"] = "enabled"
    assert len(_rt_errors(runtime)) == 3


def test_deprecation_warning_is_skipped_with_the_rest_of_the_runtime_webhook():
    runtime = copy.deepcopy(Case(find_case("runtime-webhook-validation-disabled")).runtime)
    runtime["metadata"]["labels"]["trainer.kubeflow.org/support"] = "deprecated"
    assert _rt_errors(runtime) == []


def _run(items):
    outcome = run_with(copy.deepcopy(items), {})
    return outcome.exit_code, [r for r in outcome.results]


def test_function_renders_with_an_unvalidated_runtime():
    case = Case(find_case("runtime-webhook-validation-disabled"))
    code, results = _run([case.trainjob, case.runtime])
    assert code == 0, results


@pytest.mark.upstream  # a case with a shipped runtime
def test_external_manager_valid_trainjob_renders_nothing_with_a_warning():
    case = Case(find_case("admission-managed-by-external-still-checked"))
    trainjob = copy.deepcopy(case.trainjob)
    trainjob["spec"]["trainer"]["env"] = [{"name": "OK", "value": "1"}]
    result = expand(trainjob, case.runtime, engine_options({}))
    assert result.objects == []
    assert [(p.severity, p.path) for p in result.problems] == [("warning", "spec.managedBy")]


@pytest.mark.upstream  # a case with a shipped runtime
def test_external_manager_invalid_trainjob_fails_the_function():
    case = Case(find_case("admission-managed-by-external-still-checked"))
    code, _ = _run([case.trainjob])
    assert code != 0


# Negative numNodes: nothing in upstream's admission checks the sign, so the
# outcome is whatever the builders make of it -- every runtime follows upstream's code path.
@pytest.mark.upstream  # a case with a shipped runtime
def test_negative_num_nodes_torch_fails_like_the_job_api():
    code, results = _run([Case(find_case("numnodes-negative-torch")).trainjob])
    assert code != 0
    assert any("must be greater than or equal to 0" in str(r) for r in results)


@pytest.mark.upstream  # a case with a shipped runtime
def test_negative_num_nodes_mpi_launcher_as_node_renders_one_node():
    code, results = _run([Case(find_case("numnodes-negative-mpi-launcher-as-node")).trainjob])
    assert code == 0, results


@pytest.mark.upstream  # a case with a shipped runtime
def test_negative_num_nodes_mpi_without_launcher_as_node_fails_like_the_job_api():
    case = Case(find_case("numnodes-negative-mpi-launcher-as-node"))
    runtime = copy.deepcopy(case.runtime)
    runtime["spec"]["mlPolicy"]["mpi"]["runLauncherAsNode"] = False
    runtime["metadata"]["name"] = "mpi-no-launcher-node"
    trainjob = copy.deepcopy(case.trainjob)
    trainjob["spec"]["runtimeRef"]["name"] = "mpi-no-launcher-node"
    code, results = _run([trainjob, runtime])
    assert code != 0
    assert any("must be greater than or equal to 0" in str(r) for r in results)


@pytest.mark.upstream  # a case with a shipped runtime
def test_zero_num_nodes_renders():
    code, results = _run([Case(find_case("numnodes-zero-torch")).trainjob])
    assert code == 0, results


def test_deprecation_warning_only_for_cluster_training_runtimes():
    """pkg/runtime/core/trainingruntime.go ValidateObjects has no deprecation warning."""
    case = Case(find_case("deprecated-cluster-runtime-warning"))
    runtime = copy.deepcopy(case.runtime)
    runtime["kind"] = "TrainingRuntime"
    runtime["metadata"]["namespace"] = "default"
    trainjob = copy.deepcopy(case.trainjob)
    trainjob["spec"]["runtimeRef"]["kind"] = "TrainingRuntime"
    result = expand(trainjob, runtime, engine_options({}))
    assert result.problems == [] and len(result.objects) == 1


def test_volcano_priority_class_checked_when_the_critical_class_comes_later():
    case = Case(find_case("volcano-priority-class-system-critical-stops-checks"))
    runtime = copy.deepcopy(case.runtime)
    runtime["spec"]["template"]["spec"]["replicatedJobs"].reverse()
    result = expand(case.trainjob, runtime, case.options)
    assert [(p.severity, p.path, p.message) for p in result.problems] == [
        ("error", "spec.templateSpec.priorityClassName",
         'PriorityClass "missing-class" doesn\'t exist: priorityclasses.scheduling.k8s.io "missing-class" not found')]


@pytest.mark.parametrize("case_name", [
    "flux-integration", "jax-integration", "xgboost-integration",
    "plainml-numnodes-from-trainjob", pytest.param("numnodes-negative-torch", marks=pytest.mark.upstream)])
def test_negative_num_nodes_on_the_trainer_job_is_a_job_api_error_for_every_runtime(case_name):
    case = Case(find_case(case_name))
    trainjob = copy.deepcopy(case.trainjob)
    trainjob["spec"].setdefault("trainer", {})["numNodes"] = -3
    code, results = _run([trainjob, case.runtime])
    assert code != 0
    # the Job API's error, pointed at the TrainJob's numNodes (the unit-test runtimes' containers
    # also lack images, which the Job API requires)
    errors = [r for r in results if r.get("severity") == "error" and not r["message"].endswith(".image: Required value")]
    assert errors and all(r["message"].endswith("Invalid value: -3: must be greater than or equal to 0")
                          and r["field"]["path"] == "spec.trainer.numNodes" for r in errors), errors
