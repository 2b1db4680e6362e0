"""The pod template of a Job: pod-level fields, then each family's checks.

Kubernetes v1.36 pkg/apis/core/validation/validation.go ValidatePodTemplateSpec and ValidatePodSpec
(restartPolicy, dnsPolicy, dnsConfig, hostname, subdomain, priorityClassName, serviceAccountName,
nodeName, activeDeadlineSeconds, preemptionPolicy, runtimeClassName, readinessGates, schedulingGates,
hostAliases, imagePullSecrets, os, overhead, pod-level resources, resourceClaims; ephemeral containers
are refused in templates). Pod-template labels and annotations are the names family's
(names/template-metadata). Defaults applied first: restartPolicy OnFailure (the JobSet webhook),
dnsPolicy ClusterFirst, terminationGracePeriodSeconds 30.
"""

from __future__ import annotations


from kpt_fn import quantity, workload
from kpt_fn.apimachinery import validation as utilvalidation
from kpt_fn.apimachinery.field import child, index, key
from kpt_fn.validation.k8s import containers, ports, resources, restart, scheduling, security, volumes
from kpt_fn.validation.k8s.findings import as_dict, as_int, as_list, as_str

RULE = "k8s/pod"

RESTART_POLICIES = ("Always", "OnFailure", "Never")
DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
OS_NAMES = ("linux", "windows")
DEFAULT_GRACE = 30
MAX_INT32 = 2**31 - 1


class PodContext:
    """What the container checks need from the pod: valid volumes, declared claims, grace period,
    restart policy and whether the pod uses the host's user namespace."""

    __slots__ = ("volumes", "claims", "grace", "restart_policy", "host_users")

    def __init__(self, pod: dict, volume_map: dict):
        self.volumes = volume_map
        self.claims = {c.get("name") for c in as_list(pod.get("resourceClaims")) if isinstance(c, dict) and c.get("name")}
        grace = as_int(pod.get("terminationGracePeriodSeconds"))
        self.grace = DEFAULT_GRACE if grace is None else grace
        self.restart_policy = as_str(pod.get("restartPolicy")) or "OnFailure"
        self.host_users = pod.get("hostUsers") is not False


def _subdomain(value, path, f):
    if isinstance(value, str) and value:
        for msg in utilvalidation.is_dns1123_subdomain(value):
            f.invalid(RULE, path, value, msg)


def _label(value, path, f):
    if isinstance(value, str) and value:
        for msg in utilvalidation.is_dns1123_label(value):
            f.invalid(RULE, path, value, msg)


