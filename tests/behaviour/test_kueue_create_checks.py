"""Kueue v0.19's create-time checks in the `kueue` profile (kpt_fn/profiles/kueue_create.py, kpt_fn/profiles/kueue_quota.py, kpt_fn/profiles/kueue_tas.py): the
messages and paths, quota fit, LimitRange defaults and the queue, beside valid unusual controls that
must keep rendering. The cases ported from Kueue's own test tables are in tests/upstream/kueue/."""

from __future__ import annotations

import pytest

from kpt_fn.problems import ERROR, WARNING
from kpt_fn.profiles import kueue_names, kueue_quota
from tests.support.kueue_kit import BLOCK, HOST, KUEUE, RACK, TAS
from tests.support.kueue_kit import found as _found, jobsets as _jobsets, layers as _layers, local_queue as _local_queue
from tests.support.kueue_kit import run as _run, runtime as _runtime, tas as _tas, trainjob as _trainjob


# --- the multi-layer topology annotation ------------------------------------------------------------


def test_multi_layer_constraint_messages_and_paths():
    base = "spec.replicatedJobs[0].template.spec.template.metadata.annotations"
    key = f"{base}[{TAS.SLICE_CONSTRAINTS}]"
    assert _tas(({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.SLICE_CONSTRAINTS: _layers((RACK, 16), (HOST, 5))}, 64)) == [
        (f"{key}[1].size", "Invalid value: 5: must evenly divide the parent layer size 16")]
    assert _tas(({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.SLICE_CONSTRAINTS: _layers((RACK, 16), (HOST, 4), (RACK, 2))}, 64)) == [
        (f"{key}[2].topology", 'Duplicate value: "cloud.com/rack (also at index 0)"')]
    assert _tas(({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.SLICE_CONSTRAINTS: _layers((RACK, 0))}, 64)) == [
        (f"{key}[0].size", "Invalid value: 0: must be greater than or equal to 1")]
    [(path, message)] = _tas(({TAS.SLICE_CONSTRAINTS: _layers(("Bad Label", 4))}, 8))
    assert path == f"{key}[0].topology" and message.startswith('Invalid value: "Bad Label": name part must consist of')
    # What the builder cannot parse is the webhook's whole answer (jobframework/tas.go Build).
    assert _tas(({TAS.SLICE_CONSTRAINTS: "[]"}, 8)) == [(key, "topology constraints must contain between 1 and 3 entries: got 0")]
    assert _tas(({TAS.SLICE_CONSTRAINTS: "null"}, 8)) == [(key, "topology constraints must contain between 1 and 3 entries: got 0")]
    assert _tas(({TAS.SLICE_CONSTRAINTS: '{"topology": "r", "size": 4}'}, 8)) == [(key, (
        "failed to parse multi-layer topology constraints annotation: json: cannot unmarshal object into Go value of "
        "type []v1beta2.PodsetSliceRequiredTopologyConstraint"))]
    assert _tas(({TAS.SLICE_CONSTRAINTS: '[{"topology": "r", "size": 1.5}]'}, 8)) == [(key, (
        "failed to parse multi-layer topology constraints annotation: json: cannot unmarshal number 1.5 into Go struct "
        "field PodsetSliceRequiredTopologyConstraint.size of type int32"))]
    assert _tas(({TAS.SLICE_CONSTRAINTS: '[{"topology": "r", "size": "4"}]'}, 8))[0][1].endswith(
        "cannot unmarshal string into Go struct field PodsetSliceRequiredTopologyConstraint.size of type int32")
    assert _tas(({TAS.SLICE_CONSTRAINTS: '[{"topology": "r"'}, 8)) == [(key, (
        "failed to parse multi-layer topology constraints annotation: unexpected end of JSON input"))]
    # The builder stops at the first pod set it cannot parse; nothing else is reported.
    assert len(_tas(({TAS.SLICE_SIZE: "1"}, 1), ({TAS.SLICE_CONSTRAINTS: "[]"}, 8))) == 1


