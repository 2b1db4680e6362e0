"""Kueue's admission emulation against `pkg/podset/podset_test.go` TestMergeRestore (v0.19.2), by case name.

The base pod set of that table: nodeSelector ns0=ns0v, label l0=l0v, annotation a0=a0v, toleration
t0=t0v:NoSchedule with operator Equal. The workload-slice cases need an alpha gate (off by default)
and are not transcribed.
"""

from __future__ import annotations

import pytest

from lifecycle import kueue_admission as ka

T0 = {"key": "t0", "operator": "Equal", "value": "t0v", "effect": "NoSchedule"}
T1 = {"key": "t1", "operator": "Equal", "value": "t1v", "effect": "NoSchedule"}


def _template(toleration=T0):
    return {"metadata": {"labels": {"l0": "l0v"}, "annotations": {"a0": "a0v"}},
            "spec": {"nodeSelector": {"ns0": "ns0v"}, "tolerations": [dict(toleration)]}}


def test_empty_info():
    assert ka.merge(_template(), ka.PodSetInfo()) == _template()


def test_no_conflicts():
    got = ka.merge(_template(), ka.PodSetInfo({"a1": "a1v"}, {"l1": "l1v"}, {"ns1": "ns1v"}, [T1]))
    assert got == {"metadata": {"labels": {"l0": "l0v", "l1": "l1v"}, "annotations": {"a0": "a0v", "a1": "a1v"}},
                   "spec": {"nodeSelector": {"ns0": "ns0v", "ns1": "ns1v"}, "tolerations": [T0, T1]}}


def test_dont_duplicate_tolerations():
    got = ka.merge(_template(), ka.PodSetInfo({"a1": "a1v"}, {"l1": "l1v"}, {"ns1": "ns1v"}, [T0]))
    assert got["spec"]["tolerations"] == [T0]


@pytest.mark.parametrize("base,added", [
    (T0, {k: v for k, v in T0.items() if k != "operator"}),   # empty vs Equal operator
    ({k: v for k, v in T0.items() if k != "operator"}, T0),   # Equal vs empty operator
])
def test_dont_duplicate_tolerations_that_differ_only_by_an_empty_operator(base, added):
    assert ka.merge(_template(base), ka.PodSetInfo(tolerations=[added])) == _template(base)


@pytest.mark.parametrize("info", [ka.PodSetInfo(labels={"l0": "l0v1"}), ka.PodSetInfo(annotations={"a0": "a0v1"}),
                                  ka.PodSetInfo(node_selector={"ns0": "ns0v1"})],
                         ids=["conflicting label", "conflicting annotation", "conflicting node selector"])
def test_conflicts(info):
    with pytest.raises(ka.MergeConflict):
        ka.merge(_template(), info)


GATE = {"name": "example.com/gate"}


@pytest.mark.parametrize("gates,want", [((), [GATE]), ([GATE], [GATE]),
                                        ([{"name": "example.com/gate2"}], [GATE, {"name": "example.com/gate2"}])],
                         ids=["empty info", "info re-adds the same", "info adds another"])
def test_podset_with_scheduling_gate(gates, want):
    got = ka.merge({"spec": {"schedulingGates": [GATE]}}, ka.PodSetInfo(scheduling_gates=gates))
    assert got["spec"]["schedulingGates"] == want


def test_admit_unsuspends_and_merges_every_replicated_job():
    js = {"spec": {"suspend": True, "replicatedJobs": [{"name": "a", "template": {"spec": {"template": {}}}},
                                                        {"name": "b", "template": {"spec": {"template": {}}}}]}}
    got = ka.admit(js, [ka.flavor_info({"pool": "a100"}), ka.flavor_info(tas=True)])
    assert got["spec"]["suspend"] is False
    assert got["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"] == {"nodeSelector": {"pool": "a100"}}
    assert got["spec"]["replicatedJobs"][1]["template"]["spec"]["template"]["spec"]["schedulingGates"] == [{"name": ka.TOPOLOGY_GATE}]
