"""Ports of pkg/runtime/framework/plugins/torch/torch_test.go TestTorchValidate at v2.3.0: reserved env,
envInjection targets and the torchtune checks, each template written as a runtime and run through the
whole engine."""

from __future__ import annotations

import pytest

from kpt_fn import upstream
from kpt_fn.engine import EngineOptions, admission
from support.admission_kit import LORA, NODE, TORCH, errors, job, runtime, trainjob, tune, tune_runtime


# --- Torch plugin ----------------------------------------------------------------------------------

def test_torch_valid_env_and_num_proc():
    tj = trainjob(trainer={"numProcPerNode": 4, "env": [{"name": "test", "value": "v"}]})
    assert errors(admission(tj, runtime(NODE, ml_policy=TORCH), EngineOptions(bundle=upstream.bundle("v2.3.0")))) == []


def test_torch_reserved_envs_sorted():
    tj = trainjob(trainer={"env": [{"name": "test", "value": "v"}, {"name": "PET_NPROC_PER_NODE", "value": "v"},
                                   {"name": "PET_MASTER_ADDR", "value": "x"}]})
    assert errors(admission(tj, runtime(NODE, ml_policy=TORCH), EngineOptions(bundle=upstream.bundle("v2.3.0")))) == [
        ("spec.trainer.env", "must not have reserved envs, invalid envs configured: [PET_MASTER_ADDR PET_NPROC_PER_NODE]")]


def test_reserved_envs_are_allowed_without_torch():
    tj = trainjob(trainer={"env": [{"name": "PET_NNODES", "value": "1"}]})
    assert errors(admission(tj, runtime(NODE, ml_policy={}), EngineOptions(bundle=upstream.bundle("v2.3.0")))) == []


def test_env_injection_targets_each_missing_container():
    ml = {"torch": {"envInjection": {"targets": [{"jobName": "node", "containerNames": ["a", "node-init"]},
                                                 {"jobName": "gone", "containerNames": ["b"]}]}}}
    rt = runtime(job("node", ["node"], init=["node-init"], ancestor="trainer"), ml_policy=ml)
    assert errors(admission(trainjob(), rt, EngineOptions(bundle=upstream.bundle("v2.3.0")))) == [
        ("spec.runtimeRef", 'envInjection target podSet "node" container "a" not found in runtime template'),
        ("spec.runtimeRef", 'envInjection target podSet "gone" container "b" not found in runtime template')]


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
    assert errors(admission(tj, tune_runtime(name), EngineOptions(bundle=upstream.bundle("v2.3.0")))) == want
