"""torchtune support of the Torch plugin: command rewriting and its admission checks.

Upstream: pkg/runtime/framework/plugins/torch/torchtune.go. Not a framework plugin of its own (no
phase functions); the Torch plugin (this package) calls it when `spec.trainer.command` is exactly ["tune", "run"].

`nproc` values below are either an int or the string "auto" (upstream's IntOrString).
"""

from __future__ import annotations

from kpt_fn.trainer_names import ANCESTOR_LABEL, NODE, PORT, TRAINER
from kpt_fn.problems import Problem

ENTRYPOINT = ["tune", "run"]
SUPPORTED_MODELS = ("llama3_2/1B", "llama3_2/3B", "llama3_3/70B", "qwen2_5/1.5B")
IMMUTABLE_CONFIGS = frozenset({"output_dir", "tokenizer.path", "tokenizer.merges_file", "checkpointer.checkpoint_dir"})
LORA_ATTN_MODULES = "model.lora_attn_modules"
QUANTIZE_BASE = "model.quantize_base"
USE_DORA = "model.use_dora"

RULE_TORCHTUNE = "trainer-webhook/torchtune-config"


def is_torchtune(trainjob: dict) -> bool:
    trainer = (trainjob.get("spec") or {}).get("trainer") or {}
    return trainer.get("command") == ENTRYPOINT


def model_from_runtime_ref(name: str) -> str:
    """`torchtune-llama3.2-1b` -> `llama3_2/1B`; names not of three dash-separated parts give ""."""
    parts = name.split("-")
    if len(parts) != 3:
        return ""
    return f"{parts[1].replace('.', '_')}/{parts[2].upper()}"


def is_lora(args) -> bool:
    return any(LORA_ATTN_MODULES in a for a in args or ())


def _bool_arg_enabled(args, item: str) -> bool:
    for arg in args or ():
        name, sep, value = arg.partition("=")
        if sep and item in name and value.strip().lower() == "true":
            return True
    return False


def is_qlora(args, behaviour) -> bool:
    """`behaviour`: the release's row (kpt_fn.upstream.behaviour). DoRA switches QLoRA off. Without
    torchtune_bool_args both names match as substrings of the whole argument, whatever the value
    (torchtune.go isUseQLoraFinetune at v2.2.1: `model.quantize_base=False` still meant QLoRA);
    with it (v2.3.0) they read `name=true`."""
    if not behaviour.torchtune_bool_args:
        args = list(args or ())
        return not any(USE_DORA in a for a in args) and any(QUANTIZE_BASE in a for a in args)
    return not _bool_arg_enabled(args, USE_DORA) and _bool_arg_enabled(args, QUANTIZE_BASE)


def recipe_and_config(num_nodes: int, nproc, gpu: int, trainjob: dict, behaviour) -> tuple[str, str]:
    spec = trainjob.get("spec") or {}
    args = (spec.get("trainer") or {}).get("args") or []
    recipe, suffix = "full_finetune_distributed", "_full"
    if num_nodes == 1 and (nproc == 1 and isinstance(nproc, int) or gpu == 1):
        if is_qlora(args, behaviour):
            recipe, suffix = "lora_finetune_single_device", "_qlora_single_device"
        elif is_lora(args):
            recipe, suffix = "lora_finetune_single_device", "_lora_single_device"
        else:
            recipe, suffix = "full_finetune_single_device", "_full_single_device"
    elif num_nodes == 1 and is_qlora(args, behaviour):
        recipe, suffix = "lora_finetune_distributed", "_qlora"
    elif num_nodes == 1 and is_lora(args):
        recipe, suffix = "lora_finetune_distributed", "_lora"
    elif num_nodes > 1:
        suffix = "_full_multinode"
    model = model_from_runtime_ref((spec.get("runtimeRef") or {}).get("name") or "")
    return recipe, model + suffix


