"""kpt_fn.engine.info: the Info model plugins work on (upstream pkg/runtime.Info): its lookups and the
resources of the trainer node."""

from __future__ import annotations

import pytest

from kpt_fn.engine.info import (Container, Info, PodSet, RuntimePolicy, Scheduler, ancestor_of,
                                extract_resource_per_node_from_runtime, pod_spec_of, resources_per_node)
from kpt_fn.trainer_names import ANCESTOR_LABEL


def rjob(name, ancestor=None, containers=()):
    labels = {ANCESTOR_LABEL: ancestor} if ancestor else {}
    return {"name": name, "template": {"metadata": {"labels": labels}, "spec": {"template": {"spec": {"containers": list(containers)}}}}}


def info(*rjobs, pod_sets=()):
    return Info({}, {}, RuntimePolicy(), Scheduler(), {"replicatedJobs": list(rjobs)}, list(pod_sets))


def test_defaults_are_fresh_lists_and_maps():
    a, b = Container("a"), Container("b")
    assert a.env == [] and a.env is not b.env
    ps = PodSet("node", "trainer", 1)
    assert (ps.containers, ps.init_containers, ps.volumes, ps.single_pod_requests, ps.network) == ([], [], [], {}, None)
    assert Scheduler().pod_labels == {} and Scheduler().pod_annotations is None
    assert repr(Container("c", image="i")).startswith("Container(name='c', image='i'")


def test_lookups():
    init = Container("prep")
    node = PodSet("node", "trainer", 2, init_containers=[init], containers=[Container("node"), Container("side")])
    data = PodSet("dataset-initializer", "dataset-initializer", 1, containers=[Container("dataset-initializer")])
    i = info(pod_sets=[data, node])
    assert i.pod_set_by_ancestor("trainer") is node and i.pod_set_by_ancestor("nothing") is None
    assert i.pod_set_by_name("node") is node and i.pod_set_by_name("x") is None
    assert i.container_by_ancestor("trainer", "side") is node.containers[1]
    assert i.container_by_ancestor("trainer", "prep") is None          # regular containers only
    assert i.container_by_ancestor("model-initializer", "x") is None
    assert i.container_by_pod_set_name("node", "prep") is init         # then init containers
    assert i.container_by_pod_set_name("node", "node") is node.containers[0]
    assert i.container_by_pod_set_name("none", "node") is None
    assert info().replicated_jobs == [] and Info({}, {}, RuntimePolicy(), Scheduler(), {}, []).replicated_jobs == []


def test_ancestor_and_pod_spec_of_a_replicated_job():
    assert ancestor_of(rjob("node", "trainer")) == "trainer"
    assert ancestor_of({"name": "x"}) is None and ancestor_of({"template": None}) is None
    assert pod_spec_of(rjob("node", containers=[{"name": "c"}])) == {"containers": [{"name": "c"}]}
    assert pod_spec_of({}) == {} and pod_spec_of({"template": {"spec": None}}) == {}


NODE = {"name": "node", "resources": {"limits": {"cpu": "4"}, "requests": {"cpu": "2"}}}


@pytest.mark.parametrize("rjobs, expected", [
    ([rjob("node", containers=[NODE])], {"limits": {"cpu": "4"}, "requests": {"cpu": "2"}}),
    ([rjob("launcher", containers=[{**NODE, "resources": {"limits": {"cpu": "1"}}}]), rjob("workers", "trainer", [NODE])],
     {"limits": {"cpu": "4"}, "requests": {"cpu": "2"}}),            # not node nor trainer: skipped
    ([rjob("node", containers=[{"name": "node"}])], {"limits": {}, "requests": {}}),  # present: empty resources
    ([rjob("node", containers=[{"name": "other"}])], None),
    ([], None),
])
def test_extract_resource_per_node_from_runtime(rjobs, expected):
    assert extract_resource_per_node_from_runtime(info(*rjobs)) == expected


def test_resources_per_node_is_the_trainjobs_as_written_else_the_runtimes():
    i = info(rjob("node", containers=[NODE]))
    written = {"limits": {"nvidia.com/gpu": 1}}
    assert resources_per_node(i, {"spec": {"trainer": {"resourcesPerNode": written}}}) is written
    assert resources_per_node(i, {"spec": {}}) == {"limits": {"cpu": "4"}, "requests": {"cpu": "2"}}
    assert resources_per_node(info(), {"spec": {"trainer": {}}}) == {}
