"""TrainJob admission checks of the engine (upstream pkg/webhooks/trainjob_webhook.go and each plugin's Validate at v2.3.0), ported from upstream v2.3.0:
pkg/runtime/framework/plugins/{jobset,torch,volcano}/*_test.go `TestValidate`/`TestTorchValidate`,
pkg/webhooks/trainjob_webhook_test.go `TestValidateCreate` and test/integration/webhooks/trainjob_test.go.

Upstream's plugin tests hand-build an Info; here the same template is written as a runtime and goes
through the whole engine, which is what a user of the function sees.
"""

from __future__ import annotations

import pytest

from kpt_fn.engine import EngineOptions, admission, expand
from kpt_fn.problems import ERROR, WARNING

ANC = "trainer.kubeflow.org/trainjob-ancestor-step"


def job(name, containers=(), init=(), ancestor=None, mounts=None, priority_class=None):
    pod = {"containers": [{"name": c, **({"volumeMounts": [{"name": m, "mountPath": f"/{m}"} for m in mounts]}
                                       if mounts else {})} for c in containers]}
    if init:
        pod["initContainers"] = [{"name": c} for c in init]
    if priority_class:
        pod["priorityClassName"] = priority_class
    rj = {"name": name, "template": {"spec": {"template": {"spec": pod}}}}
    if ancestor:
        rj["template"]["metadata"] = {"labels": {ANC: ancestor}}
    return rj


def runtime(*jobs, ml_policy=None, pod_group_policy=None, kind="TrainingRuntime", name="test-runtime",
            annotations=None, labels=None):
    spec = {"template": {"spec": {"replicatedJobs": list(jobs)}}}
    if annotations:
        spec["template"]["metadata"] = {"annotations": annotations}
    if ml_policy is not None:
        spec["mlPolicy"] = ml_policy
    if pod_group_policy is not None:
        spec["podGroupPolicy"] = pod_group_policy
    md = {"name": name}
    if kind == "TrainingRuntime":
        md["namespace"] = "default"
    if labels:
        md["labels"] = labels
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": kind, "metadata": md, "spec": spec}


def trainjob(runtime_name="test-runtime", kind="TrainingRuntime", **spec):
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": "test", "namespace": "default"},
            "spec": {"runtimeRef": {"name": runtime_name, "kind": kind}, **spec}}


def errors(problems):
    return [(p.path, p.message) for p in problems if p.severity == ERROR]


# --- JobSet plugin: initializers --------------------------------------------------------------

NODE = job("node", ["node"], ancestor="trainer")


@pytest.mark.parametrize("initializer", [None, {}, {"dataset": None}])
def test_no_initializer_needs_nothing(initializer):
    tj = trainjob() if initializer is None else trainjob(initializer=initializer)
    assert errors(admission(tj, runtime(NODE))) == []


@pytest.mark.parametrize("kind,config", [("dataset", "datasetConfig"), ("model", "modelConfig")])
def test_initializer_job_required(kind, config):
    tj = trainjob(initializer={kind: {}})
    assert errors(admission(tj, runtime(job("random", ["random"])))) == [
        ("spec.runtimeRef", f"must have {kind}-initializer job when trainJob is configured with input {config}")]


@pytest.mark.parametrize("kind", ["dataset", "model"])
def test_initializer_container_required(kind):
    tj = trainjob(initializer={kind: {}})
    assert errors(admission(tj, runtime(job(f"{kind}-initializer")))) == [
        ("spec.runtimeRef", f"must have container with name - {kind}-initializer in the {kind}-initializer job")]


@pytest.mark.parametrize("kind", ["dataset", "model"])
def test_initializer_volume_mount_required(kind):
    tj = trainjob(initializer={kind: {}})
    assert errors(admission(tj, runtime(job(f"{kind}-initializer", [f"{kind}-initializer"])))) == [
        ("spec.runtimeRef",
         f"must have volumeMount with name - initializer in container {kind}-initializer of the {kind}-initializer job")]


