"""kpt_fn/validation/k8s/restart.py: a container's own restartPolicy and restartPolicyRules
(validateContainerRestartPolicy, validateInitContainerRestartPolicy), with RestartAllContainersOnContainerExits
on (1.36)."""

from __future__ import annotations

from kpt_fn.validation.k8s import restart
from kpt_fn.validation.k8s.findings import Findings

P = "spec.template.spec"


def _run(pod):
    f = Findings()
    restart.check_pod(pod, P, f)
    return [(path, text) for _, path, text, _ in f.items]


def test_regular_container_policies_and_rules():
    assert _run({"containers": [{"name": "a", "restartPolicy": p} for p in ("Always", "OnFailure", "Never")]}) == []
    assert _run({"containers": [{"name": "a", "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [1]}}]}]}) == [
        (f"{P}.containers[0].restartPolicy", "Required value: must specify restartPolicy when restart rules are used")]
    rules = [{"action": "Restart", "exitCodes": {"operator": "NotIn", "values": list(range(256))}}] * 21
    assert _run({"containers": [{"name": "a", "restartPolicy": "Never", "restartPolicyRules": rules}]})[:2] == [
        (f"{P}.containers[0].restartPolicyRules", "Too many: 21: must have at most 20 items"),
        (f"{P}.containers[0].restartPolicyRules[0].exitCodes.values", "Too many: 256: must have at most 255 items")]


def test_init_containers():
    rule = {"action": "Restart", "exitCodes": {"operator": "In", "values": [1]}}
    assert _run({"initContainers": [{"name": "i", "restartPolicyRules": [rule]}]}) == [
        (f"{P}.initContainers[0].restartPolicy", "Required value: must specify restartPolicy when restart rules are used")]
    assert _run({"initContainers": [{"name": "i", "restartPolicy": "OnFailure", "restartPolicyRules": [rule]}]}) == []
    assert _run({"initContainers": [{"name": "i", "restartPolicy": "Sometimes"}]}) == [
        (f"{P}.initContainers[0].restartPolicy", 'Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"')]


def test_the_restart_all_containers_gate_is_on():
    # beta and on in 1.36: a sidecar's rules and the RestartAllContainers action pass, and a sidecar's
    # rules are validated
    rule = {"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [1]}}
    assert _run({"initContainers": [{"name": "s", "restartPolicy": "Always", "restartPolicyRules": [rule]}],
                 "containers": [{"name": "a", "restartPolicy": "Never", "restartPolicyRules": [rule]}]}) == []
    assert _run({"initContainers": [{"name": "s", "restartPolicy": "Always", "restartPolicyRules": [{"action": "Stop"}]}]}) == [
        (f"{P}.initContainers[0].restartPolicyRules[0].action",
         'Unsupported value: "Stop": supported values: "Restart", "RestartAllContainers"'),
        (f"{P}.initContainers[0].restartPolicyRules[0].exitCodes", "Required value: must be specified")]


def test_wrong_types_are_left_to_the_schema_check():
    assert _run({"containers": [{"name": "a", "restartPolicy": 3, "restartPolicyRules": "x"}, "junk"]}) == []
