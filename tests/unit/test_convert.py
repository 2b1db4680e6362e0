"""Legacy API conversion (kpt_fn.convert; the v1alpha1 types of Trainer v2.0.0-v2.2.1)."""

from __future__ import annotations

import copy

import pytest

from kpt_fn import upstream
from kpt_fn import convert
from kpt_fn.engine import expand
from kpt_fn.problems import ERROR, INFO, WARNING
from support.golden_engine import find_case, load_all
from upstream.trainer.test_plugins_golden import load_case


@pytest.mark.parametrize("example", ["first-job", "torch-job"])
def test_design_examples_render_like_their_v1alpha1_form(example):
    old = find_case(f"legacy-{example}-v2alpha1")
    new = find_case(f"legacy-{example}-v1alpha1")
    assert load_all(old / "expected.yaml") == load_all(new / "expected.yaml")
    _, tj_old, rt_old, options = load_case(old)
    _, tj_new, rt_new, _ = load_case(new)
    tj, tj_problems = convert.convert_trainjob(tj_old, upstream.bundle("v2.3.0"))
    rt, rt_problems = convert.convert_runtime(rt_old, upstream.bundle("v2.3.0"))
    assert (tj, rt) == (tj_new, rt_new)
    assert expand(tj, rt, options).objects == expand(tj_new, rt_new, options).objects
    problems = rt_problems + tj_problems
    assert problems and all(p.severity == INFO for p in problems)
    assert all(p.message.startswith("converted from kubeflow.org/v2alpha1: ") for p in problems)
    assert any("apiVersion kubeflow.org/v2alpha1 -> trainer.kubeflow.org/v1alpha1" in p.message for p in problems)


def tj(spec, api="kubeflow.org/v2alpha1", **extra):
    return {"apiVersion": api, "kind": "TrainJob", "metadata": {"name": "j", "namespace": "ns"},
            "spec": {"runtimeRef": {"name": "r"}, **spec}, **extra}


def rt(spec, api="kubeflow.org/v2alpha1", kind="ClusterTrainingRuntime"):
    return {"apiVersion": api, "kind": kind, "metadata": {"name": "r"}, "spec": spec}


def by_severity(problems, severity):
    return [(p.path, p.message) for p in problems if p.severity == severity]


def test_current_objects_are_returned_unchanged():
    current = tj({"trainer": {"numProcPerNode": 4}}, api="trainer.kubeflow.org/v1alpha1")
    assert convert.convert_trainjob(current, upstream.bundle("v2.3.0")) == (current, [])
    assert convert.convert_trainjob(current, upstream.bundle("v2.3.0"))[0] is current
    runtime = rt({"mlPolicy": {"torch": {}}}, api="trainer.kubeflow.org/v1alpha1")
    assert convert.convert_runtime(runtime, upstream.bundle("v2.3.0"))[0] is runtime


def test_input_is_not_mutated():
    old = tj({"trainer": {"numProcPerNode": "3"}, "labels": {"a": "b"}})
    before = copy.deepcopy(old)
    convert.convert_trainjob(old, upstream.bundle("v2.3.0"))
    assert old == before


def test_group_and_managed_by_and_status():
    out, problems = convert.convert_trainjob(tj({"runtimeRef": {"name": "r", "apiGroup": "kubeflow.org",
                                                               "kind": "ClusterTrainingRuntime"},
                                                "managedBy": "kubeflow.org/trainjob-controller"},
                                               status={"conditions": []}), upstream.bundle("v2.3.0"))
    assert out["apiVersion"] == "trainer.kubeflow.org/v1alpha1"
    assert out["spec"]["runtimeRef"]["apiGroup"] == "trainer.kubeflow.org"
    assert out["spec"]["managedBy"] == "trainer.kubeflow.org/trainjob-controller"
    assert "status" not in out
    assert {p.rule for p in problems} == {"legacy/api-version", "legacy/runtime-ref", "legacy/managed-by", "legacy/status"}


def test_trainer_group_v2alpha1_is_legacy_too():
    out, problems = convert.convert_trainjob(tj({}, api="trainer.kubeflow.org/v2alpha1"), upstream.bundle("v2.3.0"))
    assert out["apiVersion"] == "trainer.kubeflow.org/v1alpha1" and len(problems) == 1


