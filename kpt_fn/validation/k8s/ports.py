"""Container ports and port references (probes, lifecycle handlers).

Kubernetes v1.36 pkg/apis/core/validation/validation.go validateContainerPorts, ValidatePortNumOrName,
AccumulateUniqueHostPorts, validatePodHostNetworkDeps; apimachinery v0.36 pkg/util/validation
IsValidPortNum, IsValidPortName. A named port used by a probe needs only valid syntax: upstream does not
look the name up among the container's ports.
"""

from __future__ import annotations

import re

from kpt_fn.apimachinery.field import child, index
from kpt_fn.validation.k8s.findings import as_int, as_list, as_str

RULE = "k8s/ports"

PROTOCOLS = ("SCTP", "TCP", "UDP")
_PORT_NAME_CHARS = r"[-a-z0-9]+"  # compiled on first use


def port_num_problems(port: int) -> list[str]:
    return [] if 1 <= port <= 65535 else ["must be between 1 and 65535, inclusive"]


def port_name_problems(name: str) -> list[str]:
    errs = []
    if len(name) > 15:
        errs.append("must be no more than 15 characters")
    if not re.fullmatch(_PORT_NAME_CHARS, name):
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not re.search("[a-z]", name):
        errs.append("must contain at least one letter (a-z)")
    if "--" in name:
        errs.append("must not contain consecutive hyphens")
    if name and (name[0] == "-" or name[-1] == "-"):
        errs.append("must not begin or end with a hyphen")
    return errs


def check_num_or_name(value, path: str, rule: str, f) -> None:
    """ValidatePortNumOrName: an int-or-string port."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        for msg in port_num_problems(value):
            f.invalid(rule, path, value, msg)
    elif isinstance(value, str):
        for msg in port_name_problems(value):
            f.invalid(rule, path, value, msg)


def check_ports(ports, path: str, f) -> None:
    seen: set = set()
    for i, port in enumerate(as_list(ports)):
        if not isinstance(port, dict):
            continue
        where = index(path, i)
        name = as_str(port.get("name"))
        if name:
            problems = port_name_problems(name)
            for msg in problems:
                f.invalid(RULE, child(where, "name"), name, msg)
            if not problems:
                if name in seen:
                    f.duplicate(RULE, child(where, "name"), name)
                seen.add(name)
        number = as_int(port.get("containerPort"))
        if not number:
            f.required(RULE, child(where, "containerPort"))
        else:
            for msg in port_num_problems(number):
                f.invalid(RULE, child(where, "containerPort"), number, msg)
        host = as_int(port.get("hostPort"))
        if host:
            for msg in port_num_problems(host):
                f.invalid(RULE, child(where, "hostPort"), host, msg)
        protocol = port.get("protocol")  # SetDefaults_ContainerPort: absent or "" becomes TCP
        if isinstance(protocol, str) and protocol and protocol not in PROTOCOLS:
            f.unsupported(RULE, child(where, "protocol"), protocol, PROTOCOLS)


def host_port_conflicts(containers, path: str, f) -> None:
    """AccumulateUniqueHostPorts over `containers` (one list: regular containers together, each init
    container alone)."""
    seen: set = set()
    for ci, container in containers:
        for pi, port in enumerate(as_list(container.get("ports"))):
            if not isinstance(port, dict):
                continue
            host = as_int(port.get("hostPort"))
            if not host:
                continue
            text = f"{port.get('protocol') or 'TCP'}/{port.get('hostIP') or ''}/{host}"
            if text in seen:
                f.duplicate(RULE, child(index(child(index(path, ci), "ports"), pi), "hostPort"), text)
            seen.add(text)


def host_network_ports(pod: dict, path: str, f) -> None:
    """In a pod template a hostPort may stay 0 (defaulted later) but must otherwise equal the
    containerPort when the pod uses the host network."""
    if pod.get("hostNetwork") is not True:
        return
    for ci, container in enumerate(as_list(pod.get("containers"))):
        if not isinstance(container, dict):
            continue
        for pi, port in enumerate(as_list(container.get("ports"))):
            if not isinstance(port, dict):
                continue
            host, number = as_int(port.get("hostPort")) or 0, as_int(port.get("containerPort")) or 0
            if host and host != number:
                f.invalid(RULE, f"{path}.containers[{ci}].ports[{pi}].hostPort", host,
                          "must match `containerPort` when `hostNetwork` is true")