def test_valid_initializers_pass():
    rt = runtime(job("dataset-initializer", ["dataset-initializer"], mounts=["initializer"]),
                 job("model-initializer", ["model-initializer"], mounts=["initializer"]))
    rt["spec"]["template"]["spec"]["volumeClaimPolicies"] = [
        {"templates": [{"metadata": {"name": "initializer"}, "spec": {"accessModes": ["ReadWriteOnce"]}}]}]
    assert errors(admission(trainjob(initializer={"dataset": {}, "model": {}}), rt)) == []


def test_initializer_container_may_be_an_init_container_but_mount_must_be_regular():
    # Upstream's name set holds init and regular containers; the mount check looks at regular ones.
    rt = runtime(job("dataset-initializer", init=["dataset-initializer"]))
    assert errors(admission(trainjob(initializer={"dataset": {}}), rt)) == [
        ("spec.runtimeRef", "must have volumeMount with name - initializer in container dataset-initializer of "
                            "the dataset-initializer job")]


def test_data_cache_runtime_rejects_dataset_initializer():
    # manifests/base/runtimes at v2.3.0: torch-distributed-with-cache has no `initializer` mount (upstream quirk).
    rt = runtime(job("dataset-initializer", ["dataset-initializer"], ancestor="dataset-initializer"), NODE,
                 ml_policy={"numNodes": 1, "torch": {}})
    assert len(errors(admission(trainjob(initializer={"dataset": {"storageUri": "hf://x"}}), rt))) == 1


# --- JobSet plugin: runtimePatches --------------------------------------------------------------


def patch(manager, **pod_spec):
    return {"manager": manager, "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [
        {"name": "node", "template": {"spec": {"template": {"spec": pod_spec}}}}]}}}}


