"""JAX: node count, the JAX_* distributed env and port 29500 (pkg/runtime/framework/plugins/jax/jax.go at v2.3.0).

Upstream: pkg/runtime/framework/plugins/jax/jax.go. One JAX process per node, so numProcPerNode
and GPUs play no part. Upstream's CustomValidation is a no-op and there is no reserved-env check,
so a user JAX_* variable (added later by the JobSet builder) overrides the generated one.
"""

from __future__ import annotations

from kpt_fn.engine.apply import upsert_env_vars, upsert_ports
from kpt_fn.trainer_names import COMPLETION_INDEX, NODE, PORT, TRAINER

NAME = "JAX"
# PlainML does not run beside this plugin (upstream's PlainML skips the Torch, MPI and JAX policies).
REPLACES = ("plainml",)

def enforce_ml_policy(info, trainjob, options) -> None:
    trainer = (trainjob.get("spec") or {}).get("trainer")
    ps = info.pod_set_by_ancestor(TRAINER)
    if ps is not None and trainer is not None and trainer.get("numNodes") is not None:
        ps.count = trainer["numNodes"]
    if trainer is None:
        return
    container = info.container_by_ancestor(TRAINER, NODE)
    if container is None:
        return
    name = (trainjob.get("metadata") or {}).get("name") or ""
    num_processes = ps.count if ps is not None else 1
    upsert_env_vars(container.env, [
        {"name": "JAX_NUM_PROCESSES", "value": str(num_processes)},
        {"name": "JAX_PROCESS_ID", "valueFrom": {"fieldRef": {"fieldPath": COMPLETION_INDEX}}},
        # Always the literal job name `node` and the TrainJob name as subdomain (jax.go EnforceMLPolicy),
        # whatever the runtime's network.subdomain or trainer job name.
        {"name": "JAX_COORDINATOR_ADDRESS", "value": f"{name}-{NODE}-0-0.{name}:{PORT}"},
    ])
    upsert_ports(container.ports, [{"containerPort": PORT}])