def runtime_overrides(info) -> list[str]:
    """The immutable `key=value` items of the runtime trainer command, in runtime order."""
    out = []
    for rj in info.replicated_jobs:
        labels = ((rj.get("template") or {}).get("metadata") or {}).get("labels") or {}
        if labels.get(ANCESTOR_LABEL) != TRAINER:
            continue
        pod = ((((rj.get("template") or {}).get("spec") or {}).get("template") or {}).get("spec")) or {}
        for c in pod.get("containers") or ():
            if c.get("name") != NODE:
                continue
            out.extend(item for item in c.get("command") or () if item.split("=", 1)[0] in IMMUTABLE_CONFIGS)
    return out


def rewrite_command(info, trainjob: dict, num_nodes: int, nproc, gpu: int, behaviour) -> None:
    """Replace spec.trainer.command of the TrainJob copy with the full torchtune command line."""
    name = trainjob["metadata"]["name"]
    new = []
    if num_nodes > 1 or (isinstance(nproc, int) and nproc > 1) or (isinstance(nproc, str) and gpu > 1):
        new.append(f"--rdzv_endpoint={name}-{NODE}-0-0.{name}:{PORT}")
    recipe, config = recipe_and_config(num_nodes, nproc, gpu, trainjob, behaviour)
    new += [recipe, "--config", config]
    new += runtime_overrides(info)
    trainer = trainjob["spec"]["trainer"]
    trainer["command"] = list(trainer["command"]) + new


def validate(info, trainjob: dict, gpu: int, behaviour) -> list[Problem]:
    """torchtune admission checks; `gpu` is the GPU count of resources_per_node (validateTorchTune
    counts it with GetNumGPUPerNode). The LoRA multi-node and immutable-args checks are new in v2.3.0
    (torchtune.go validateTorchTune): the torchtune_v2_3_checks switch."""
    spec = trainjob.get("spec") or {}
    trainer = spec.get("trainer") or {}
    ref_name = (spec.get("runtimeRef") or {}).get("name") or ""
    model = model_from_runtime_ref(ref_name)
    problems = []

    def err(msg, path):
        problems.append(Problem(msg, path, rule=RULE_TORCHTUNE))

    if model not in SUPPORTED_MODELS:
        err(f"must have a supported pretrained model, invalid model configured: {model}", "spec.runtimeRef.name")
    num_nodes = trainer.get("numNodes")
    num_nodes = 1 if num_nodes is None else num_nodes
    if num_nodes > 1 and model != "llama3_3/70B":
        err(f"must be 1 for {model} model", "spec.trainer.numNodes")
    # No auto -> CPU conversion here, unlike the reconciler (a quirk upstream has too).
    nproc = trainer.get("numProcPerNode")
    nproc = "auto" if nproc is None else nproc
    _, config = recipe_and_config(num_nodes, nproc, gpu, trainjob, behaviour)
    if "_qlora" in config:
        if model == "qwen2_5/1.5B":
            err(f"QLoRA is not supported for {model} model", "spec.runtimeRef.name")
        if "_qlora_single_device" not in config and model in ("llama3_2/1B", "llama3_2/3B"):
            err(f"must be auto or 1 for {model} model when using QLoRA", "spec.trainer.numProcPerNode")
            err(f"must have gpu resource with value 1 for {model} model when using QLoRA",
                "spec.trainer.resourcesPerNode")
    args = trainer.get("args") or []
    if not behaviour.torchtune_v2_3_checks:
        return problems
    if num_nodes > 1 and (is_lora(args) or is_qlora(args, behaviour)):
        err("LoRA fine-tuning is not supported for multi-node training in TorchTune", "spec.trainer.numNodes")
    for i, arg in enumerate(args):
        key = arg.split("=", 1)[0]
        if key in IMMUTABLE_CONFIGS:
            err(f'must not set immutable config "{key}" in trainer args; it is managed by the runtime',
                f"spec.trainer.args[{i}]")
    return problems
