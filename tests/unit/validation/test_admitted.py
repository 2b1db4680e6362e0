"""kpt_fn.validation.admitted: counts Trainer admits that cannot train are warnings, never errors."""

from __future__ import annotations

import pytest

from kpt_fn import upstream
from kpt_fn.problems import WARNING
from kpt_fn.validation import admitted


def tj(**trainer):
    return {"kind": "TrainJob", "spec": {"trainer": trainer}}


@pytest.mark.parametrize("trainjob, rules", [
    (tj(numNodes=0), [admitted.RULE_NUM_NODES]),
    (tj(numProcPerNode=0), [admitted.RULE_NUM_PROC]),
    (tj(numProcPerNode=-2), [admitted.RULE_NUM_PROC]),
    (tj(numNodes=0, numProcPerNode=0), [admitted.RULE_NUM_NODES, admitted.RULE_NUM_PROC]),
    # Sound, absent, or not this rule's to judge (a negative count is the Job API's error; a wrong type the schema's).
    (tj(numNodes=1, numProcPerNode=1), []),
    (tj(), []),
    (tj(numNodes=-1), []),
    (tj(numNodes=False, numProcPerNode=False), []),
    (tj(numNodes="0", numProcPerNode="0"), []),
    (tj(numProcPerNode=0.5), []),
    ({"spec": {"trainer": None}}, []), ({"spec": []}, []), ({}, []), ("not an object", []),
])
def test_trainjob_warnings(trainjob, rules):
    found = admitted.trainjob_warnings(trainjob, upstream.bundle("v2.3.0"))
    assert [p.rule for p in found] == rules
    assert all(p.severity == WARNING for p in found)


def test_the_warnings_name_the_field_value_and_release():
    nodes, procs = admitted.trainjob_warnings(tj(numNodes=0, numProcPerNode=-1), upstream.bundle("v2.2.1"))
    assert nodes.path == "spec.trainer.numNodes" and nodes.message.startswith("numNodes 0: Trainer v2.2.1 admits it")
    assert procs.path == "spec.trainer.numProcPerNode" and procs.message.startswith("numProcPerNode -1: Trainer v2.2.1")
    assert "numNodes: 1 or more" in nodes.message and "numProcPerNode: 1" in procs.message
