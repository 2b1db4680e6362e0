"""kpt_fn.workload: which pod sets are training nodes, asked of the plugins (TRAINING_NODES)."""

from __future__ import annotations

import pytest

from kpt_fn import workload
from kpt_fn.trainer_names import ANCESTOR_LABEL


def _jobset(*jobs):
    return {"spec": {"replicatedJobs": [
        {"name": name, "template": {"metadata": {"labels": {ANCESTOR_LABEL: step}} if step else {}}}
        for name, step in jobs]}}


def _nodes(runtime):
    test = workload.training_node_test(runtime)
    return [ps.name for ps in workload.pod_sets(_jobset(("launcher", "trainer"), ("node", None))) if test(ps)]


def _runtime(ml_policy):
    return {"kind": "ClusterTrainingRuntime", "spec": {"mlPolicy": ml_policy}}


def test_mpi_says_its_nodes_are_the_node_job_and_the_launcher_only_as_a_node():
    # The same under every release: one plugin registry.
    assert _nodes(_runtime({"mpi": {}})) == ["node"]
    assert _nodes(_runtime({"mpi": {"runLauncherAsNode": True}})) == ["launcher", "node"]


@pytest.mark.parametrize("runtime", [
    None, {}, {"spec": "x"}, _runtime(None), _runtime({"torch": {}}), _runtime(["mpi"]), _runtime({"mpi": "x"}),
])
def test_elsewhere_the_nodes_are_the_job_labelled_trainer(runtime):
    assert _nodes(runtime) == ["launcher"]
