"""PlainML: node count and user env for runtimes without torch/mpi/jax (pkg/runtime/framework/plugins/plainml/plainml.go at v2.3.0).

Upstream: pkg/runtime/framework/plugins/plainml/plainml.go. Also active for xgboost, flux and
mlPolicy-less runtimes, so it runs before those plugins (registry order). Torch, MPI and JAX
replace it (their REPLACES), as upstream's guard skips it for those three policies.
"""

from __future__ import annotations

from kpt_fn.engine.apply import env_vars, upsert_env_vars
from kpt_fn.trainer_names import NODE, TRAINER

NAME = "PlainML"


def enforce_ml_policy(info, trainjob, options) -> None:
    trainer = (trainjob.get("spec") or {}).get("trainer")
    if trainer is None:
        return
    if trainer.get("numNodes") is not None:
        ps = info.pod_set_by_ancestor(TRAINER)
        if ps is not None:
            ps.count = trainer["numNodes"]
    container = info.container_by_ancestor(TRAINER, NODE)
    if container is not None:
        upsert_env_vars(container.env, env_vars(trainer.get("env")))
