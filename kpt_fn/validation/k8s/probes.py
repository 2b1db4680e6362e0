"""Probes and lifecycle handlers.

Kubernetes v1.36 pkg/apis/core/validation/validation.go validateLivenessProbe, validateReadinessProbe,
validateStartupProbe, validateProbe, validateHandler, validateExecAction, validateHTTPGetAction,
validateTCPSocketAction, validateGRPCAction, validateSleepAction (PodLifecycleSleepActionAllowZero is
on: a zero sleep is valid), validateLifecycle. Probe defaults (timeoutSeconds 1, periodSeconds 10,
successThreshold 1, failureThreshold 3, httpGet path "/" and scheme HTTP) are applied before
validation, so absent fields are never errors.
"""

from __future__ import annotations

import re

from kpt_fn.apimachinery.field import child
from kpt_fn.validation.k8s import ports
from kpt_fn.validation.k8s.findings import as_dict, as_int, as_list

RULE = "k8s/probes"

SCHEMES = ("HTTP", "HTTPS")
_HEADER = r"[-A-Za-z0-9]+"  # compiled on first use
HEADER_MSG = ("a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', "
              "regex used for validation is '[-A-Za-z0-9]+')")
NEGATIVE = "must be greater than or equal to 0"
PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
LIFECYCLE_HANDLERS = ("exec", "httpGet", "tcpSocket", "sleep")


def _handler(handler: dict, kinds: tuple, grace: int, path: str, f) -> None:
    count = 0
    for kind in kinds:
        action = handler.get(kind)
        if action is None:
            continue
        where = child(path, kind)
        if count:
            f.forbidden(RULE, where, "may not specify more than 1 handler type")
            continue
        count += 1
        action = as_dict(action)
        if kind == "exec":
            if not as_list(action.get("command")):
                f.required(RULE, child(where, "command"))
        elif kind == "httpGet":
            # an absent port is intstr's zero value, the number 0 (validation.go ValidatePortNumOrName);
            # upstream's TestValidateContainers "invalid lifecycle, no http port."
            ports.check_num_or_name(action.get("port", 0), child(where, "port"), RULE, f)
            scheme = action.get("scheme")
            if isinstance(scheme, str) and scheme and scheme not in SCHEMES:
                f.unsupported(RULE, child(where, "scheme"), scheme, SCHEMES)
            for header in as_list(action.get("httpHeaders")):
                name = as_dict(header).get("name")
                if isinstance(name, str) and not re.fullmatch(_HEADER, name):
                    f.invalid(RULE, child(where, "httpHeaders"), name, HEADER_MSG)
        elif kind == "tcpSocket":
            ports.check_num_or_name(action.get("port", 0), child(where, "port"), RULE, f)
        elif kind == "grpc":
            number = as_int(action.get("port", 0))
            if number is not None:
                ports.check_num_or_name(number, child(where, "port"), RULE, f)
        elif kind == "sleep":
            seconds = as_int(action.get("seconds"))
            if seconds is not None and (seconds < 0 or seconds > grace):
                f.invalid(RULE, where, seconds,
                          f"must be non-negative and less than terminationGracePeriodSeconds ({grace})")
    if count == 0:
        f.required(RULE, path, "must specify a handler type")


def check_probe(probe, kind: str, grace: int, path: str, f) -> None:
    """kind: livenessProbe, readinessProbe or startupProbe."""
    if not isinstance(probe, dict):
        return
    _handler(probe, PROBE_HANDLERS, grace, path, f)
    for name in ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"):
        value = as_int(probe.get(name))
        if value is not None and value < 0:
            f.invalid(RULE, child(path, name), value, NEGATIVE)
    tgps = probe.get("terminationGracePeriodSeconds")
    if as_int(tgps) is not None and tgps <= 0:
        f.invalid(RULE, child(path, "terminationGracePeriodSeconds"), tgps, "must be greater than 0")
    success = as_int(probe.get("successThreshold"))
    if kind != "readinessProbe" and success not in (None, 0, 1):
        f.invalid(RULE, child(path, "successThreshold"), success, "must be 1")
    if kind == "readinessProbe" and tgps is not None:
        f.invalid(RULE, child(path, "terminationGracePeriodSeconds"), tgps, "must not be set for readinessProbes")


def check_lifecycle(lifecycle, grace: int, path: str, f) -> None:
    lifecycle = as_dict(lifecycle)
    for hook in ("postStart", "preStop"):
        handler = lifecycle.get(hook)
        if handler is not None:
            _handler(as_dict(handler), LIFECYCLE_HANDLERS, grace, child(path, hook), f)
