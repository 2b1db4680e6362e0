"""Torch: torchrun PET_* environment, numProcPerNode, envInjection, torchtune.

Upstream: pkg/runtime/framework/plugins/torch/torch.go. Active when the runtime has mlPolicy.torch.
A package as upstream's plugin is: torchtune.py beside it is its torchtune support (torchtune.go).
"""

from __future__ import annotations

from kpt_fn.engine.apply import env_vars, upsert_env_vars, upsert_ports
from kpt_fn.engine.framework import RenderError
from kpt_fn.engine.info import resources_per_node
from kpt_fn.plugins.torch import torchtune
from kpt_fn.trainer_names import COMPLETION_INDEX, NODE, PORT, TRAINER
from kpt_fn.problems import Problem, Rule
from kpt_fn.quantity import num_cpu, num_gpu

NAME = "Torch"
# PlainML does not run beside this plugin (upstream's PlainML skips the Torch, MPI and JAX policies).
REPLACES = ("plainml",)
RESERVED_ENVS = ("PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT")

RULE_RESERVED_ENV = "trainer-webhook/torch-reserved-env"
RULE_ENV_INJECTION = "trainer-webhook/torch-env-injection-target"

RULES = [
    Rule(RULE_RESERVED_ENV, "TrainJob",
         "spec.trainer.env must not set the torchrun variables PET_NNODES, PET_NPROC_PER_NODE, "
         "PET_NODE_RANK, PET_MASTER_ADDR, PET_MASTER_PORT"),
    Rule(RULE_ENV_INJECTION, "TrainJob",
         "every mlPolicy.torch.envInjection target container must exist in the runtime job it names",
         behaviour="torch_env_injection"),
    Rule(torchtune.RULE_TORCHTUNE, "TrainJob",
         "torchtune (`command: [tune, run]`): supported model, single node except llama3.3-70B, QLoRA "
         "limits, LoRA not multi-node, runtime-managed config items not overridable in args",
         behaviour="torchtune_v2_3_checks"),
    Rule(torchtune.RULE_TORCHTUNE, "TrainJob",
         "torchtune (`command: [tune, run]`): supported model, single node except llama3.3-70B, QLoRA "
         "limits (QLoRA: an argument containing model.quantize_base and none containing use_dora, whatever "
         "their values)", behaviour="not torchtune_v2_3_checks"),
]


def _env_injection_targets(info):
    torch = info.runtime_policy.ml_policy_source["torch"]
    for target in ((torch.get("envInjection") or {}).get("targets")) or ():
        for name in target.get("containerNames") or ():
            yield target, name


def _not_found(job, name) -> str:
    return f'envInjection target podSet "{job}" container "{name}" not found in runtime template'


def enforce_ml_policy(info, trainjob, options) -> None:
    name = trainjob["metadata"]["name"]
    trainer = (trainjob.get("spec") or {}).get("trainer")
    ps = info.pod_set_by_ancestor(TRAINER)
    if ps is not None and trainer is not None and trainer.get("numNodes") is not None:
        ps.count = trainer["numNodes"]

    nproc = "auto"
    if trainer is not None and trainer.get("numProcPerNode") is not None:
        nproc = trainer["numProcPerNode"]
        if isinstance(nproc, bool) or not isinstance(nproc, int):
            # Legacy strings are converted by kpt_fn.convert before the engine runs.
            raise RenderError(f"numProcPerNode must be an integer, got {nproc!r}", "spec.trainer.numProcPerNode")
    res = resources_per_node(info, trainjob)
    gpu = num_gpu(res)
    if nproc == "auto" and gpu == 0:
        nproc = max(1, num_cpu(res))

    container = info.container_by_ancestor(TRAINER, NODE) if trainer is not None else None
    if container is not None:
        upsert_env_vars(container.env, env_vars(trainer.get("env")))

    num_nodes = ps.count if ps is not None else 1

    def pet():
        # Fresh dicts for every container, so no sub-tree is shared in the output.
        return [
            {"name": "PET_NNODES", "value": str(num_nodes)},
            {"name": "PET_NPROC_PER_NODE", "value": str(nproc)},
            {"name": "PET_NODE_RANK", "valueFrom": {"fieldRef": {"fieldPath": COMPLETION_INDEX}}},
        ]

    def master():
        return [
            {"name": "PET_MASTER_ADDR", "value": f"{name}-{NODE}-0-0.{name}"},
            {"name": "PET_MASTER_PORT", "value": str(PORT)},
        ]

    if container is not None:
        upsert_env_vars(container.env, pet())
        if not torchtune.is_torchtune(trainjob):
            upsert_env_vars(container.env, master())
        else:
            torchtune.rewrite_command(info, trainjob, num_nodes, nproc, gpu, options.bundle.behaviour)
        upsert_ports(container.ports, [{"containerPort": PORT}])

    # Auxiliary containers always get the master address, torchtune or not.
    for target, cname in _env_injection_targets(info):
        c = info.container_by_pod_set_name(target.get("jobName"), cname)
        if c is None:
            raise RenderError(_not_found(target.get("jobName"), cname), "spec.runtimeRef", rule=RULE_ENV_INJECTION)
        upsert_env_vars(c.env, pet())
        upsert_env_vars(c.env, master())


def validate(info, trainjob, options) -> list[Problem]:
    problems = []
    for target, cname in _env_injection_targets(info):
        if info.container_by_pod_set_name(target.get("jobName"), cname) is None:
            problems.append(Problem(_not_found(target.get("jobName"), cname), "spec.runtimeRef",
                                    rule=RULE_ENV_INJECTION))
    trainer = (trainjob.get("spec") or {}).get("trainer")
    if trainer is None:
        return problems
    reserved = sorted({e.get("name") for e in trainer.get("env") or () if e.get("name") in RESERVED_ENVS})
    if reserved:
        problems.append(Problem(f"must not have reserved envs, invalid envs configured: [{' '.join(reserved)}]",
                                "spec.trainer.env", rule=RULE_RESERVED_ENV))
    if torchtune.is_torchtune(trainjob):
        problems.extend(torchtune.validate(info, trainjob, num_gpu(resources_per_node(info, trainjob)),
                                           options.bundle.behaviour))
    return problems
