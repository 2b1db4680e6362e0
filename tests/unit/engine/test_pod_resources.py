"""Resource merge, pod requests, PodGroup sums and GPU/CPU detection.

Merge cases follow upstream pkg/util/trainingruntime/trainingruntime_test.go (TestMergeResourceRequirements);
detection cases use the values of the numProcPerNode / GPU cases in pkg/runtime/framework/plugins/torch
and mpi tests; worked examples give the PodGroup totals.
"""

import pytest

from kpt_fn.quantity import BINARY_SI, DECIMAL_SI, QuantityError, canonical, num_cpu, num_gpu
from kpt_fn.engine.pod_resources import (
    format_resource_list,
    merge_resource_requirements,
    pod_requests,
    sum_requests,
)


@pytest.mark.parametrize(
    "base,override,want",
    [
        pytest.param(
            {"limits": {"cpu": "8", "memory": "32Gi"}},
            {"limits": {"nvidia.com/gpu": "4"}},
            {"limits": {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": "4"}},
            id="gpu only overlays runtime cpu and memory",
        ),
        pytest.param(
            {"limits": {"cpu": "8"}}, {"limits": {"cpu": "4"}}, {"limits": {"cpu": "4"}},
            id="trainjob cpu overrides runtime cpu",
        ),
        pytest.param(
            {"limits": {"cpu": "5", "memory": "32Gi"}},
            {"limits": {"nvidia.com/gpu": "2", "memory": "1Gi"}},
            {"limits": {"cpu": "5", "memory": "1Gi", "nvidia.com/gpu": "2"}},
            id="partial override keeps other runtime keys",
        ),
        pytest.param({"requests": {"cpu": "1"}}, {}, {"requests": {"cpu": "1"}}, id="empty override returns base"),
        pytest.param(
            {"requests": {"cpu": "8", "memory": "32Gi"}},
            {"requests": {"cpu": "4"}},
            {"requests": {"cpu": "4", "memory": "32Gi"}},
            id="trainjob requests override runtime requests",
        ),
        pytest.param(
            {"claims": [{"name": "gpu", "request": "default"}]},
            {"claims": [{"name": "gpu", "request": "large"}]},
            {"claims": [{"name": "gpu", "request": "large"}]},
            id="trainjob claims override runtime claims by name",
        ),
        pytest.param(
            {"claims": [{"name": "gpu", "request": "default"}, {"name": "storage", "request": "fast"}]},
            {"claims": [{"name": "gpu", "request": "large"}]},
            {"claims": [{"name": "gpu", "request": "large"}, {"name": "storage", "request": "fast"}]},
            id="trainjob claims merge keeps other runtime claims",
        ),
        pytest.param(
            {"claims": [{"name": "gpu", "request": "default"}]},
            {"limits": {"cpu": "4"}},
            {"limits": {"cpu": "4"}, "claims": [{"name": "gpu", "request": "default"}]},
            id="unset override claims keep runtime claims",
        ),
        pytest.param(
            {"requests": {"cpu": 1}},
            {"limits": {"nvidia.com/gpu": 4}},
            {"limits": {"nvidia.com/gpu": "4"}, "requests": {"cpu": "1"}},
            id="semantics 3.5 example: no requests-from-limits defaulting",
        ),
        pytest.param(
            {"requests": {"memory": "1024Mi", "cpu": "1000m"}, "limits": {}},
            {"requests": {"cpu": 0.5}},
            {"requests": {"cpu": "500m", "memory": "1Gi"}},
            id="quantities canonical, empty maps dropped",
        ),
        pytest.param(
            {"claims": [{"name": "a", "extra": 1}]},
            {"claims": [{"name": "b"}, {"request": "r"}]},
            {"claims": [{"name": "b"}, {"name": "", "request": "r"}, {"name": "a"}]},
            id="claims take their typed form",
        ),
        pytest.param(None, None, {}, id="nothing"),
    ],
)
def test_merge_resource_requirements(base, override, want):
    got = merge_resource_requirements(base, override)
    assert got == want
    for field in ("limits", "requests"):
        if field in got:
            assert list(got[field]) == sorted(got[field])


def test_merge_resource_requirements_rejects_bad_quantity():
    with pytest.raises(QuantityError):
        merge_resource_requirements({"limits": {"cpu": "lots"}}, {})


def req(**values):
    """A container requesting `values`; `gpu=` stands for example.com/gpu."""
    return {"resources": {"requests": {("example.com/gpu" if k == "gpu" else k): v for k, v in values.items()}}}


NODE_POD_10_5 = {
    "initContainers": [{"name": "sidecar", "restartPolicy": "Always",
                        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}],
    "containers": [{"name": "node", "resources": {
        "requests": {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": "1"},
        "limits": {"nvidia.com/gpu": "1"}}}],
}
DATASET_POD_10_5 = {"containers": [{"name": "dataset-initializer",
                                    "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}}]}


def test_semantics_10_5_pod_group():
    merged = merge_resource_requirements(
        {"requests": {"cpu": "8", "memory": "32Gi"}},
        {"requests": {"nvidia.com/gpu": 1}, "limits": {"nvidia.com/gpu": 1}},
    )
    assert merged == {"limits": {"nvidia.com/gpu": "1"}, "requests": {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": "1"}}
    node_pod = dict(NODE_POD_10_5)
    node_pod["containers"] = [{"name": "node", "resources": merged}]
    node = pod_requests(node_pod)
    dataset = pod_requests(DATASET_POD_10_5)
    assert format_resource_list(dataset) == {"cpu": "2", "memory": "4Gi"}
    assert format_resource_list(node) == {"cpu": "8100m", "memory": "32896Mi", "nvidia.com/gpu": "1"}
    total = sum_requests([(dataset, 1), (node, 4)])
    assert format_resource_list(total) == {"cpu": "34400m", "memory": "135680Mi", "nvidia.com/gpu": "4"}


def test_semantics_10_6_volcano_totals():
    single = pod_requests({"containers": [req(cpu="4", memory="8Gi")]})
    assert format_resource_list(sum_requests([(single, 2)])) == {"cpu": "8", "memory": "16Gi"}


def test_containers_sum_and_limits_ignored():
    spec = {"containers": [req(cpu="1", memory="1Gi"), {"resources": {"limits": {"cpu": "9"}}},
                           req(cpu="500m", gpu="2")]}
    assert format_resource_list(pod_requests(spec)) == {"cpu": "1500m", "example.com/gpu": "2", "memory": "1Gi"}


def test_init_containers_take_the_maximum():
    spec = {"initContainers": [req(cpu="4", memory="1Gi"), req(cpu="1", memory="8Gi")],
            "containers": [req(cpu="2", memory="2Gi")]}
    assert format_resource_list(pod_requests(spec)) == {"cpu": "4", "memory": "8Gi"}


def test_sidecars_add_up_and_count_during_later_init_containers():
    sidecar = dict(req(cpu="1", memory="1Gi"), restartPolicy="Always")
    spec = {"initContainers": [req(cpu="3"), sidecar, req(cpu="3", memory="1Gi"), dict(sidecar, name="s2")],
            "containers": [req(cpu="1")]}
    # steady state: 1 + 1 + 1 = 3 cpu, 2Gi; init peak: 3 + 1 = 4 cpu, 1Gi + 1Gi = 2Gi
    assert format_resource_list(pod_requests(spec)) == {"cpu": "4", "memory": "2Gi"}


def test_pod_level_requests_override_supported_resources_only():
    spec = {"containers": [req(cpu="1", memory="1Gi", gpu="1")],
            "resources": {"requests": {"cpu": "3", "hugepages-2Mi": "4Mi", "example.com/gpu": "8"}}}
    assert format_resource_list(pod_requests(spec)) == {
        "cpu": "3", "example.com/gpu": "1", "hugepages-2Mi": "4Mi", "memory": "1Gi"}
    ignored = {"containers": [req(cpu="1")], "resources": {"requests": {"example.com/gpu": "8"}}}
    assert format_resource_list(pod_requests(ignored)) == {"cpu": "1"}


def test_overhead_and_zero_values():
    spec = {"containers": [req(cpu="0", memory="1Gi")], "overhead": {"memory": "128Mi", "pods": "1"}}
    assert format_resource_list(pod_requests(spec)) == {"cpu": "0", "memory": "1152Mi", "pods": "1"}
    assert pod_requests({}) == {}
    assert pod_requests({"containers": [{"name": "x"}, {"resources": None}]}) == {}


def test_sum_takes_format_of_first_addend():
    decimal_first = sum_requests([({"memory": "512"}, 2), ({"memory": "1Ki"}, 1)])
    binary_first = sum_requests([({"memory": "1Ki"}, 1), ({"memory": "512"}, 2)])
    assert decimal_first["memory"].format == DECIMAL_SI
    assert binary_first["memory"].format == BINARY_SI
    assert canonical(decimal_first["memory"]) == "2048"
    assert canonical(binary_first["memory"]) == "2Ki"
    assert format_resource_list(sum_requests([({"cpu": "1"}, 0)])) == {"cpu": "0"}
    assert list(sum_requests([({"b": "1", "a": "1"}, 1)])) == ["a", "b"]


def test_pod_request_sum_keeps_first_container_format():
    spec = {"containers": [req(memory="1000"), req(memory="1Ki")]}
    assert format_resource_list(pod_requests(spec)) == {"memory": "2024"}
    spec = {"containers": [req(memory="512Ki"), req(memory="512Ki")]}
    assert format_resource_list(pod_requests(spec)) == {"memory": "1Mi"}


@pytest.mark.parametrize(
    "resources,gpus",
    [
        ({"requests": {"example.com/gpu": "2"}}, 2),
        ({"limits": {"cpu": "6", "example.com/gpu": "2"}}, 2),
        ({"limits": {"cpu": "8", "memory": "16Gi", "example.com/gpu": "4"}}, 4),
        ({"limits": {"custom.com/gpu": "5"}}, 5),
        ({"requests": {"nvidia.com/gpu": "0"}, "limits": {"nvidia.com/gpu": "2"}}, 2),
        ({"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "2"}}, 1),
        ({"limits": {"cpu": "4"}}, 0),
        ({"limits": {"nvidia.com/mig-1g.5gb": "1"}}, 0),
        ({"limits": {"gpu.intel.com/i915": "1"}}, 1),
        ({"limits": {"Example.COM/GPU": "3"}}, 3),
        ({"requests": {"nvidia.com/gpu": "1500m"}}, 2),
        ({"requests": {"z.com/gpu": "1", "a.com/gpu": "3"}}, 3),  # deterministic: first by name
        ({}, 0),
        (None, 0),
    ],
)
def test_num_gpu(resources, gpus):
    assert num_gpu(resources) == gpus


@pytest.mark.parametrize(
    "resources,cpus",
    [
        ({"limits": {"cpu": "4"}}, 4),
        ({}, 0),
        (None, 0),
        ({"limits": {"cpu": "2"}}, 2),
        ({"requests": {"cpu": "3"}}, 3),
        ({"limits": {"cpu": "2.5"}}, 3),
        ({"limits": {"cpu": "0.7"}}, 1),
        ({"limits": {"cpu": "2500m"}}, 3),
        ({"limits": {"cpu": "3.7"}}, 4),
        ({"limits": {"cpu": "500m"}}, 1),
        ({"limits": {"cpu": "1500m"}}, 2),
        ({"requests": {"cpu": "2"}, "limits": {"cpu": "8"}}, 2),
        ({"requests": {"cpu": "0"}, "limits": {"cpu": "3"}}, 3),
        ({"requests": {"cpu": "0"}}, 0),
        ({"requests": {"memory": "1Gi"}, "limits": {"cpu": 6}}, 6),
    ],
)
def test_num_cpu(resources, cpus):
    assert num_cpu(resources) == cpus
