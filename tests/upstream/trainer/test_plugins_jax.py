"""Ports of pkg/runtime/framework/plugins/jax/jax_test.go at v2.3.0 on hand-built Info objects: the JAX env,
the coordinator port and the guards. End-to-end behaviour is in the golden cases (fixtures/golden/*/jax/)."""

from __future__ import annotations

import pytest

from kpt_fn import upstream
from kpt_fn.engine import EngineOptions
from kpt_fn.plugins import jax

from upstream.trainer.plugin_info import COMPLETION_INDEX, hand_built_info, trainjob, pod_set


# --- JAX -----------------------------------------------------------------------------------------------


def test_jax_no_trainer_pod_set_does_not_fail():
    info = hand_built_info(ml={"jax": {}})
    jax.enforce_ml_policy(info, trainjob("test-job", {"numNodes": 2}), EngineOptions(bundle=upstream.bundle("v2.3.0")))
    assert info.pod_sets == []


@pytest.mark.parametrize("name, count, num_nodes, want", [("test-job", 1, 1, "1"), ("multi-node-job", 2, 4, "4"), ("trainjob", 1, 3, "3")])
def test_jax_env_and_port(name, count, num_nodes, want):
    info = hand_built_info(ml={"jax": {}}, pod_sets=[pod_set("node", "trainer", count)])
    jax.enforce_ml_policy(info, trainjob(name, {"numNodes": num_nodes}), EngineOptions(bundle=upstream.bundle("v2.3.0")))
    c = info.pod_sets[0].containers[0]
    assert c.env == [
        {"name": "JAX_NUM_PROCESSES", "value": want},
        {"name": "JAX_PROCESS_ID", "valueFrom": {"fieldRef": {"fieldPath": COMPLETION_INDEX}}},
        {"name": "JAX_COORDINATOR_ADDRESS", "value": f"{name}-node-0-0.{name}:29500"},
    ]
    assert c.ports == [{"containerPort": 29500}]


def test_jax_gpus_do_not_change_processes():
    info = hand_built_info(ml={"jax": {}}, pod_sets=[pod_set("node", "trainer")])
    trainer = {"numNodes": 2, "resourcesPerNode": {"requests": {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": "4"}}}
    jax.enforce_ml_policy(info, trainjob("gpu-job", trainer), EngineOptions(bundle=upstream.bundle("v2.3.0")))
    assert info.pod_sets[0].containers[0].env[0] == {"name": "JAX_NUM_PROCESSES", "value": "2"}


def test_jax_takes_no_part_in_custom_validation():
    # Upstream's CustomValidation of JAX is a no-op: a user JAX_* variable is no error.
    assert not hasattr(jax, "validate")
