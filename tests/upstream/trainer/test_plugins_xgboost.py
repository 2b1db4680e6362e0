"""Ports of pkg/runtime/framework/plugins/xgboost/xgboost_test.go at v2.3.0 (TestXGBoostEnforceMLPolicy,
TestXGBoostValidate) on hand-built Info objects: the worker count and the reserved-env checks. End-to-end
behaviour is in the golden cases (fixtures/golden/*/xgboost/)."""

from __future__ import annotations

import pytest

from kpt_fn import upstream
from kpt_fn.engine import EngineOptions
from kpt_fn.plugins import xgboost

from upstream.trainer.plugin_info import COMPLETION_INDEX, hand_built_info, trainjob, pod_set


# --- XGBoost -------------------------------------------------------------------------------------------


def test_xgboost_no_env_without_trainer():
    info = hand_built_info(ml={"xgboost": {}}, pod_sets=[pod_set("node", "trainer")])
    xgboost.enforce_ml_policy(info, trainjob(), EngineOptions(bundle=upstream.bundle("v2.3.0")))
    assert info.pod_sets[0].containers[0].env == [] and info.pod_sets[0].count == 1


@pytest.mark.parametrize(
    "num_nodes, resources, want",
    [(1, None, "1"), (3, None, "3"), (2, {"limits": {"nvidia.com/gpu": "4"}}, "8"), (4, {"requests": {"cpu": "16"}}, "4")],
)
def test_xgboost_workers(num_nodes, resources, want):
    info = hand_built_info(ml={"xgboost": {}}, pod_sets=[pod_set("node", "trainer")])
    trainer = {"numNodes": num_nodes}
    if resources:
        trainer["resourcesPerNode"] = resources
    xgboost.enforce_ml_policy(info, trainjob("xgb", trainer), EngineOptions(bundle=upstream.bundle("v2.3.0")))
    c = info.pod_sets[0].containers[0]
    assert c.env == [
        {"name": "DMLC_TRACKER_URI", "value": "xgb-node-0-0.xgb"},
        {"name": "DMLC_TRACKER_PORT", "value": "29500"},
        {"name": "DMLC_TASK_ID", "valueFrom": {"fieldRef": {"fieldPath": COMPLETION_INDEX}}},
        {"name": "DMLC_NUM_WORKER", "value": want},
    ]
    assert c.ports == [{"containerPort": 29500}]


@pytest.mark.parametrize(
    "env, want",
    [
        ([{"name": "OK", "value": "1"}], []),
        ([{"name": "DMLC_TRACKER_URI", "value": "custom-tracker"}], [("spec.trainer.env[0]", "DMLC_TRACKER_URI is reserved for the XGBoost runtime")]),
        ([{"name": "DMLC_NUM_WORKER", "value": "10"}], [("spec.trainer.env[0]", "DMLC_NUM_WORKER is reserved for the XGBoost runtime")]),
        ([{"name": "DMLC_TRACKER_URI", "value": "custom"}, {"name": "DMLC_TASK_ID", "value": "0"}],
         [("spec.trainer.env[0]", "DMLC_TRACKER_URI is reserved for the XGBoost runtime"),
          ("spec.trainer.env[1]", "DMLC_TASK_ID is reserved for the XGBoost runtime")]),
    ],
)
def test_xgboost_validate(env, want):
    problems = xgboost.validate(hand_built_info(ml={"xgboost": {}}), trainjob("test-job", {"numNodes": 1, "env": env}), EngineOptions(bundle=upstream.bundle("v2.3.0")))
    assert [(p.path, p.message) for p in problems] == want
    assert all(p.severity == "error" for p in problems)


def test_xgboost_validate_without_trainer():
    assert xgboost.validate(hand_built_info(ml={"xgboost": {}}), trainjob(), EngineOptions(bundle=upstream.bundle("v2.3.0"))) == []