@pytest.mark.parametrize("manager,messages", [
    ("acme.io/manager", []),
    ("kueue.k8s.io/", ['must be a domain-prefixed path (such as "acme.io/foo")']),
    ("manager-1", ['must be a domain-prefixed path (such as "acme.io/foo")']),
    ("Acme.io/x", ["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                   "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
                   "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]),
    ("acme.io/a b", ["Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"]),
])
def test_patch_manager(manager, messages):
    problems = admission(trainjob(runtimePatches=[{"manager": manager}]), runtime(NODE))
    assert errors(problems) == [("spec.runtimePatches.manager", m) for m in messages]


def test_patch_env_on_initializer_and_node_containers_rejected_but_not_on_sidecar():
    rt = runtime(job("node", ["node", "sidecar"], ancestor="trainer"))
    tj = trainjob(runtimePatches=[patch("acme.io/m", containers=[
        {"name": "sidecar", "env": [{"name": "A", "value": "1"}]},
        {"name": "node", "env": [{"name": "B", "value": "2"}]}])])
    assert errors(admission(tj, rt)) == [
        ("spec.runtimePatches", "must not have envs for the dataset-initializer, model-initializer, node containers")]


def test_patch_env_on_init_container_named_node_is_allowed():
    # Upstream only checks `containers`, not `initContainers`, for the reserved names.
    rt = runtime(job("node", ["node"], init=["node-init"], ancestor="trainer"))
    tj = trainjob(runtimePatches=[patch("acme.io/m", initContainers=[
        {"name": "node-init", "env": [{"name": "A", "value": "1"}]}])])
    assert errors(admission(tj, rt)) == []


def test_patch_targets_are_checked_against_the_unpatched_runtime():
    # A first patch adding a container does not make a second patch's target valid (R6.1).
    tj = trainjob(runtimePatches=[patch("acme.io/a", containers=[{"name": "extra"}]),
                                  patch("acme.io/b", containers=[{"name": "extra", "securityContext": {}}])])
    assert errors(admission(tj, runtime(NODE))) == [
        ("spec.runtimePatches", "must not have container that doesn't exist in the runtime job node")] * 2


# --- webhook: registry key, deprecation -----------------------------------------------------------


def test_unsupported_runtime():
    tj = trainjob()
    tj["spec"]["runtimeRef"]["apiGroup"] = "example.com"
    assert errors(admission(tj, runtime(NODE))) == [
        ("spec.runtimeRef", "unsupported runtime: TrainingRuntime.example.com")]
    result = expand(tj, runtime(NODE))
    assert result.objects == [] and errors(result.problems)  # even with admission off


def test_empty_api_group_key_is_kind_only():
    tj = trainjob(kind="ClusterTrainingRuntime")
    tj["spec"]["runtimeRef"]["apiGroup"] = ""
    assert errors(admission(tj, runtime(NODE, kind="ClusterTrainingRuntime"))) == [
        ("spec.runtimeRef", "unsupported runtime: ClusterTrainingRuntime")]


def test_deprecated_cluster_runtime_warns():
    rt = runtime(NODE, kind="ClusterTrainingRuntime", name="old",
                 labels={"trainer.kubeflow.org/support": "deprecated"})
    problems = admission(trainjob(runtime_name="old", kind="ClusterTrainingRuntime"), rt)
    assert [(p.severity, p.message) for p in problems] == [(WARNING, (
        'Referenced ClusterTrainingRuntime "old" is deprecated and will be removed in a future release of Kubeflow '
        "Trainer. See runtime deprecation policy: "
        "https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html#runtime-deprecation-policy"))]
    # A warning does not stop the render.
    assert expand(trainjob(runtime_name="old", kind="ClusterTrainingRuntime"), rt).objects


def test_deprecated_namespaced_runtime_does_not_warn():
    rt = runtime(NODE, labels={"trainer.kubeflow.org/support": "deprecated"})
    assert admission(trainjob(), rt) == []


# --- Torch plugin ----------------------------------------------------------------------------------

TORCH = {"torch": {}}


def test_torch_valid_env_and_num_proc():
    tj = trainjob(trainer={"numProcPerNode": 4, "env": [{"name": "test", "value": "v"}]})
    assert errors(admission(tj, runtime(NODE, ml_policy=TORCH))) == []


def test_torch_reserved_envs_sorted():
    tj = trainjob(trainer={"env": [{"name": "test", "value": "v"}, {"name": "PET_NPROC_PER_NODE", "value": "v"},
                                   {"name": "PET_MASTER_ADDR", "value": "x"}]})
    assert errors(admission(tj, runtime(NODE, ml_policy=TORCH))) == [
        ("spec.trainer.env", "must not have reserved envs, invalid envs configured: [PET_MASTER_ADDR PET_NPROC_PER_NODE]")]


def test_reserved_envs_are_allowed_without_torch():
    tj = trainjob(trainer={"env": [{"name": "PET_NNODES", "value": "1"}]})
    assert errors(admission(tj, runtime(NODE, ml_policy={}))) == []


def test_env_injection_targets_each_missing_container():
    ml = {"torch": {"envInjection": {"targets": [{"jobName": "node", "containerNames": ["a", "node-init"]},
                                                 {"jobName": "gone", "containerNames": ["b"]}]}}}
    rt = runtime(job("node", ["node"], init=["node-init"], ancestor="trainer"), ml_policy=ml)
    assert errors(admission(trainjob(), rt)) == [
        ("spec.runtimeRef", 'envInjection target podSet "node" container "a" not found in runtime template'),
        ("spec.runtimeRef", 'envInjection target podSet "gone" container "b" not found in runtime template')]


def tune(runtime_name, num_nodes=1, args=None, requests=None, nproc=None):
    trainer = {"numNodes": num_nodes, "image": "ghcr.io/kubeflow/trainer/torchtune-trainer", "command": ["tune", "run"],
               "resourcesPerNode": {"requests": requests or {}}}
    if args is not None:
        trainer["args"] = args
    if nproc is not None:
        trainer["numProcPerNode"] = nproc
    return trainjob(runtime_name=runtime_name, kind="ClusterTrainingRuntime", trainer=trainer)


def tune_runtime(name):
    return runtime(NODE, ml_policy=TORCH, kind="ClusterTrainingRuntime", name=name)


LORA = "model.lora_attn_modules=[q_proj, v_proj, output_proj]"


@pytest.mark.parametrize("name,tj,want", [
    ("torchtune-llama3.1-70b", tune("torchtune-llama3.1-70b"),
     [("spec.runtimeRef.name", "must have a supported pretrained model, invalid model configured: llama3_1/70B")]),
    ("torchtune-llama3.2-3b", tune("torchtune-llama3.2-3b", num_nodes=2),
     [("spec.trainer.numNodes", "must be 1 for llama3_2/3B model")]),
    ("torchtune-qwen2.5-1.5b", tune("torchtune-qwen2.5-1.5b", args=[LORA, "model.quantize_base=True"]),
     [("spec.runtimeRef.name", "QLoRA is not supported for qwen2_5/1.5B model")]),
    ("torchtune-llama3.2-1b", tune("torchtune-llama3.2-1b", args=[LORA, "model.quantize_base=True"],
                                   requests={"example.com/gpu": "2"}),
     [("spec.trainer.numProcPerNode", "must be auto or 1 for llama3_2/1B model when using QLoRA"),
      ("spec.trainer.resourcesPerNode", "must have gpu resource with value 1 for llama3_2/1B model when using QLoRA")]),
    ("torchtune-llama3.3-70b", tune("torchtune-llama3.3-70b", num_nodes=2, args=[LORA]),
     [("spec.trainer.numNodes", "LoRA fine-tuning is not supported for multi-node training in TorchTune")]),
    ("torchtune-llama3.3-70b", tune("torchtune-llama3.3-70b", args=[LORA]), []),
    ("torchtune-llama3.2-1b", tune("torchtune-llama3.2-1b", args=["output_dir=/custom/output"]),
     [("spec.trainer.args[0]",
       'must not set immutable config "output_dir" in trainer args; it is managed by the runtime')]),
    ("torchtune-llama3.2-1b", tune("torchtune-llama3.2-1b", args=["output_dir=custom-output", "epochs=1",
                                                                    "tokenizer.path=/some/path"]),
     [("spec.trainer.args[0]",
       'must not set immutable config "output_dir" in trainer args; it is managed by the runtime'),
      ("spec.trainer.args[2]",
       'must not set immutable config "tokenizer.path" in trainer args; it is managed by the runtime')]),
    # DoRA switches QLoRA off, `False` values do not count (torchtune.go isBoolArgEnabled).
    ("torchtune-qwen2.5-1.5b", tune("torchtune-qwen2.5-1.5b", args=[LORA, "model.quantize_base=True",
                                                                    "model.use_dora= TRUE "]), []),
    ("torchtune-qwen2.5-1.5b", tune("torchtune-qwen2.5-1.5b", args=[LORA, "model.quantize_base=False"]), []),
])
def test_torchtune_validation(name, tj, want):
    assert errors(admission(tj, tune_runtime(name))) == want


# --- Volcano plugin --------------------------------------------------------------------------------

VOLCANO = {"volcano": {}}


def test_volcano_priority_class_known():
    rt = runtime(job("node", ["node"], priority_class="existing-priority"), pod_group_policy=VOLCANO)
    assert admission(trainjob(), rt, EngineOptions(knownPriorityClasses=("existing-priority",))) == []


def test_volcano_priority_class_unknown():
    rt = runtime(job("node", ["node"], priority_class="non-existent"), pod_group_policy=VOLCANO)
    assert errors(admission(trainjob(), rt, EngineOptions(knownPriorityClasses=("other",)))) == [
        ("spec.templateSpec.priorityClassName",
         'PriorityClass "non-existent" doesn\'t exist: priorityclasses.scheduling.k8s.io "non-existent" not found')]


def test_volcano_system_priority_class_stops_the_check():
    rt = runtime(job("a", ["a"], priority_class="system-node-critical"), job("b", ["b"], priority_class="unknown"),
                 pod_group_policy=VOLCANO)
    assert admission(trainjob(), rt, EngineOptions(knownPriorityClasses=("other",))) == []


def test_volcano_priority_class_unverifiable_offline_is_a_warning():
    rt = runtime(job("node", ["node"], priority_class="high"), pod_group_policy=VOLCANO)
    assert [p.severity for p in admission(trainjob(), rt)] == [WARNING]


def test_volcano_queue_from_patch_must_not_be_empty():
    rt = runtime(NODE, pod_group_policy=VOLCANO, annotations={"scheduling.volcano.sh/queue-name": "q"})
    tj = trainjob(runtimePatches=[{"manager": "acme.io/q", "trainingRuntimeSpec": {"template": {"metadata": {
        "annotations": {"scheduling.volcano.sh/queue-name": ""}}}}}])
    assert errors(admission(tj, rt)) == [
        ("spec.annotations[scheduling.volcano.sh/queue-name]", "Volcano queue name must not be empty")]


def test_checks_of_inactive_plugins_do_not_run():
    rt = runtime(job("node", ["node"], priority_class="x"))
    assert admission(trainjob(trainer={"env": [{"name": "PET_NNODES", "value": "1"}]}), rt) == []


def test_admission_can_be_switched_off_for_rendering():
    tj = trainjob(runtimePatches=[{"manager": "not-a-domain"}])
    assert errors(expand(tj, runtime(NODE)).problems)
    assert expand(tj, runtime(NODE), EngineOptions(admission=False)).objects


# --- R3.2: merges that would produce nonsense -------------------------------------------------------


def test_patch_changing_volume_source_is_rejected():
    rt = runtime(job("node", ["node"], ancestor="trainer"))
    rt["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["volumes"] = [
        {"name": "data", "emptyDir": {}}]
    tj = trainjob(runtimePatches=[patch("acme.io/m", volumes=[{"name": "data", "secret": {"secretName": "s"}}])])
    assert errors(admission(tj, rt)) == [(
        "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.spec"
        ".volumes[0]", 'must not change the source of runtime volume "data" (emptyDir -> secret): the merge would '
                       "keep both sources")]
    same = trainjob(runtimePatches=[patch("acme.io/m", volumes=[{"name": "data", "emptyDir": {"medium": "Memory"}}])])
    assert errors(admission(same, rt)) == []


def test_patch_switching_env_to_value_from_is_rejected():
    rt = runtime(job("node", ["node", "side"], ancestor="trainer"))
    pod = rt["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    pod["containers"][1]["env"] = [{"name": "A", "value": "1"}]
    tj = trainjob(runtimePatches=[patch("acme.io/m", containers=[
        {"name": "side", "env": [{"name": "A", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]}])])
    assert [m for _, m in errors(admission(tj, rt))] == [
        'must not switch runtime env var "A" between value and valueFrom: the merge would keep both']


def test_string_num_proc_per_node_is_a_render_error_not_a_crash():
    result = expand(trainjob(trainer={"numProcPerNode": "auto"}), runtime(NODE, ml_policy=TORCH))
    assert errors(result.problems) == [("spec.trainer.numProcPerNode", "numProcPerNode must be an integer, got 'auto'")]


def test_merge_failure_is_reported_at_the_patch():
    tj = trainjob(runtimePatches=[{"manager": "acme.io/a"}, patch("acme.io/m", volumes=[{"emptyDir": {}}])])
    rt = runtime(NODE)
    rt["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["volumes"] = [
        {"name": "v", "emptyDir": {}}]
    result = expand(tj, rt, EngineOptions(admission=False))
    assert result.objects == []
    [(path, _)] = errors(result.problems)
    assert path.startswith("spec.runtimePatches[1].trainingRuntimeSpec.template.spec")


def test_malformed_input_is_reported_not_raised():
    result = expand(trainjob(trainer="three nodes"), runtime(NODE, ml_policy={}))
    assert result.objects == [] and errors(result.problems)