@pytest.mark.parametrize("value,rpn,want,severities", [
    ("5", None, 5, [INFO]),
    (" 8 ", None, 8, [INFO]),
    (6, None, 6, [INFO]),  # only the apiVersion changes
    ("auto", {"limits": {"nvidia.com/gpu": 2}}, None, [INFO]),
    ("auto", None, None, [INFO, WARNING]),
    ("cpu", {"requests": {"cpu": "2500m"}}, 3, [INFO]),
    ("cpu", None, None, [WARNING]),
    ("gpu", {"limits": {"nvidia.com/gpu": 4}}, 4, [INFO]),
    ("gpu", {"requests": {"cpu": 1}}, None, [ERROR]),
    ("many", None, None, [ERROR]),
    ("2147483647", None, 2147483647, [INFO]),
    ("2147483648", None, None, [ERROR]),
    ("-2147483649", None, None, [ERROR]),
    ("9" * 999, None, None, [ERROR]),
    ("9" * 5000, None, None, [ERROR]),
    ("0" * 5000 + "7", None, 7, [INFO]),
])
def test_num_proc_per_node(value, rpn, want, severities):
    trainer = {"numProcPerNode": value}
    if rpn:
        trainer["resourcesPerNode"] = rpn
    out, problems = convert.convert_trainjob(tj({"trainer": trainer}), upstream.bundle("v2.3.0"))
    if want is None and ERROR not in severities:
        assert "numProcPerNode" not in out["spec"]["trainer"]
    elif want is not None:
        assert out["spec"]["trainer"]["numProcPerNode"] == want
    assert [p.severity for p in problems if p.rule == "legacy/num-proc-per-node"] == \
        [s for s in severities if not (value == 6)]


def test_v1alpha1_with_string_num_proc_is_converted_without_api_change():
    out, problems = convert.convert_trainjob(tj({"trainer": {"numProcPerNode": "2"}}, api="trainer.kubeflow.org/v1alpha1"), upstream.bundle("v2.3.0"))
    assert out["spec"]["trainer"]["numProcPerNode"] == 2
    assert [p.rule for p in problems] == ["legacy/num-proc-per-node"]
    assert problems[0].message.startswith("converted from trainer.kubeflow.org/v1alpha1: ")


def test_dataset_and_model_config():
    out, problems = convert.convert_trainjob(tj({
        "datasetConfig": {"storageUri": "hf://d", "secretRef": {"name": "s"}},
        "modelConfig": {"input": {"storageUri": "hf://m", "env": [{"name": "A", "value": "1"}]}}}), upstream.bundle("v2.3.0"))
    assert out["spec"]["initializer"] == {"dataset": {"storageUri": "hf://d", "secretRef": {"name": "s"}},
                                          "model": {"storageUri": "hf://m", "env": [{"name": "A", "value": "1"}]}}
    assert not by_severity(problems, ERROR)
    _, problems = convert.convert_trainjob(tj({"modelConfig": {"output": {"storageUri": "hf://o"}}}), upstream.bundle("v2.3.0"))
    assert by_severity(problems, ERROR) == [("spec.modelConfig.output", "cannot convert from kubeflow.org/v2alpha1: "
                                             "spec.modelConfig.output (model export) has no equivalent in v2.3.0")]
    # The run's trainerVersion is the release the message compares with.
    _, problems = convert.convert_trainjob(tj({"modelConfig": {"output": {"storageUri": "hf://o"}}}), upstream.bundle("v2.2.1"))
    assert by_severity(problems, ERROR)[0][1].endswith("has no equivalent in v2.2.1")


def test_labels_and_annotations_become_the_first_runtime_patch():
    out, _ = convert.convert_trainjob(tj({"labels": {"team": "a"}, "annotations": {"x": "y"},
                                         "runtimePatches": [{"manager": "acme.io/m", "time": "2025-01-01T00:00:00Z"}]}), upstream.bundle("v2.3.0"))
    assert out["spec"]["runtimePatches"] == [
        {"manager": "expand-trainjobs.fn.kpt.dev/legacy-metadata",
         "trainingRuntimeSpec": {"template": {"metadata": {"labels": {"team": "a"}, "annotations": {"x": "y"}}}}},
        {"manager": "acme.io/m"}]


