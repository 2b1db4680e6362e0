"""kpt_fn/validation/k8s/resources.py: the resource lists as the API server validates them, after
SetDefaults_ResourceList rounded every quantity up to a milli-unit (the rest is pinned by the ported
container tables, tests/upstream/kubernetes/test_core_validation_containers.py)."""

from __future__ import annotations

import pytest

from kpt_fn import quantity
from kpt_fn.validation.k8s import pod as pod_checks
from kpt_fn.validation.k8s import resources
from kpt_fn.validation.k8s.findings import Findings

P = "spec.containers[0].resources"


def _run(res):
    f = Findings()
    resources.check_requirements(res, P, f)
    return [(path, text) for _, path, text, _ in f.items]


@pytest.mark.parametrize("text,rounded", [
    ("1", "1"), ("0.0001", "1m"), ("1.0001", "1001m"), ("1001m", "1001m"), ("100n", "1m"), ("1u", "1m"),
    ("-0.0001", "-1m"), ("-1500u", "-2m"), ("2Gi", "2Gi"), ("0", "0"), ("1e-9", "1e-3"),  # the format stays, as upstream keeps it
])
def test_quantities_round_up_away_from_zero_to_milli_units(text, rounded):
    # apimachinery's RoundUp(-3): a sub-milli fraction becomes the next milli-unit away from zero
    assert quantity.canonical(resources.milli_rounded(quantity.parse(text))) == rounded


def test_a_request_and_limit_equal_once_rounded_are_equal():
    # controls: a request above its limit only below 1m, for cpu and for a GPU, is accepted
    assert _run({"requests": {"cpu": "1.0004"}, "limits": {"cpu": "1.0001"}}) == []
    assert _run({"requests": {"memory": "1000.0009"}, "limits": {"memory": "1000.0002"}}) == []
    # refusals: what still differs after rounding; messages show the rounded value
    assert _run({"requests": {"cpu": "1.0014"}, "limits": {"cpu": "1.0001"}}) == [
        (f"{P}.requests", 'Invalid value: "1002m": must be less than or equal to cpu limit of 1001m')]
    assert _run({"requests": {"nvidia.com/gpu": "1.0001"}, "limits": {"nvidia.com/gpu": "1.0001"}}) == [
        (f"{P}.limits[nvidia.com/gpu]", 'Invalid value: "1001m": must be an integer'),
        (f"{P}.requests[nvidia.com/gpu]", 'Invalid value: "1001m": must be an integer')]


def test_a_negative_sub_milli_quantity_stays_negative():
    assert _run({"requests": {"cpu": "-0.0001"}}) == [
        (f"{P}.requests[cpu]", 'Invalid value: "-1m": must be greater than or equal to 0')]


def test_pod_level_limits_compare_rounded_values():
    pod = {"resources": {"limits": {"cpu": "1.0001"}},
           "containers": [{"name": "a", "resources": {"limits": {"cpu": "1.0004"}}}]}
    f = Findings()
    pod_checks._pod_resources_consistent(pod, pod["resources"], "spec.resources", f)
    assert f.items == []
    pod["containers"][0]["resources"]["limits"]["cpu"] = "1.0011"
    f = Findings()
    pod_checks._pod_resources_consistent(pod, pod["resources"], "spec.resources", f)
    assert [text for _, _, text, _ in f.items] == [
        'Invalid value: "1001m": must be greater than or equal to aggregate container requests of 1002m',  # defaulted
        'Invalid value: "1002m": must be less than or equal to pod limits of 1001m']


def _consistency(pod):
    f = Findings()
    pod_checks._pod_resources_consistent(pod, pod["resources"], "spec.resources", f)
    return [(path, text) for _, path, text, _ in f.items]


def test_a_pod_level_limit_without_a_request_is_the_request():
    # SetDefaults_Pod (PodLevelResources): containers request their limits, the pod its limit; the
    # containers' 5 + 6 CPUs then exceed the pod's request of 10 (upstream's "aggregate container limits
    # greater than pod limits" checks the spec undefaulted, NOT_PORTED there)
    pod = {"resources": {"limits": {"cpu": "10", "memory": "10Mi"}},
           "containers": [{"name": "a", "resources": {"limits": {"cpu": "5", "memory": "5Mi"}}},
                          {"name": "b", "resources": {"limits": {"cpu": "6", "memory": "4Mi"}}}]}
    assert _consistency(pod) == [
        ("spec.resources.requests[cpu]", 'Invalid value: "10": must be greater than or equal to aggregate container requests of 11')]
    # controls: a written pod request is kept (the consistency check is then met), and containers
    # within the limit need none
    pod["resources"]["requests"] = {"cpu": "11"}
    assert _consistency(pod) == []
    del pod["resources"]["requests"]
    pod["containers"][1]["resources"]["limits"]["cpu"] = "5"
    assert _consistency(pod) == []
