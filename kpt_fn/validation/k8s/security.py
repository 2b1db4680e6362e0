"""Pod and container securityContext.

Kubernetes v1.36 pkg/apis/core/validation/validation.go ValidateSecurityContext,
validatePodSpecSecurityContext, validateSeccompProfileField, ValidateAppArmorProfileField,
validateSysctls, validateHostUsers; apimachinery v0.36 IsValidUserID / IsValidGroupID. The cluster
allows privileged containers (the API server's default), so `privileged: true` is not an error here.
"""

from __future__ import annotations

import re

from kpt_fn.apimachinery import validation as utilvalidation
from kpt_fn.apimachinery.field import child, index
from kpt_fn.validation.k8s import paths
from kpt_fn.validation.k8s.findings import as_dict, as_int, as_list, as_str

RULE = "k8s/security-context"

ID_RANGE = "must be between 0 and 2147483647, inclusive"
SECCOMP_TYPES = ("Localhost", "RuntimeDefault", "Unconfined")
APPARMOR_TYPES = ("Localhost", "RuntimeDefault", "Unconfined")
PROC_MOUNTS = ("Default", "Unmasked")
FS_GROUP_CHANGE = ("Always", "OnRootMismatch")
SUPPLEMENTAL_GROUPS_POLICIES = ("Merge", "Strict")
SELINUX_CHANGE = ("MountOption", "Recursive")
_SYSCTL_SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_SYSCTL = "(" + _SYSCTL_SEGMENT + r"[\./])*" + _SYSCTL_SEGMENT
_SYSCTL_MSG = f"must have at most 253 characters and match regex ^({_SYSCTL_SEGMENT}[\\./])*{_SYSCTL_SEGMENT}$"


# component-helpers node/util/sysctl: the sysctls namespaced by the kernel (exact names, then prefixes).
_IPC_SYSCTLS = frozenset({"kernel.sem"})
_NAMESPACED_PREFIXES = (("kernel.shm", "ipc"), ("kernel.msg", "ipc"), ("fs.mqueue.", "ipc"), ("net.", "net"))


def _normalize_sysctl(name: str) -> str:
    """component-helpers node/util/sysctl NormalizeName: a name whose first separator is '/' is
    written with '/' between its parts and '.' inside them; swap them to the dotted form."""
    first = next((ch for ch in name if ch in "./"), "")
    return name.translate(str.maketrans("./", "/.")) if first == "/" else name


def _sysctl_namespace(name: str) -> str:
    name = _normalize_sysctl(name)
    if name in _IPC_SYSCTLS:
        return "ipc"
    return next((kind for prefix, kind in _NAMESPACED_PREFIXES if name.startswith(prefix)), "")


def _id(value, path, f):
    n = as_int(value)
    if n is not None and not 0 <= n <= 2**31 - 1:
        f.invalid(RULE, path, n, ID_RANGE)


def _seccomp(profile, path, f):
    if not isinstance(profile, dict):
        return
    kind = profile.get("type")
    if not kind:
        f.required(RULE, child(path, "type"), "type is required when seccompProfile is set")
    elif kind not in SECCOMP_TYPES:
        f.unsupported(RULE, child(path, "type"), kind, SECCOMP_TYPES)
    local = profile.get("localhostProfile")
    if kind == "Localhost":
        if local is None:
            f.required(RULE, child(path, "localhostProfile"), "must be set when seccomp type is Localhost")
        elif isinstance(local, str):
            paths.local_descending(local, child(path, "localhostProfile"), RULE, f)
    elif local is not None:
        f.invalid(RULE, child(path, "localhostProfile"), profile, "can only be set when seccomp type is Localhost")


def _apparmor(profile, path, f):
    if not isinstance(profile, dict):
        return
    kind = profile.get("type")
    local = profile.get("localhostProfile")
    if kind == "Localhost":
        if local is None:
            f.required(RULE, child(path, "localhostProfile"), "must be set when AppArmor type is Localhost")
        elif isinstance(local, str):
            if local.strip() != local:
                f.invalid(RULE, child(path, "localhostProfile"), local, "must not be padded with whitespace")
            elif not local:
                f.required(RULE, child(path, "localhostProfile"), "must be set when AppArmor type is Localhost")
            if len(local.encode()) > 4095:
                f.too_long(RULE, child(path, "localhostProfile"), 4095)
    elif kind in ("RuntimeDefault", "Unconfined"):
        if local is not None:
            f.invalid(RULE, child(path, "localhostProfile"), local, "can only be set when AppArmor type is Localhost")
    elif not kind:
        f.required(RULE, child(path, "type"), "type is required when appArmorProfile is set")
    else:
        f.unsupported(RULE, child(path, "type"), kind, APPARMOR_TYPES)


