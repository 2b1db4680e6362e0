"""kpt_fn.engine.apply: the upsert helpers and the env conversion of pkg/apply/apply.go at v2.3.0
(byEnvVarName, byVolumeMountPath, byContainerPortOrName, EnvVar)."""

from __future__ import annotations

import pytest

from kpt_fn.engine import apply


# --- upserts (pkg/apply) ---------------------------------------------------------------------------


def test_upsert_env_replaces_in_place_and_appends():
    envs = [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]
    apply.upsert_env_vars(envs, [{"name": "B", "value": "x"}, {"name": "C", "value": "3"}, {"name": "A", "value": "y"}])
    assert envs == [{"name": "A", "value": "y"}, {"name": "B", "value": "x"}, {"name": "C", "value": "3"}]


def test_upsert_volume_mounts_match_by_mount_path():
    mounts = [{"name": "a", "mountPath": "/x"}]
    apply.upsert_volume_mounts(mounts, [{"name": "b", "mountPath": "/x"}, {"name": "a", "mountPath": "/y"}])
    assert mounts == [{"name": "b", "mountPath": "/x"}, {"name": "a", "mountPath": "/y"}]


@pytest.mark.parametrize("ports,want", [
    ([{"containerPort": 8080}], [{"containerPort": 29500}]),
    ([{"name": "m", "containerPort": 8080}], [{"name": "m", "containerPort": 8080}, {"containerPort": 29500}]),
    ([{"name": "m", "containerPort": 29500}], [{"containerPort": 29500}]),
    ([], [{"containerPort": 29500}]),
])
def test_upsert_port_quirk(ports, want):
    assert apply.upsert_ports(list(ports), [{"containerPort": 29500}]) == want


def test_upserting_a_list_into_itself_never_aliases_an_element():
    # The JobSet builder writes a container's own ports back (pkg/apply/apply.go byContainerPortOrName):
    # 53/UDP replaces 53/TCP, as upstream does, but as a copy, so that the output has no YAML alias.
    ports = [{"name": "dns-tcp", "containerPort": 53, "protocol": "TCP"}, {"name": "dns-udp", "containerPort": 53, "protocol": "UDP"}]
    apply.upsert_ports(ports, list(ports))
    assert ports == [{"name": "dns-udp", "containerPort": 53, "protocol": "UDP"}] * 2
    assert ports[0] is not ports[1]


def test_env_var_conversion():
    assert apply.env_var({"name": "A"}) == {"name": "A", "value": ""}
    assert apply.env_var({"name": "A", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "1m"}}}) == {
        "name": "A", "valueFrom": {"resourceFieldRef": {"containerName": "", "resource": "limits.cpu", "divisor": "1m"}}}
    assert apply.env_var({"name": "A", "valueFrom": {"fileKeyRef": {"key": "k"}}}) == {"name": "A", "valueFrom": {}}