def test_kep_pod_spec_overrides():
    out, problems = convert.convert_trainjob(tj({
        "trainer": {"env": [{"name": "KEEP", "value": "1"}]},
        "podSpecOverrides": [
            {"targetJobs": [{"name": "trainer-node"}], "serviceAccountName": "sa",
             "nodeSelector": {"pool": "gpu"}, "tolerations": [{"key": "t", "operator": "Exists"}],
             "containers": [{"name": "trainer", "command": ["python", "x.py"], "env": [{"name": "E", "value": "2"}],
                             "volumeMounts": [{"name": "v", "mountPath": "/v"}]}],
             "volumes": [{"name": "v", "emptyDir": {}}]},
            {"targetJobs": [{"name": "initializer"}], "containers": [
                {"name": "dataset-initializer", "env": [{"name": "D", "value": "3"}]}]},
        ]}), upstream.bundle("v2.3.0"))
    assert not by_severity(problems, ERROR)
    spec = out["spec"]
    assert spec["trainer"] == {"env": [{"name": "KEEP", "value": "1"}, {"name": "E", "value": "2"}],
                               "command": ["python", "x.py"]}
    assert spec["initializer"] == {"dataset": {"env": [{"name": "D", "value": "3"}]}}
    assert spec["runtimePatches"] == [
        {"manager": "expand-trainjobs.fn.kpt.dev/legacy-override-0", "trainingRuntimeSpec": {"template": {"spec": {
            "replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {
                "serviceAccountName": "sa", "nodeSelector": {"pool": "gpu"},
                "tolerations": [{"key": "t", "operator": "Exists"}], "volumes": [{"name": "v", "emptyDir": {}}],
                "containers": [{"name": "node", "volumeMounts": [{"name": "v", "mountPath": "/v"}]}]}}}}}]}}}},
        {"manager": "expand-trainjobs.fn.kpt.dev/legacy-override-1", "trainingRuntimeSpec": {"template": {"spec": {
            "replicatedJobs": [{"name": "dataset-initializer"}, {"name": "model-initializer"}]}}}},
    ]


def test_override_fields_without_equivalent_are_errors():
    _, problems = convert.convert_trainjob(tj({"podSpecOverrides": [{"targetJobs": [{"name": "trainer-node"}], "containers": [
        {"name": "sidecar", "command": ["x"], "envFrom": [{"secretRef": {"name": "s"}}]}]}]}), upstream.bundle("v2.3.0"))
    assert [p[0] for p in by_severity(problems, ERROR)] == [
        "spec.podSpecOverrides[0].containers[0].envFrom", "spec.podSpecOverrides[0].containers[0].command"]


def test_v2_1_pod_template_overrides_keep_metadata():
    out, problems = convert.convert_trainjob(tj({"podTemplateOverrides": [{"targetJobs": [{"name": "node"}],
                                                                          "metadata": {"labels": {"a": "b"}},
                                                                          "spec": {"serviceAccountName": "sa"}}]},
                                               api="trainer.kubeflow.org/v1alpha1"), upstream.bundle("v2.3.0"))
    assert out["spec"]["runtimePatches"][0]["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"] == [
        {"name": "node", "template": {"spec": {"template": {"metadata": {"labels": {"a": "b"}},
                                                            "spec": {"serviceAccountName": "sa"}}}}}]
    assert not by_severity(problems, ERROR)


def test_runtime_torch_policy():
    out, problems = convert.convert_runtime(rt({"mlPolicy": {"torch": {"numProcPerNode": "4"}}},
                                              api="trainer.kubeflow.org/v1alpha1"), upstream.bundle("v2.3.0"))
    assert out["spec"]["mlPolicy"]["torch"] == {}
    assert [p.severity for p in problems] == [INFO, WARNING]
    _, problems = convert.convert_runtime(rt({"mlPolicy": {"torch": {"elasticPolicy": {"maxRestarts": 3}}}}), upstream.bundle("v2.3.0"))
    assert by_severity(problems, ERROR) == [("spec.mlPolicy.torch.elasticPolicy", "cannot convert from "
                                             "kubeflow.org/v2alpha1: mlPolicy.torch.elasticPolicy has no equivalent in v2.3.0")]