@pytest.mark.parametrize("value", [
    _layers((RACK, 8)),
    '[{"Topology": "cloud.com/rack", "SIZE": 8, "comment": "keys match case-insensitively; others are ignored"}]',
    '[{"topology": "cloud.com/rack", "size": 8}, {"topology": "kubernetes.io/hostname", "size": 8}]',  # 8 divides 8
    ' [ {"size": 4, "topology": "cloud.com/rack"} ] ',
])
def test_valid_unusual_multi_layer_annotations_pass(value):
    assert _tas(({TAS.PREFERRED_TOPOLOGY: BLOCK, TAS.SLICE_CONSTRAINTS: value}, 8)) == []
    assert _tas(({TAS.SLICE_CONSTRAINTS: value}, 8)) == []  # without a required or preferred topology


def test_pod_set_groups_count_only_pod_sets_with_a_topology():
    """The builder keeps a group name only beside a required or preferred topology
    (jobframework/tas.go), and ValidatePodSetGroupingTopology groups only those pod sets."""
    got = _tas(({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.GROUP_NAME: "g"}, 1), ({TAS.GROUP_NAME: "g"}, 4))
    base = "spec.replicatedJobs[{}].template.spec.template.metadata.annotations[" + TAS.GROUP_NAME + "]"
    assert got == [
        (base.format(1), f"Forbidden: may not be set when neither '{TAS.PREFERRED_TOPOLOGY}' nor '{TAS.REQUIRED_TOPOLOGY}' is specified"),
        (base.format(0), 'Invalid value: "g": can only define groups of exactly 2 pod sets, got: 1 pod set(s)'),
    ]
    # An unconstrained pod set is no member either.
    assert len(_tas(({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.GROUP_NAME: "g"}, 1), ({TAS.REQUIRED_TOPOLOGY: BLOCK, TAS.GROUP_NAME: "g"}, 4),
                    ({TAS.UNCONSTRAINED_TOPOLOGY: "true", TAS.GROUP_NAME: "g"}, 2))) == 1


# --- the JobSet's labels and annotations (jobframework/validation.go ValidateJobOnCreate) -------------


@pytest.mark.parametrize("value, message", [
    ("abc", 'Invalid value: "abc": strconv.Atoi: parsing "abc": invalid syntax'),
    ("1.5", 'Invalid value: "1.5": strconv.Atoi: parsing "1.5": invalid syntax'),
    ("", 'Invalid value: "": strconv.Atoi: parsing "": invalid syntax'),
    ("99999999999999999999", 'Invalid value: "99999999999999999999": strconv.Atoi: parsing "99999999999999999999": value out of range'),
    ("0", "Invalid value: 0: should be greater than 0"),  # jobframework/base_webhook_test.go "invalid request"
])
def test_max_exec_time_label_must_be_a_positive_integer(value, message):
    outcome = _run([_runtime(labels={kueue_names.MAX_EXEC_TIME_LABEL: value}), _trainjob()], KUEUE)
    assert outcome.exit_code == 1 and not _jobsets(outcome)
    note = " (from the runtime's spec.template.metadata.labels)"
    assert [(s, m) for s, m in _found(outcome, kueue_names.RULE_MAX_EXEC)] == [(ERROR, message + note)]
    [result] = [r for r in outcome.results if (r.get("tags") or {}).get("rule") == kueue_names.RULE_MAX_EXEC]
    assert result["field"]["path"] == f"metadata.labels[{kueue_names.MAX_EXEC_TIME_LABEL}]"
    # Set by a runtimePatch instead: the problem points at the patch's field in the TrainJob.
    patch = {"manager": "example.com/platform", "trainingRuntimeSpec": {"template": {"metadata": {"labels": {kueue_names.MAX_EXEC_TIME_LABEL: value}}}}}
    outcome = _run([_runtime(), _trainjob(runtimePatches=[patch])], KUEUE)
    [result] = [r for r in outcome.results if (r.get("tags") or {}).get("rule") == kueue_names.RULE_MAX_EXEC]
    assert result["message"] == message
    assert result["field"]["path"] == f"spec.runtimePatches[0].trainingRuntimeSpec.template.metadata.labels[{kueue_names.MAX_EXEC_TIME_LABEL}]"
    assert result["resourceRef"]["kind"] == "TrainJob"


@pytest.mark.parametrize("value", ["1", "007", "2147483647"])
def test_valid_unusual_max_exec_time_labels_pass(value):
    outcome = _run([_runtime(labels={kueue_names.MAX_EXEC_TIME_LABEL: value}), _trainjob()], KUEUE)
    assert outcome.exit_code == 0 and _found(outcome, kueue_names.RULE_MAX_EXEC) == []