def check_container(sc, path: str, host_users: bool, f) -> None:
    if not isinstance(sc, dict):
        return
    _id(sc.get("runAsUser"), child(path, "runAsUser"), f)
    _id(sc.get("runAsGroup"), child(path, "runAsGroup"), f)
    proc = sc.get("procMount")
    if isinstance(proc, str):
        if proc not in PROC_MOUNTS:
            f.unsupported(RULE, child(path, "procMount"), proc, PROC_MOUNTS)
        if host_users and proc == "Unmasked":
            f.invalid(RULE, child(path, "procMount"), proc, "`hostUsers` must be false to use `Unmasked`")
    _seccomp(sc.get("seccompProfile"), child(path, "seccompProfile"), f)
    if sc.get("allowPrivilegeEscalation") is False:
        if sc.get("privileged") is True:
            f.invalid(RULE, path, sc, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true")
        for cap in as_list(as_dict(sc.get("capabilities")).get("add")):
            if cap == "CAP_SYS_ADMIN":
                f.invalid(RULE, path, sc, "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN")
    windows_options(sc.get("windowsOptions"), child(path, "windowsOptions"), f)
    _apparmor(sc.get("appArmorProfile"), child(path, "appArmorProfile"), f)


# validateWindowsSecurityContextOptions: limits and forms from validation.go (GMSA credential spec
# size, runAsUserName as DOMAIN\USER or USER with a NetBios or DNS domain)
MAX_GMSA_SPEC_KIB = 64
MAX_USER_DOMAIN = 256
MAX_USER = 104
# Patterns, not compiled ones: only pods that set runAsUserName or sysctls need them, and `re`
# compiles (and keeps) each on its first use instead of on every start-up.
_CONTROL = r"[\x00-\x1f\x7f]"
_NETBIOS = r'[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}'
_DNS_LABEL = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
_DNS_DOMAIN = rf"{_DNS_LABEL}(?:\.{_DNS_LABEL})*"
_USER_BAD_CHARS = r'["/\\:;|=,+*?<>@\[\]]'
_USER_DOTS_SPACES = r"[. ]+"


def windows_options(options, path: str, f) -> None:
    if not isinstance(options, dict):
        return
    name = options.get("gmsaCredentialSpecName")
    if isinstance(name, str):
        for msg in utilvalidation.is_dns1123_subdomain(name):
            f.invalid(RULE, child(path, "gmsaCredentialSpecName"), name, msg)
    spec = options.get("gmsaCredentialSpec")
    if isinstance(spec, str):
        if not spec:
            f.invalid(RULE, child(path, "gmsaCredentialSpec"), spec, "gmsaCredentialSpec cannot be an empty string")
        elif len(spec.encode()) > MAX_GMSA_SPEC_KIB * 1024:
            f.invalid(RULE, child(path, "gmsaCredentialSpec"), spec, f"gmsaCredentialSpec size must be under {MAX_GMSA_SPEC_KIB} KiB")
    user = options.get("runAsUserName")
    if isinstance(user, str):
        for msg in _run_as_user_name(user):
            f.invalid(RULE, child(path, "runAsUserName"), user, msg)


def _run_as_user_name(value: str) -> list[str]:
    if not value:
        return ["runAsUserName cannot be an empty string"]
    if re.search(_CONTROL, value):
        return ["runAsUserName cannot contain control characters"]
    parts = value.split("\\")
    if len(parts) > 2:
        return ["runAsUserName cannot contain more than one backslash"]
    domain, user = (parts[0], parts[1]) if len(parts) == 2 else ("", parts[0])
    out = []
    if len(domain.encode()) >= MAX_USER_DOMAIN:
        out.append(f"runAsUserName's Domain length must be under {MAX_USER_DOMAIN} characters")
    if len(parts) == 2 and not (re.fullmatch(_NETBIOS, domain) or re.fullmatch(_DNS_DOMAIN, domain)):
        out.append("runAsUserName's Domain doesn't match the NetBios nor the DNS format")
    if not user:
        out.append("runAsUserName's User cannot be empty")
    elif len(user.encode()) > MAX_USER:
        out.append(f"runAsUserName's User length must not be longer than {MAX_USER} characters")
    if re.fullmatch(_USER_DOTS_SPACES, user):
        out.append("runAsUserName's User cannot contain only periods or spaces")
    if re.search(_USER_BAD_CHARS, user):
        out.append('runAsUserName\'s User cannot contain the following characters: "/\\:;|=,+*?<>@[]')
    return out


def check_host_process(pod: dict, path: str, f) -> None:
    """validateWindowsHostProcessPod (every pod, whatever its os): all containers HostProcess or none,
    with hostNetwork; a container's value equal to the pod's when both are set. The cluster allows
    privileged containers, so HostProcess ones are not refused by policy."""
    pod_value = as_dict(as_dict(pod.get("securityContext")).get("windowsOptions")).get("hostProcess")
    pod_value = pod_value if isinstance(pod_value, bool) else None
    total = host_process = 0
    for field in ("initContainers", "containers"):  # VisitContainersWithPath; ephemeral ones are refused
        for i, c in enumerate(as_list(pod.get(field))):
            total += 1
            value = as_dict(as_dict(as_dict(c).get("securityContext")).get("windowsOptions")).get("hostProcess")
            value = value if isinstance(value, bool) else None
            if pod_value is not None and value is not None and value != pod_value:
                f.invalid(RULE, f"{path}.{field}[{i}].securityContext.windowsOptions.hostProcess", value,
                          f"pod hostProcess value must be identical if both are specified, was {str(pod_value).lower()}")
            if value is True or (value is None and pod_value is True):
                host_process += 1
    if host_process:
        if host_process != total:
            f.invalid(RULE, path, "", "If pod contains any hostProcess containers then all containers must be HostProcess containers")
        if pod.get("hostNetwork") is not True:
            f.invalid(RULE, child(path, "hostNetwork"), False, "hostNetwork must be true if pod contains any hostProcess containers")


def check_pod(pod: dict, path: str, f) -> None:
    """The pod's securityContext (and hostUsers' limits on host namespaces)."""
    if pod.get("shareProcessNamespace") is True and pod.get("hostPID") is True:
        f.invalid(RULE, child(child(path, "securityContext"), "shareProcessNamespace"), True,
                  "ShareProcessNamespace and HostPID cannot both be enabled")
    if pod.get("hostUsers") is False:
        # validateHostUsers: UserNamespacesHostNetworkSupport is alpha (off) in 1.36, so hostNetwork too
        for field, shown in (("hostNetwork", "hostNetwork"), ("hostPID", "HostPID"), ("hostIPC", "HostIPC")):
            if pod.get(field) is True:
                f.forbidden(RULE, child(path, shown), "when `hostUsers` is false")
        # block devices are neither idmapped nor chowned; the option that allows them only keeps an
        # existing Pod valid on update
        for field in ("initContainers", "containers", "ephemeralContainers"):
            for i, c in enumerate(as_list(pod.get(field))):
                if as_list(as_dict(c).get("volumeDevices")):
                    f.forbidden(RULE, f"{path}.{field}[{i}].volumeDevices", "when `hostUsers` is false")
    sc = pod.get("securityContext")
    if not isinstance(sc, dict):
        return
    where = child(path, "securityContext")
    _id(sc.get("fsGroup"), child(where, "fsGroup"), f)
    _id(sc.get("runAsUser"), child(where, "runAsUser"), f)
    _id(sc.get("runAsGroup"), child(where, "runAsGroup"), f)
    for g, gid in enumerate(as_list(sc.get("supplementalGroups"))):
        _id(gid, index(child(where, "supplementalGroups"), g), f)
    seen: set = set()
    for i, sysctl in enumerate(as_list(sc.get("sysctls"))):
        name = as_str(as_dict(sysctl).get("name")) or ""
        name_path = child(index(child(where, "sysctls"), i), "name")
        if not name:
            f.required(RULE, name_path)
        elif len(name) > 253 or not re.fullmatch(_SYSCTL, name):
            f.invalid(RULE, name_path, name, _SYSCTL_MSG)
        elif name in seen:
            f.duplicate(RULE, name_path, name)
        # ValidateHostSysctl: a sysctl of the net or IPC namespace cannot be set on a pod that shares
        # that namespace with the host
        kind = _sysctl_namespace(name)
        if kind == "net" and pod.get("hostNetwork") is True:
            f.invalid(RULE, name_path, name, "may not be specified when 'hostNetwork' is true")
        elif kind == "ipc" and pod.get("hostIPC") is True:
            f.invalid(RULE, name_path, name, "may not be specified when 'hostIPC' is true")
        seen.add(name)
    policy = sc.get("fsGroupChangePolicy")
    if isinstance(policy, str) and policy not in FS_GROUP_CHANGE:
        f.unsupported(RULE, child(where, "fsGroupChangePolicy"), policy, FS_GROUP_CHANGE)
    _seccomp(sc.get("seccompProfile"), child(where, "seccompProfile"), f)
    windows_options(sc.get("windowsOptions"), child(where, "windowsOptions"), f)
    _apparmor(sc.get("appArmorProfile"), child(where, "appArmorProfile"), f)
    policy = sc.get("supplementalGroupsPolicy")
    if isinstance(policy, str) and policy not in SUPPLEMENTAL_GROUPS_POLICIES:
        f.unsupported(RULE, child(where, "supplementalGroupsPolicy"), policy, SUPPLEMENTAL_GROUPS_POLICIES)
    policy = sc.get("seLinuxChangePolicy")
    if isinstance(policy, str) and policy not in SELINUX_CHANGE:
        f.unsupported(RULE, child(where, "seLinuxChangePolicy"), policy, SELINUX_CHANGE)