def test_kep_runtime_layout_with_initializer_job():
    old = rt({"template": {"spec": {
        "successPolicy": {"operator": "All", "targetReplicatedJobs": ["trainer-node"]},
        "replicatedJobs": [
            {"name": "initializer", "template": {"spec": {"template": {"spec": {
                "containers": [{"name": "dataset-initializer", "image": "d"}, {"name": "model-initializer", "image": "m"}],
                "volumes": [{"name": "initializer", "persistentVolumeClaim": {"claimName": "c"}}]}}}}},
            {"name": "trainer-node", "dependsOn": [{"name": "initializer", "status": "Complete"}],
             "template": {"spec": {"template": {"spec": {"containers": [{"name": "trainer", "image": "t"}]}}}}}]}}})
    out, problems = convert.convert_runtime(old, upstream.bundle("v2.3.0"))
    jobs = out["spec"]["template"]["spec"]["replicatedJobs"]
    assert [j["name"] for j in jobs] == ["dataset-initializer", "model-initializer", "node"]
    assert [j["template"]["metadata"]["labels"]["trainer.kubeflow.org/trainjob-ancestor-step"] for j in jobs] == [
        "dataset-initializer", "model-initializer", "trainer"]
    assert [c["name"] for j in jobs for c in j["template"]["spec"]["template"]["spec"]["containers"]] == [
        "dataset-initializer", "model-initializer", "node"]
    assert jobs[0]["template"]["spec"]["template"]["spec"]["volumes"] == [
        {"name": "initializer", "persistentVolumeClaim": {"claimName": "c"}}]
    assert jobs[2]["dependsOn"] == [{"name": "dataset-initializer", "status": "Complete"},
                                    {"name": "model-initializer", "status": "Complete"}]
    assert out["spec"]["template"]["spec"]["successPolicy"]["targetReplicatedJobs"] == ["node"]
    assert not by_severity(problems, ERROR)


def test_initializer_job_with_other_containers_cannot_be_split():
    old = rt({"template": {"spec": {"replicatedJobs": [{"name": "initializer", "template": {"spec": {"template": {
        "spec": {"containers": [{"name": "fetch"}]}}}}}]}}})
    _, problems = convert.convert_runtime(old, upstream.bundle("v2.3.0"))
    assert by_severity(problems, ERROR)


def test_v1alpha1_runtime_job_names_are_left_alone():
    runtime = rt({"template": {"spec": {"replicatedJobs": [{"name": "trainer-node"}]}}},
                 api="trainer.kubeflow.org/v1alpha1")
    assert convert.convert_runtime(runtime, upstream.bundle("v2.3.0")) == (runtime, [])


@pytest.mark.parametrize(
    "api", ["kubeflow.org/v2alpha1", "trainer.kubeflow.org/v1alpha1"]
)
@pytest.mark.parametrize(
    "spec",
    [
        {"runtimeRef": ["x"], "trainer": {"numProcPerNode": "auto"}},
        {"runtimeRef": "x", "trainer": {"numProcPerNode": "5"}},
        {"podSpecOverrides": "x"},
        {"datasetConfig": "x"},
    ],
)
def test_wrongly_typed_old_fields_are_refused_not_crashed_on(api, spec):
    tj = {"apiVersion": api, "kind": "TrainJob", "metadata": {"name": "a"}, "spec": spec}
    out, problems = convert.convert_trainjob(tj, upstream.bundle("v2.3.0"))
    assert out is tj
    assert [p.severity for p in problems] == ["error"]
    assert problems[0].rule == "legacy/malformed" and "cannot convert TrainJob" in problems[0].message


def test_wrongly_typed_old_runtime_is_refused():
    rt = {"apiVersion": "kubeflow.org/v2alpha1", "kind": "ClusterTrainingRuntime", "metadata": {"name": "a"},
          "spec": {"template": {"spec": {"replicatedJobs": ["x"]}}}}
    _, problems = convert.convert_runtime(rt, upstream.bundle("v2.3.0"))
    assert [p.rule for p in problems] == ["legacy/malformed"]