def test_max_exec_time_above_int32_is_ignored_by_kueues_reconciler():
    """The webhook's strconv.Atoi is 64-bit; MaximumExecutionTimeSecondsForObject parses 32 bits and
    drops the limit on error (jobframework/utils.go)."""
    outcome = _run([_runtime(labels={kueue_names.MAX_EXEC_TIME_LABEL: "2147483648"}), _trainjob()], KUEUE)
    assert outcome.exit_code == 0
    [(severity, message)] = _found(outcome, kueue_names.RULE_MAX_EXEC)
    assert severity == WARNING and "ignores it" in message
    outcome = _run([_runtime(), _trainjob(activeDeadlineSeconds=2**31)], KUEUE)
    assert outcome.exit_code == 0
    [js] = _jobsets(outcome)
    assert js["metadata"]["labels"][kueue_names.MAX_EXEC_TIME_LABEL] == str(2**31)
    found = _found(outcome, kueue_names.RULE_MAX_EXEC)
    assert [s for s, _ in found] == [WARNING, WARNING] and "ignores it" in found[1][1]
    [result] = [r for r in outcome.results if "ignores it" in r["message"]]
    assert result["field"]["path"] == "spec.activeDeadlineSeconds"


def test_a_workload_holds_at_most_18_pod_sets():
    """apis/kueue/v1beta2/workload_types.go: spec.podSets MaxItems=18 (jobframework/constants.go
    MaxPodSets); Kueue's JobSet integration makes one pod set per replicated job (jobset_controller.go
    PodSets), and its webhook does not count them."""
    assert _run([_runtime(jobs=18), _trainjob()], KUEUE).exit_code == 0
    outcome = _run([_runtime(jobs=19), _trainjob()], KUEUE)
    assert outcome.exit_code == 1
    [(severity, message)] = _found(outcome, kueue_names.RULE_CREATE)
    assert message.startswith("Too many: 19: must have at most 18 items") and "suspended for ever" in message
    # The controller profile renders it: without Kueue nothing is wrong with 19 replicated jobs.
    assert _run([_runtime(jobs=19), _trainjob()], {}).exit_code == 0


# --- quota fit: one flavor per resource group -----------------------------------------------------


def _cluster_queue(*groups, cohort=None):
    """groups: [(covered resources, [(flavor, {resource: nominal})])]."""
    spec = {"resourceGroups": [
        {"coveredResources": list(covered), "flavors": [
            {"name": name, "resources": [{"name": r, "nominalQuota": q} for r, q in quotas.items()]} for name, quotas in flavors]}
        for covered, flavors in groups]}
    if cohort:
        spec["cohortName"] = cohort
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"}, "spec": spec}


