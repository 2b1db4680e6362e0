"""Trainer v2.2.1's Torch admission checks: pkg/runtime/framework/plugins/torch/torch_test.go
TestTorchValidate at v2.2.1 as data (each case named by its upstream case), run through the engine with
`trainerVersion: v2.2.1`, then the v2.3.0 cases (test_plugins_torch.py) whose answer v2.2.1 changes:
no LoRA multi-node and no immutable-args check (new in v2.3.0's validateTorchTune), and QLoRA/DoRA
matched as substrings whatever the value (isUseQLoraFinetune at v2.2.1).

Not ported: "no action when info is nil", "... does not have MLPolicySource", "... but no Torch policy"
and "... does not have numProcPerNode" hand-build an Info the engine never makes from a runtime (a
runtime without mlPolicy.torch does not switch the plugin on; the admitted cases below cover it).
"""

from __future__ import annotations

import pytest

from kpt_fn import upstream
from kpt_fn.engine import EngineOptions, admission
from support.admission_kit import LORA, errors, job, runtime, trainjob, tune, tune_runtime

V221 = EngineOptions(bundle=upstream.bundle("v2.2.1"))
V230 = EngineOptions(bundle=upstream.bundle("v2.3.0"))
TORCH = {"torch": {}}


def case(name, tj, rt, want):
    return pytest.param(tj, rt, want, id=f"TestTorchValidate/{name}")


CASES = [
    case("valid environment variable present",
         trainjob(trainer={"env": [{"name": "test", "value": "value"}]}),
         runtime(job("node", ["node"], ancestor="trainer"), ml_policy=TORCH), []),
    case("reserved environment variable present",
         trainjob(trainer={"env": [{"name": "test", "value": "value"}, {"name": "PET_NPROC_PER_NODE", "value": "value"}]}),
         runtime(job("node", ["node"], ancestor="trainer"), ml_policy=TORCH),
         [("spec.trainer.env", "must not have reserved envs, invalid envs configured: [PET_NPROC_PER_NODE]")]),
    case("unsupported pretrained model", tune("torchtune-llama3.1-70b"), tune_runtime("torchtune-llama3.1-70b"),
         [("spec.runtimeRef.name", "must have a supported pretrained model, invalid model configured: llama3_1/70B")]),
    case("multi-node mode is only enabled for Llama-3.3-70b", tune("torchtune-llama3.2-3b", num_nodes=2),
         tune_runtime("torchtune-llama3.2-3b"), [("spec.trainer.numNodes", "must be 1 for llama3_2/3B model")]),
    case("qlora is not supported for qwen in torchtune",
         tune("torchtune-qwen2.5-1.5b", args=[LORA, "model.quantize_base=True"]), tune_runtime("torchtune-qwen2.5-1.5b"),
         [("spec.runtimeRef.name", "QLoRA is not supported for qwen2_5/1.5B model")]),
    case("muti-devices qlora is not supported for llama3.2-1b in torchtune",
         tune("torchtune-llama3.2-1b", args=[LORA, "model.quantize_base=True"], requests={"example.com/gpu": "2"}),
         tune_runtime("torchtune-llama3.2-1b"),
         [("spec.trainer.numProcPerNode", "must be auto or 1 for llama3_2/1B model when using QLoRA"),
          ("spec.trainer.resourcesPerNode", "must have gpu resource with value 1 for llama3_2/1B model when using QLoRA")]),
]


@pytest.mark.parametrize("tj, rt, want", CASES)
def test_torch_validate(tj, rt, want):
    assert errors(admission(tj, rt, V221)) == want


# v2.3.0's TestTorchValidate cases (test_plugins_torch.py) with v2.2.1's answer and v2.3.0's.
CHANGED = [
    pytest.param(tune("torchtune-llama3.3-70b", num_nodes=2, args=[LORA]), "torchtune-llama3.3-70b", [],
                 [("spec.trainer.numNodes", "LoRA fine-tuning is not supported for multi-node training in TorchTune")],
                 id="LoRA multi-node: no check at v2.2.1"),
    pytest.param(tune("torchtune-llama3.2-1b", args=["output_dir=/custom/output"]), "torchtune-llama3.2-1b", [],
                 [("spec.trainer.args[0]",
                   'must not set immutable config "output_dir" in trainer args; it is managed by the runtime')],
                 id="immutable args: no check at v2.2.1"),
    pytest.param(tune("torchtune-qwen2.5-1.5b", args=[LORA, "model.quantize_base=False"]), "torchtune-qwen2.5-1.5b",
                 [("spec.runtimeRef.name", "QLoRA is not supported for qwen2_5/1.5B model")], [],
                 id="quantize_base=False still QLoRA at v2.2.1 (substring)"),
    pytest.param(tune("torchtune-qwen2.5-1.5b", args=[LORA, "model.quantize_base=True", "model.use_dora=False"]),
                 "torchtune-qwen2.5-1.5b", [],
                 [("spec.runtimeRef.name", "QLoRA is not supported for qwen2_5/1.5B model")],
                 id="use_dora=False still DoRA at v2.2.1 (substring)"),
]


@pytest.mark.parametrize("tj, runtime_name, v221, v230", CHANGED)
def test_checks_that_v2_3_0_changed(tj, runtime_name, v221, v230):
    rt = tune_runtime(runtime_name)
    assert errors(admission(tj, rt, V221)) == v221
    assert errors(admission(tj, rt, V230)) == v230
