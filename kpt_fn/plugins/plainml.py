"""PlainML: node count and user env for runtimes without torch/mpi/jax (trainer-semantics.md §4.2).

Upstream: pkg/runtime/framework/plugins/plainml/plainml.go. Also active for xgboost, flux and
mlPolicy-less runtimes, so it runs before those plugins (framework order).
"""

from __future__ import annotations

from kpt_fn.engine.apply import env_vars, upsert_env_vars

NAME = "PlainML"


def is_active(info) -> bool:
    ml = info.runtime_policy.ml_policy_source
    return ml is None or not any(ml.get(k) is not None for k in ("torch", "mpi", "jax"))


def enforce_ml_policy(info, trainjob, options) -> None:
    trainer = (trainjob.get("spec") or {}).get("trainer")
    if trainer is None:
        return
    if trainer.get("numNodes") is not None:
        ps = info.pod_set_by_ancestor("trainer")
        if ps is not None:
            ps.count = trainer["numNodes"]
    container = info.container_by_ancestor("trainer", "node")
    if container is not None:
        upsert_env_vars(container.env, env_vars(trainer.get("env")))