def _ip(value, path, f):
    """apimachinery IsValidIP: a parsable address, written in canonical form."""
    if not isinstance(value, str):
        return
    import ipaddress  # only where a pod names an IP (nameservers, hostAliases): it costs every start-up ~1 ms

    try:
        ip = ipaddress.ip_address(value)
    except ValueError:
        f.invalid(RULE, path, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")
        return
    if str(ip) != value:
        f.invalid(RULE, path, value, f"must be in canonical form ({str(ip)!r})".replace("'", '"'))


def _dns(pod: dict, path: str, f) -> None:
    policy = pod.get("dnsPolicy")
    if isinstance(policy, str) and policy and policy not in DNS_POLICIES:
        f.unsupported(RULE, child(path, "dnsPolicy"), policy, DNS_POLICIES)
    config = pod.get("dnsConfig")
    where = child(path, "dnsConfig")
    if policy == "None":
        if not isinstance(config, dict):
            f.required(RULE, where, "must provide `dnsConfig` when `dnsPolicy` is None")
            return
        if not as_list(config.get("nameservers")):
            f.required(RULE, child(where, "nameservers"), "must provide at least one DNS nameserver when `dnsPolicy` is None")
            return
    if not isinstance(config, dict):
        return
    servers = as_list(config.get("nameservers"))
    if len(servers) > 3:
        f.invalid(RULE, child(where, "nameservers"), servers, "must not have more than 3 nameservers")
    for i, ns in enumerate(servers):
        _ip(ns, index(child(where, "nameservers"), i), f)
    searches = as_list(config.get("searches"))
    if len(searches) > 32:
        f.invalid(RULE, child(where, "searches"), searches, "must not have more than 32 search paths")
    if len(" ".join(s for s in searches if isinstance(s, str))) > 2048:
        f.invalid(RULE, child(where, "searches"), searches,
                  "must not have more than 2048 characters (including spaces) in the search list")
    for i, search in enumerate(searches):
        # RelaxedDNSSearchValidation is GA: "." alone is fine, underscores are allowed
        if isinstance(search, str) and search != ".":
            search = search[:-1] if search.endswith(".") else search
            for msg in utilvalidation.is_dns1123_subdomain_with_underscore(search):
                f.invalid(RULE, index(child(where, "searches"), i), search, msg)
    for i, option in enumerate(as_list(config.get("options"))):
        if not as_dict(option).get("name"):
            f.required(RULE, index(child(where, "options"), i), "must not be empty")


def check_pod_spec(pod: dict, path: str, f, claim_volumes=(), labels=None) -> None:
    """`claim_volumes`: the JobSet's VolumeClaimPolicies template names; the JobSet controller adds a
    persistentVolumeClaim volume of that name to each Job that mounts it (jobset v0.12
    pkg/controllers/volume_claim_policy.go addVolumes), so a mount of it is not a mount of nothing.
    `labels`: the pod template's labels (what matchLabelKeys reads when each Pod is created).
    Pod-level fields are checked only when present (one dict lookup each), in upstream's order."""
    volume_map = volumes.check_volumes(pod.get("volumes"), child(path, "volumes"), f)
    for name in claim_volumes:
        volume_map.setdefault(name, {"persistentVolumeClaim": {"claimName": name}})
    if "resourceClaims" in pod:
        _resource_claims(pod, path, f)
    containers.check_containers(pod, path, PodContext(pod, volume_map), f)
    restart.check_pod(pod, path, f)
    for fields, check in _POD_FIELDS:
        if not pod.keys().isdisjoint(fields):  # one of the fields is present
            if check in _READ_LABELS:
                check(pod, path, f, labels)
            else:
                check(pod, path, f)


def _resource_claims(pod, path, f):
    claims_seen: set = set()
    for i, claim in enumerate(as_list(pod.get("resourceClaims"))):
        claim = as_dict(claim)
        where = index(child(path, "resourceClaims"), i)
        name = as_str(claim.get("name")) or ""
        if not name:
            f.required(RULE, child(where, "name"))
        elif name in claims_seen:
            f.duplicate(RULE, child(where, "name"), name)
        else:
            _label(name, child(where, "name"), f)
            claims_seen.add(name)
        given = [k for k in ("resourceClaimName", "resourceClaimTemplateName") if claim.get(k) is not None]
        if len(given) == 2:
            f.invalid(RULE, where, claim, "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified")
        elif not given:
            f.invalid(RULE, where, claim, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`")
        for k in given:
            _subdomain(claim.get(k), child(where, k), f)


def _ephemeral(pod, path, f):
    if pod.get("ephemeralContainers"):
        f.forbidden(RULE, child(path, "ephemeralContainers"), "ephemeral containers not allowed in pod template")


def _pod_resources(pod, path, f):
    """validatePodResources (PodLevelResources is on in 1.36): the pod's own requirements, then
    validatePodResourceConsistency against its containers."""
    pod_resources = pod.get("resources")
    if isinstance(pod_resources, dict):
        where = child(path, "resources")
        if as_dict(pod.get("os")).get("name") == "windows":
            # validatePodResources: only this, without the detailed checks
            f.forbidden(resources.RULE, where, "may not be set for a windows pod")
            return
        if pod_resources.get("claims") is not None:
            f.forbidden(resources.RULE, child(where, "claims"), "claims may not be set for Resources at pod-level")
        _pod_resource_names(pod_resources, where, f)
        resources.check_requirements(pod_resources, where, f, check_names=False)
        _pod_resources_consistent(pod, pod_resources, where, f)


# component-helpers resource SupportedPodLevelResources (v0.36): cpu, memory and every hugepages-<size>,
# listed as sets.List sorts them in the NotSupported detail
POD_LEVEL_RESOURCES = ("cpu", "hugepages-", "memory")


def _pod_resource_names(pod_resources: dict, path: str, f) -> None:
    """validatePodResourceName: a resource name (validateResourceName), then one pod-level resources
    support (a GPU or ephemeral-storage stays with its container)."""
    for part in ("limits", "requests"):
        for name in as_dict(pod_resources.get(part)):
            if not isinstance(name, str):
                continue
            where = key(child(path, part), name)
            problems = utilvalidation.is_qualified_name(name)
            for msg in problems:
                f.invalid(resources.RULE, where, name, msg)
            if problems:
                continue
            if "/" not in name and not resources.is_standard(name):
                f.invalid(resources.RULE, where, name, "must be a standard resource type or fully qualified")
            elif name not in ("cpu", "memory") and not resources.is_hugepages(name):
                f.unsupported(resources.RULE, where, name, POD_LEVEL_RESOURCES)


def _quantities(mapping) -> dict:
    """A resource list's quantities as defaulted (rounded up to milli-units, resources.milli_rounded)."""
    out = {}
    for name, value in as_dict(mapping).items():
        try:
            out[name] = resources.milli_rounded(quantity.parse(value))
        except (quantity.QuantityError, TypeError, ValueError):
            continue
    return out


def _defaulted_resources(container):
    """A container with its resource lists as the API server holds them (quantities rounded up to
    milli-units), for the containers' aggregate."""
    res = as_dict(as_dict(container).get("resources"))
    if not res:
        return container
    lists = {part: {k: quantity.canonical(q) for k, q in _quantities(res.get(part)).items()}
             for part in ("requests", "limits") if isinstance(res.get(part), dict)}
    return {**container, "resources": {**res, **lists}}


def _pod_resources_consistent(pod, pod_resources: dict, path: str, f) -> None:
    # AggregateContainerRequests: what the containers (sidecars and the init phase included) ask for,
    # without the pod-level values and overhead that workload.pod_requests adds on top
    containers_only = {k: ([_defaulted_resources(c) for c in as_list(v)] if k in ("containers", "initContainers") else v)
                       for k, v in pod.items() if k not in ("resources", "overhead")}
    pod_requests = _quantities(pod_resources.get("requests"))
    # SetDefaults_Pod with PodLevelResources (pkg/apis/core/v1/defaults.go defaultPodRequests, read
    # from a copy of kubernetes@6df7e09a): a pod-level resource with a limit and no request gets the
    # limit as its request (cpu, memory; a hugepage request takes the containers' aggregate first, which
    # never falls short of itself, and the pod's hugepage limit is checked below), so the containers'
    # requests are compared with it
    for name, limit in _quantities(pod_resources.get("limits")).items():
        if name in ("cpu", "memory") and name not in pod_requests:
            pod_requests[name] = limit
    for name, need in workload.pod_requests(containers_only).items():
        # a resource the pod level leaves out is not compared (pod-level resources name cpu, memory
        # and hugepages only; a GPU stays with its container)
        have = pod_requests.get(name)
        if have is not None and need > have:
            f.invalid(resources.RULE, key(child(path, "requests"), name), quantity.canonical(have),
                      f"must be greater than or equal to aggregate container requests of {quantity.canonical(need)}")
    pod_limits = _quantities(pod_resources.get("limits"))
    # validatePodResourceConsistency (validation.go): hugepages are never overcommitted, so a pod-level
    # hugepage limit must cover the containers' together (AggregateContainerLimits; a container's
    # hugepage request equals its limit, so the aggregate requests are those limits);
    # TestValidatePodResourceConsistency's "hugepage aggregate container limits greater than pod limits"
    for name, need in workload.pod_requests(containers_only).items():
        have = pod_limits.get(name)
        if resources.is_hugepages(name) and have is not None and need > have:
            f.invalid(resources.RULE, key(child(path, "limits"), name), quantity.canonical(have),
                      f"must be greater than or equal to aggregate container limits of {quantity.canonical(need)}")
    for i, c in enumerate(as_list(pod.get("containers"))):
        for name, limit in _quantities(as_dict(as_dict(c).get("resources")).get("limits")).items():
            most = pod_limits.get(name)
            if most is not None and limit > most:
                # upstream's path: resources.containers[i][<name>].limits
                f.invalid(resources.RULE, f"{path}.containers[{i}][{name}].limits", quantity.canonical(limit),
                          f"must be less than or equal to pod limits of {quantity.canonical(most)}")


def _overhead(pod, path, f):
    overhead = pod.get("overhead")
    if isinstance(overhead, dict):
        resources.check_requirements({"limits": overhead}, child(path, "overhead"), f)


def _restart_policy(pod, path, f):
    restart = pod.get("restartPolicy")
    if isinstance(restart, str) and restart and restart not in RESTART_POLICIES:
        f.unsupported(RULE, child(path, "restartPolicy"), restart, RESTART_POLICIES)


def _pull_secrets(pod, path, f):
    for i, secret in enumerate(as_list(pod.get("imagePullSecrets"))):
        if isinstance(secret, dict) and set(secret) - {"name"}:
            f.invalid(RULE, index(child(path, "imagePullSecrets"), i), secret, "only name may be set")


def _readiness_gates(pod, path, f):
    for i, gate in enumerate(as_list(pod.get("readinessGates"))):
        kind = as_dict(gate).get("conditionType")
        if isinstance(kind, str):
            for msg in utilvalidation.is_qualified_name(kind):
                f.invalid(RULE, child(index(child(path, "readinessGates"), i), "conditionType"), kind, msg)


def _scheduling_gates(pod, path, f):
    gates_seen: set = set()
    for i, gate in enumerate(as_list(pod.get("schedulingGates"))):
        name = as_dict(gate).get("name")
        if isinstance(name, str):
            where = index(child(path, "schedulingGates"), i)
            for msg in utilvalidation.is_qualified_name(name):
                f.invalid(RULE, where, name, msg)
            if name in gates_seen:
                f.duplicate(RULE, where, name)
            gates_seen.add(name)


def _deadline(pod, path, f):
    deadline = as_int(pod.get("activeDeadlineSeconds"))
    if deadline is not None and not 1 <= deadline <= MAX_INT32:
        f.invalid(RULE, child(path, "activeDeadlineSeconds"), deadline, f"must be between 1 and {MAX_INT32}, inclusive")


def _host_aliases(pod, path, f):
    for i, alias in enumerate(as_list(pod.get("hostAliases"))):
        alias = as_dict(alias)
        where = index(child(path, "hostAliases"), i)
        _ip(alias.get("ip", ""), child(where, "ip"), f)
        for j, host in enumerate(as_list(alias.get("hostnames"))):
            _subdomain(host, index(child(where, "hostnames"), j), f)


def _preemption(pod, path, f):
    preemption = pod.get("preemptionPolicy")
    if isinstance(preemption, str) and preemption and preemption not in PREEMPTION_POLICIES:
        f.unsupported(RULE, child(path, "preemptionPolicy"), preemption, PREEMPTION_POLICIES)


_WINDOWS_POD_FORBIDDEN = ("appArmorProfile", "seLinuxOptions", "seccompProfile", "fsGroup", "fsGroupChangePolicy",
                          "sysctls", "runAsUser", "runAsGroup", "supplementalGroups", "supplementalGroupsPolicy",
                          "seLinuxChangePolicy")
_WINDOWS_CONTAINER_FORBIDDEN = ("appArmorProfile", "seLinuxOptions", "seccompProfile", "capabilities",
                                "readOnlyRootFilesystem", "privileged", "allowPrivilegeEscalation", "procMount",
                                "runAsUser", "runAsGroup")


def _os(pod, path, f):
    """validateOS, then validateLinux / validateWindows: the securityContext fields the other OS owns."""
    os_name = as_dict(pod.get("os")).get("name")
    if not isinstance(os_name, str):
        return
    if not os_name:
        f.required(RULE, child(child(path, "os"), "name"))
        return
    if os_name not in OS_NAMES:
        # upstream reports it at `os`, not `os.name`
        f.unsupported(RULE, child(path, "os"), os_name, OS_NAMES)
        return
    sc = as_dict(pod.get("securityContext"))
    containers = [(field, i, as_dict(c)) for field in ("initContainers", "containers")
                  for i, c in enumerate(as_list(pod.get(field)))]
    if os_name == "linux":
        if sc.get("windowsOptions") is not None:
            f.forbidden(security.RULE, f"{path}.securityContext.windowsOptions", "windows options cannot be set for a linux pod")
        for field, i, c in containers:
            if as_dict(c.get("securityContext")).get("windowsOptions") is not None:
                f.forbidden(security.RULE, f"{path}.{field}[{i}].securityContext.windowsOptions",
                            "windows options cannot be set for a linux pod")
        return
    for name in _WINDOWS_POD_FORBIDDEN:
        if sc.get(name) not in (None, []):
            f.forbidden(security.RULE, f"{path}.securityContext.{name}", "cannot be set for a windows pod")
    # set at all (hostUsers, shareProcessNamespace) or true (hostPID, hostIPC)
    for name, bad in (("hostUsers", None), ("hostPID", True), ("hostIPC", True), ("shareProcessNamespace", None)):
        value = pod.get(name)
        if value is not None and (bad is None or value is bad):
            f.forbidden(security.RULE, child(path, name), "cannot be set for a windows pod")
    for field, i, c in containers:
        csc = as_dict(c.get("securityContext"))
        for name in _WINDOWS_CONTAINER_FORBIDDEN:
            if csc.get(name) is not None:
                f.forbidden(security.RULE, f"{path}.{field}[{i}].securityContext.{name}", "cannot be set for a windows pod")


def _hostname_override(pod, path, f):
    """validatePodHostName (HostnameOverride is beta and on since 1.35, pkg/features/kube_features.go)."""
    value = pod.get("hostnameOverride")
    if not isinstance(value, str):
        return
    where = child(path, "hostnameOverride")
    if pod.get("setHostnameAsFQDN") is True:
        f.forbidden(RULE, where, "may not be specified when setHostnameAsFQDN is true")
    if pod.get("hostNetwork") is True:
        f.forbidden(RULE, where, "may not be specified when hostNetwork is true")
    if len(value.encode()) > 64:
        f.too_long(RULE, where, 64)
    for msg in utilvalidation.is_dns1123_subdomain(value):
        f.invalid(RULE, where, value, msg)


def _affinity(pod, path, f, labels=None):
    scheduling.check_affinity(pod.get("affinity"), child(path, "affinity"), f, labels)


def _spread(pod, path, f, labels=None):
    scheduling.check_topology_spread(pod.get("topologySpreadConstraints"), child(path, "topologySpreadConstraints"), f, labels)


# the checks that read the pod template's labels (matchLabelKeys merges the Pod's own values)
_READ_LABELS = (_affinity, _spread)


def _runtime_class(pod, path, f):
    value = pod.get("runtimeClassName")
    if isinstance(value, str):  # "" too: ValidateRuntimeClassName has no empty case
        for msg in utilvalidation.is_dns1123_subdomain(value):
            f.invalid(RULE, child(path, "runtimeClassName"), value, msg)


def _named_field(field, check):
    return (field,), lambda pod, path, f: check(pod.get(field), child(path, field), f)


# ValidatePodSpec's order after the containers: (the fields that trigger a check, the check)
_POD_FIELDS = (
    (("ephemeralContainers",), _ephemeral),
    (("resources",), _pod_resources),
    (("hostNetwork",), ports.host_network_ports),
    (("restartPolicy",), _restart_policy),
    (("dnsPolicy", "dnsConfig"), _dns),
    _named_field("nodeSelector", scheduling.check_node_selector),
    (("securityContext", "shareProcessNamespace", "hostUsers"), security.check_pod),
    (("imagePullSecrets",), _pull_secrets),
    (("affinity",), _affinity),
    (("readinessGates",), _readiness_gates),
    (("schedulingGates",), _scheduling_gates),
    (("topologySpreadConstraints",), _spread),
    (("containers", "initContainers"), security.check_host_process),
    (("hostnameOverride",), _hostname_override),
    _named_field("serviceAccountName", _subdomain),
    _named_field("nodeName", _subdomain),
    (("activeDeadlineSeconds",), _deadline),
    _named_field("hostname", _label),
    _named_field("subdomain", _label),
    _named_field("tolerations", scheduling.check_tolerations),
    (("hostAliases",), _host_aliases),
    _named_field("priorityClassName", _subdomain),
    (("runtimeClassName",), _runtime_class),
    (("preemptionPolicy",), _preemption),
    (("overhead",), _overhead),
    (("os",), _os),
)
