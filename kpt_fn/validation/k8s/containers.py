"""Containers and init containers (restartable init containers are sidecars).

Kubernetes v1.36 pkg/apis/core/validation/validation.go validateContainers, validateInitContainers,
validateContainerCommon, validatePullPolicy, validateResizePolicy, checkHostPortConflicts. Defaults the
API server applies first: imagePullPolicy (Always or IfNotPresent from the image tag),
terminationMessagePolicy File.
"""

from __future__ import annotations

from kpt_fn.apimachinery import validation as utilvalidation
from kpt_fn.apimachinery.field import child, index
from kpt_fn.validation.k8s import env, ports, probes, resources, security, volumes
from kpt_fn.validation.k8s.findings import as_dict, as_list, as_str

RULE = "k8s/containers"

PULL_POLICIES = ("Always", "IfNotPresent", "Never")
TERMINATION_MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")
RESIZE_RESOURCES = ("cpu", "memory")
RESIZE_POLICIES = ("NotRequired", "RestartContainer")
INIT_ONLY = "may not be set for init containers without restartPolicy=Always"


def _common(c: dict, path: str, ctx, f) -> None:
    f.named(RULE, child(path, "name"), as_str(c.get("name")), utilvalidation.is_dns1123_label)
    if not c.get("image"):
        f.required(RULE, child(path, "image"))
    policy = c.get("terminationMessagePolicy")
    if isinstance(policy, str) and policy and policy not in TERMINATION_MESSAGE_POLICIES:
        f.unsupported(RULE, child(path, "terminationMessagePolicy"), policy, TERMINATION_MESSAGE_POLICIES)
    ports.check_ports(c.get("ports"), child(path, "ports"), f)
    env.check_env(c.get("env"), child(path, "env"), ctx.volumes, f)
    env.check_env_from(c.get("envFrom"), child(path, "envFrom"), f)
    volumes.check_mounts(c, path, ctx.volumes, f)
    pull = c.get("imagePullPolicy")
    if isinstance(pull, str) and pull and pull not in PULL_POLICIES:
        f.unsupported(RULE, child(path, "imagePullPolicy"), pull, PULL_POLICIES)
    res = c.get("resources")
    if isinstance(res, dict):
        resources.check_requirements(res, child(path, "resources"), f)
        resources.check_claims_declared(res.get("claims"), ctx.claims, child(child(path, "resources"), "claims"), f)
    _resize_policy(c.get("resizePolicy"), child(path, "resizePolicy"), ctx.restart_policy, f)
    security.check_container(c.get("securityContext"), child(path, "securityContext"), ctx.host_users, f)


def _resize_policy(policies, path: str, pod_restart: str, f) -> None:
    seen: set = set()
    for i, p in enumerate(as_list(policies)):
        p = as_dict(p)
        resource, restart = p.get("resourceName") or "", p.get("restartPolicy") or ""
        if resource in seen:
            f.duplicate(RULE, index(path, i), resource)
        seen.add(resource)
        if not resource:
            f.required(RULE, path)
        elif resource not in RESIZE_RESOURCES:
            f.unsupported(RULE, path, resource, RESIZE_RESOURCES)
        if not restart:
            f.required(RULE, path)
        elif restart not in RESIZE_POLICIES:
            f.unsupported(RULE, path, restart, RESIZE_POLICIES)
        if pod_restart == "Never" and restart != "NotRequired":
            # validation.go validateResizePolicy names the pod's restartPolicy
            f.invalid(RULE, path, restart, "must be 'NotRequired' when pod `restartPolicy` is 'Never'")


def check_containers(pod: dict, path: str, ctx, f) -> None:
    containers_path = child(path, "containers")
    containers = [(i, c) for i, c in enumerate(as_list(pod.get("containers"))) if isinstance(c, dict)]
    if not containers:
        f.required(RULE, containers_path)
    seen: set = set()
    for i, c in containers:
        where = index(containers_path, i)
        _common(c, where, ctx, f)
        name = as_str(c.get("name"))
        if name in seen:
            f.duplicate(RULE, child(where, "name"), name)
        seen.add(name)
        if c.get("lifecycle") is not None:
            probes.check_lifecycle(c["lifecycle"], ctx.grace, child(where, "lifecycle"), f)
        for kind in ("livenessProbe", "readinessProbe", "startupProbe"):
            probes.check_probe(c.get(kind), kind, ctx.grace, child(where, kind), f)
    ports.host_port_conflicts(containers, containers_path, f)

    init_path = child(path, "initContainers")
    for i, c in enumerate(as_list(pod.get("initContainers"))):
        if not isinstance(c, dict):
            continue
        where = index(init_path, i)
        _common(c, where, ctx, f)
        sidecar = c.get("restartPolicy") == "Always"
        name = as_str(c.get("name"))
        if name in seen:
            f.duplicate(RULE, child(where, "name"), name)
        elif name:
            seen.add(name)
        ports.host_port_conflicts([(i, c)], init_path, f)
        if sidecar:
            if c.get("lifecycle") is not None:
                probes.check_lifecycle(c["lifecycle"], ctx.grace, child(where, "lifecycle"), f)
            for kind in ("livenessProbe", "readinessProbe", "startupProbe"):
                probes.check_probe(c.get(kind), kind, ctx.grace, child(where, kind), f)
        else:
            for kind in ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe"):
                if c.get(kind) is not None:
                    f.forbidden(RULE, child(where, kind), INIT_ONLY)
            # validateInitContainers: a resize that restarts the container only for sidecars (a
            # template is new, so AllowExistingRestartContainerForNonSidecarInitContainer is off)
            for j, p in enumerate(as_list(c.get("resizePolicy"))):
                if as_dict(p).get("restartPolicy") == "RestartContainer":
                    f.invalid(RULE, child(index(child(where, "resizePolicy"), j), "restartPolicy"), "RestartContainer",
                              "must not be set to 'RestartContainer' for non-sidecar initContainers")