def _gpu_job(cpu="64", gpu="8", nodes=1):
    runtime = _runtime(container={"name": "node", "image": "img",
                                  "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}, "limits": {"nvidia.com/gpu": gpu}}})
    runtime["spec"]["mlPolicy"]["numNodes"] = nodes
    return [runtime, _trainjob(), _local_queue("q")]


MIXED = (("cpu", "memory", "nvidia.com/gpu"), [("a100", {"cpu": 16, "memory": "1Ti", "nvidia.com/gpu": 8}),
                                                ("cpu-only", {"cpu": 128, "memory": "1Ti", "nvidia.com/gpu": 0})])


def test_a_pod_set_takes_one_flavor_for_all_resources_of_a_group():
    """flavorassigner.go findFlavorForPodSets: a flavor fits only if every resource of its group the pod
    set requests fits; 64 CPUs fit cpu-only and 8 GPUs fit a100, but no flavor gives both."""
    outcome = _run([*_gpu_job(), _cluster_queue(MIXED)], KUEUE)
    assert outcome.exit_code == 1
    [(severity, message)] = _found(outcome, kueue_names.RULE_QUOTA)
    assert "pod set node needs 64 cpu, 1Gi memory, 8 nvidia.com/gpu from one flavor" in message
    assert "flavor a100: cpu 64 > 16" in message and "flavor cpu-only: nvidia.com/gpu 8 > 0" in message


def test_valid_flavor_layouts_pass():
    # Everything in one flavor of the group.
    assert _run([*_gpu_job(cpu="16"), _cluster_queue(MIXED)], KUEUE).exit_code == 0
    # GPUs and CPUs in separate resource groups: each group picks its own flavor.
    split = [(("nvidia.com/gpu",), [("a100", {"nvidia.com/gpu": 8})]),
             (("cpu", "memory"), [("small", {"cpu": 16, "memory": "1Ti"}), ("big", {"cpu": 128, "memory": "1Ti"})])]
    assert _run([*_gpu_job(), _cluster_queue(*split)], KUEUE).exit_code == 0
    # In a cohort with no borrowing limit nothing bounds a flavor.
    assert _run([*_gpu_job(), _cluster_queue(MIXED, cohort="all")], KUEUE).exit_code == 0


def test_pods_quota_counts_pods():
    """pkg/scheduler/flavorassigner/flavorassigner.go assignFlavors requests `pods` (the pod count) when
    the ClusterQueue has a quota for it."""
    group = (("cpu", "memory", "nvidia.com/gpu", "pods"), [("f", {"cpu": 256, "memory": "1Ti", "nvidia.com/gpu": 64, "pods": 2})])
    assert _run([*_gpu_job(cpu="1", gpu="1", nodes=2), _cluster_queue(group)], KUEUE).exit_code == 0
    outcome = _run([*_gpu_job(cpu="1", gpu="1", nodes=3), _cluster_queue(group)], KUEUE)
    assert outcome.exit_code == 1
    assert "needs 3 pods (3 pod(s) x 1)" in _found(outcome, kueue_names.RULE_QUOTA)[0][1]


# --- LimitRange -----------------------------------------------------------------------------------


def _limit_range(**defaults):
    return {"apiVersion": "v1", "kind": "LimitRange", "metadata": {"name": "lr", "namespace": "ns"},
            "spec": {"limits": [{"type": "Container", **defaults}]}}


BARE = {"name": "node", "image": "img", "resources": {"limits": {"nvidia.com/gpu": "1"}}}


def test_missing_requests_warning_names_the_limit_range():
    """pkg/workload/resources.go AdjustResources: Kueue fills missing requests from the namespace's
    LimitRange defaults (handlePodLimitRange, summarised first-value-wins by
    pkg/util/limitrange/limitrange.go), then from limits."""
    outcome = _run([_runtime(container=BARE), _trainjob()], KUEUE)
    [(severity, message)] = _found(outcome, kueue_names.RULE_REQUESTS)
    assert severity == WARNING and "unless a LimitRange sets a default" in message and "namespace ns" in message
    # A LimitRange among the inputs that sets both defaults: Kueue fills them, nothing to say.
    lr = _limit_range(defaultRequest={"cpu": "1"}, default={"memory": "1Gi"})
    outcome = _run([_runtime(container=BARE), _trainjob(), lr], KUEUE)
    assert outcome.exit_code == 0 and _found(outcome, kueue_names.RULE_REQUESTS) == []
    # One that sets only cpu: memory is still 0.
    outcome = _run([_runtime(container=BARE), _trainjob(), _limit_range(defaultRequest={"cpu": "1"})], KUEUE)
    [(_, message)] = _found(outcome, kueue_names.RULE_REQUESTS)
    assert "requests no memory" in message and "sets no default for it" in message


def test_quota_fit_counts_limit_range_defaults():
    """The quota fit counts what Kueue counts (pkg/workload/resources.go): a LimitRange's defaultRequest."""
    group = (("cpu", "memory", "nvidia.com/gpu"), [("f", {"cpu": 4, "memory": "1Ti", "nvidia.com/gpu": 8})])
    items = [_runtime(container=BARE), _trainjob(), _local_queue("q"), _cluster_queue(group)]
    assert _run(items, KUEUE).exit_code == 0
    outcome = _run([*items, _limit_range(defaultRequest={"cpu": "8", "memory": "1Gi"})], KUEUE)
    assert outcome.exit_code == 1
    assert "needs 8 cpu (1 pod(s) x 8)" in _found(outcome, kueue_names.RULE_QUOTA)[0][1]


def test_pod_sets_that_each_fit_but_not_together_are_reported():
    """Two pod sets of 8 GPUs and 50 CPUs: each fits flavor a100 alone, only one fits it at a time,
    and cpu-light cannot hold the other's CPUs. Per resource the ClusterQueue has enough (16 GPUs,
    101 CPUs), so only the assignment of one flavor per pod set shows it never fits."""
    heavy = {"name": "node", "image": "img", "resources": {"requests": {"cpu": "50", "memory": "1Gi"}, "limits": {"nvidia.com/gpu": "8"}}}
    runtime = _runtime(jobs=2, container=heavy)
    runtime["spec"]["template"]["spec"]["replicatedJobs"][1]["template"]["spec"]["template"]["spec"]["containers"] = [
        dict(heavy, name="aux")]
    items = [runtime, _trainjob(), _local_queue("q")]
    group = lambda *flavors: (("cpu", "memory", "nvidia.com/gpu"), list(flavors))  # noqa: E731
    tight = group(("a100", {"cpu": 100, "memory": "1Ti", "nvidia.com/gpu": 8}),
                  ("cpu-light", {"cpu": 1, "memory": "1Ti", "nvidia.com/gpu": 8}))
    outcome = _run([*items, _cluster_queue(tight)], KUEUE)
    assert outcome.exit_code == 1
    [(_, message)] = _found(outcome, kueue_names.RULE_QUOTA)
    assert message.startswith("pod set node, pod set aux-1 each fit a flavor of ClusterQueue cq, but no choice")
    # Controls: one flavor big enough for both, or one flavor each.
    roomy = group(("a100", {"cpu": 100, "memory": "1Ti", "nvidia.com/gpu": 16}))
    halves = group(("a", {"cpu": 50, "memory": "1Ti", "nvidia.com/gpu": 8}), ("b", {"cpu": 50, "memory": "1Ti", "nvidia.com/gpu": 8}))
    for cq in (roomy, halves):
        assert _run([*items, _cluster_queue(cq)], KUEUE).exit_code == 0


def test_assignment_search_gives_up_rather_than_guess():
    from kpt_fn import quantity

    one = {"gpu": quantity.parse(1)}
    many = [dict(one) for _ in range(18)]
    flavors = [{"gpu": quantity.parse(1)} for _ in range(17)]  # one short: every order must be tried
    assert kueue_quota._assignment_exists(many, flavors, budget=1000) is None
    assert kueue_quota._assignment_exists(many[:3], flavors[:3]) is True
    assert kueue_quota._assignment_exists(many[:4], flavors[:3]) is False


def test_a_queue_label_from_the_runtime_is_the_jobsets_queue():
    """Trainer copies the runtime's template metadata labels to the JobSet, so Kueue would read a
    queue label put there; it comes after the TrainJob's own label and before kueueQueues."""
    runtime = _runtime(labels={kueue_names.QUEUE_LABEL: "from-runtime"})
    for spec in ({"profile": "kueue"}, KUEUE):
        outcome = _run([runtime, _trainjob()], spec)
        assert outcome.exit_code == 0
        [js] = _jobsets(outcome)
        assert js["metadata"]["labels"][kueue_names.QUEUE_LABEL] == "from-runtime"
    job = _trainjob()
    job["metadata"]["labels"] = {kueue_names.QUEUE_LABEL: "from-trainjob"}
    [js] = _jobsets(_run([runtime, job], KUEUE))
    assert js["metadata"]["labels"][kueue_names.QUEUE_LABEL] == "from-trainjob"
    # The quota fit reads the queue the JobSet names: 8 GPUs cannot fit from-runtime's ClusterQueue.
    small = (("cpu", "memory", "nvidia.com/gpu"), [("f", {"cpu": 64, "memory": "1Ti", "nvidia.com/gpu": 4})])
    runtime, job, _ = _gpu_job(cpu="1")
    runtime["spec"]["template"]["metadata"] = {"labels": {kueue_names.QUEUE_LABEL: "from-runtime"}}
    outcome = _run([runtime, job, _local_queue("from-runtime"), _cluster_queue(small)], {"profile": "kueue"})
    assert outcome.exit_code == 1 and "8 nvidia.com/gpu" in _found(outcome, kueue_names.RULE_QUOTA)[0][1]
