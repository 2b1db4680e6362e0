"""XGBoost: node count, the DMLC_* tracker env and port 29500 (pkg/runtime/framework/plugins/xgboost/xgboost.go at v2.3.0).

Upstream: pkg/runtime/framework/plugins/xgboost/xgboost.go. PlainML is active too and runs first
(framework order), so the user-only env vars precede the DMLC_* ones; upstream's order depends on
its random plugin order (pkg/runtime/framework/core/framework.go New fills the phase from a Go map).
"""

from __future__ import annotations

from kpt_fn.engine.apply import upsert_env_vars, upsert_ports
from kpt_fn.engine.info import resources_per_node
from kpt_fn.quantity import num_gpu
from kpt_fn.trainer_names import COMPLETION_INDEX, NODE, PORT, TRAINER
from kpt_fn.problems import Problem, Rule

NAME = "XGBoost"

ENV_TRACKER_URI = "DMLC_TRACKER_URI"
ENV_TRACKER_PORT = "DMLC_TRACKER_PORT"
ENV_TASK_ID = "DMLC_TASK_ID"
ENV_NUM_WORKER = "DMLC_NUM_WORKER"
RESERVED_ENV = frozenset((ENV_TRACKER_URI, ENV_TRACKER_PORT, ENV_TASK_ID, ENV_NUM_WORKER))

RULE_RESERVED_ENV = "trainer-webhook/xgboost-reserved-env"
RULES = [
    Rule(RULE_RESERVED_ENV, "TrainJob",
         "spec.trainer.env must not set the DMLC_* variables the XGBoost plugin manages."),
]


def enforce_ml_policy(info, trainjob, options) -> None:
    ps = info.pod_set_by_ancestor(TRAINER)
    if ps is None:
        return
    trainer = (trainjob.get("spec") or {}).get("trainer")
    if trainer is None:
        return
    if trainer.get("numNodes") is not None:
        ps.count = trainer["numNodes"]
    container = info.container_by_ancestor(TRAINER, NODE)
    if container is None:
        return
    # GPU training runs one worker per GPU, CPU training one per node.
    gpus = num_gpu(resources_per_node(info, trainjob))
    workers_per_node = gpus if gpus > 0 else 1
    name = (trainjob.get("metadata") or {}).get("name") or ""
    upsert_env_vars(container.env, [
        # No port in the URI, and always `<tj>-node-0-0.<tj>` (xgboost.go EnforceMLPolicy).
        {"name": ENV_TRACKER_URI, "value": f"{name}-{NODE}-0-0.{name}"},
        {"name": ENV_TRACKER_PORT, "value": str(PORT)},
        {"name": ENV_TASK_ID, "valueFrom": {"fieldRef": {"fieldPath": COMPLETION_INDEX}}},
        {"name": ENV_NUM_WORKER, "value": str(ps.count * workers_per_node)},
    ])
    upsert_ports(container.ports, [{"containerPort": PORT}])


def validate(info, trainjob, options) -> list[Problem]:
    """One Forbidden error per reserved env entry, at its index (xgboost.go Validate)."""
    trainer = (trainjob.get("spec") or {}).get("trainer")
    if trainer is None:
        return []
    return [
        Problem(
            message=f"{e.get('name')} is reserved for the XGBoost runtime",
            path=f"spec.trainer.env[{i}]",
            rule=RULE_RESERVED_ENV,
        )
        for i, e in enumerate(trainer.get("env") or ())
        if e.get("name") in RESERVED_ENV
    ]

