"""Container env and envFrom.

Kubernetes v1.36 pkg/apis/core/validation/validation.go ValidateEnv, validateEnvVarValueFrom,
validateObjectFieldSelector, validateContainerResourceFieldSelector, validateConfigMapKeySelector,
validateSecretKeySelector, ValidateEnvFrom; names from apimachinery v0.36
pkg/util/validation/validation.go IsRelaxedEnvVarName (the RelaxedEnvironmentVariableValidation gate
is GA and on since 1.34, so any printable ASCII but '=' is a valid name) and IsConfigMapKey.

In 1.36 an env var may also read a key of an env file (`fileKeyRef`, the EnvFiles gate, on by
default), so "no source" names five sources. The fileKeyRef text and checks were compared with a
recent validation.go that carries the EnvFiles code (validateEnvVarValueFrom's AllowEnvFilesValidation
branch, validateFileKeySelector, validateFileKeyRefVolumes).
"""

from __future__ import annotations


from kpt_fn import quantity
from kpt_fn.apimachinery import validation as utilvalidation
from kpt_fn.validation import names
from kpt_fn.apimachinery.field import child, index
from kpt_fn.validation.k8s import paths as local_paths
from kpt_fn.validation.k8s.findings import as_dict, as_list, as_str

RULE = "k8s/env"

RELAXED_NAME_MSG = "a valid environment variable name must consist only of printable ASCII characters other than '='"
NO_SOURCE = "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`"
SOURCES = ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef", "fileKeyRef")

# validEnvDownwardAPIFieldPathExpressions, in sets.List (sorted) order
ENV_FIELD_PATHS = ("metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName",
                   "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs")
# pkg/apis/core/pods ConvertDownwardAPIFieldLabel: the v1 field labels that convert at all
_CONVERTIBLE = frozenset(ENV_FIELD_PATHS) | {"metadata.annotations", "metadata.labels", "spec.restartPolicy",
                                              "spec.schedulerName", "status.phase"}
# The downward API's subscripted fields, `metadata.annotations['key']` and `metadata.labels['key']`:
# upstream's expression (metadata\.(?:annotations|labels))\['(.*)'\], read by _subscripted below
_SUBSCRIPTABLE = ("metadata.annotations", "metadata.labels")
RESOURCE_FIELDS = ("limits.cpu", "limits.ephemeral-storage", "limits.memory",
                   "requests.cpu", "requests.ephemeral-storage", "requests.memory")
_HUGEPAGE_FIELDS = ("requests.hugepages-", "limits.hugepages-")
_BYTE_DIVISORS = frozenset({"1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"})
_BYTE_DIVISORS_TEXT = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei"


# [ -<>-~]+ : printable ASCII (space included) but '=' (a set, not an expression compiled every run)
_RELAXED_NAME_CHARS = frozenset(chr(c) for c in range(0x20, 0x7F)) - {"="}


def relaxed_name_problems(value: str) -> list[str]:
    if not value:
        return ["environment variable name must be non-empty"]
    return [] if _RELAXED_NAME_CHARS.issuperset(value) else [RELAXED_NAME_MSG]


def _subscripted(field_path: str):
    r"""(field, key) of `field['key']` for a subscriptable field, else None: what upstream's
    expression (metadata\.(?:annotations|labels))\['(.*)'\] matches ('.' takes no line break)."""
    if not field_path.endswith("']") or "\n" in field_path:
        return None
    for field in _SUBSCRIPTABLE:
        start = len(field) + 2
        if field_path.startswith(field) and field_path[len(field):start] == "['" and len(field_path) >= start + 2:
            return field, field_path[start:-2]
    return None


def check_env(env, path: str, volumes: dict, f) -> None:
    for i, var in enumerate(as_list(env)):
        if not isinstance(var, dict):
            continue
        where = index(path, i)
        f.named(RULE, child(where, "name"), as_str(var.get("name")), relaxed_name_problems)
        source = var.get("valueFrom")
        if isinstance(source, dict):
            _value_from(var, source, child(where, "valueFrom"), volumes, f)


def _value_from(var: dict, source: dict, path: str, volumes: dict, f) -> None:
    count = 0
    for name in SOURCES:
        selector = source.get(name)
        if selector is None:
            continue
        count += 1
        selector = as_dict(selector)
        where = child(path, name)
        if name == "fieldRef":
            check_field_ref(selector, where, ENV_FIELD_PATHS, f)
        elif name == "resourceFieldRef":
            check_resource_field_ref(selector, where, False, f)
        elif name == "fileKeyRef":
            _file_key_ref(selector, where, volumes, f)
        else:
            _key_selector(selector, where, f)
    if count == 0:
        f.invalid(RULE, path, "", NO_SOURCE)
    elif var.get("value"):
        f.invalid(RULE, path, "", "may not be specified when `value` is not empty")
    elif count > 1:
        f.invalid(RULE, path, "", "may not have more than one field specified at a time")


def _key_selector(selector: dict, path: str, f) -> None:
    """configMapKeyRef / secretKeyRef: the object name is a DNS subdomain (even when empty), the
    key a config key."""
    name = selector.get("name", "")
    if isinstance(name, str):
        for msg in utilvalidation.is_dns1123_subdomain(name):
            f.invalid(RULE, child(path, "name"), name, msg)
    f.named(RULE, child(path, "key"), as_str(selector.get("key")), utilvalidation.is_config_map_key)


def _file_key_ref(selector: dict, path: str, volumes: dict, f) -> None:
    """validateFileKeySelector (key, then volumeName, then path: only backsteps are refused, an
    absolute path is allowed), then validateFileKeyRefVolumes: the volume must exist and be an
    emptyDir. Checked against a 1.36-era validation.go that has the EnvFiles code."""
    f.named(RULE, child(path, "key"), as_str(selector.get("key")), relaxed_name_problems)
    volume = as_str(selector.get("volumeName")) or ""
    f.named(RULE, child(path, "volumeName"), volume, utilvalidation.is_dns1123_label)
    file_path = as_str(selector.get("path"))
    if not file_path:
        f.required(RULE, child(path, "path"))
    else:
        local_paths.no_backsteps(file_path, child(path, "path"), RULE, f)
    # validateFileKeyRefVolumes runs over every fileKeyRef, an empty volumeName included
    if volume not in volumes:
        f.not_found(RULE, child(path, "volumeName"), volume)
    elif not _is_empty_dir(volumes[volume]):
        f.invalid(RULE, child(path, "volumeName"), volume, "referenced volume must be of type emptyDir")


def _is_empty_dir(volume) -> bool:
    """SetDefaults_Volume (pkg/apis/core/v1/defaults.go) makes a volume without a source an emptyDir."""
    if not isinstance(volume, dict):
        return False
    return "emptyDir" in volume or not set(volume) - {"name"}


def check_field_ref(selector: dict, path: str, allowed: tuple, f) -> None:
    """validateObjectFieldSelector; apiVersion is defaulted to v1 when absent."""
    version = selector.get("apiVersion", "v1") or "v1"
    field_path = as_str(selector.get("fieldPath"))
    if not field_path:
        f.required(RULE, child(path, "fieldPath"))
        return
    if version != "v1":
        f.invalid(RULE, child(path, "fieldPath"), field_path,
                  f"error converting fieldPath: unsupported pod version: {version}")
        return
    m = _subscripted(field_path)
    if m:
        label, subscript = m
        value = subscript.lower() if label == "metadata.annotations" else subscript
        for msg in utilvalidation.is_qualified_name(value):
            f.invalid(RULE, path, value, msg)
        return
    # pkg/apis/core/pods/helpers.go ConvertDownwardAPIFieldLabel: any other `x['y']` is refused as a
    # subscript, and the old v1 spelling `spec.host` converts to `spec.nodeName`
    if field_path.endswith("']") and "['" in field_path[:-2] and not field_path.startswith("['"):
        f.invalid(RULE, child(path, "fieldPath"), field_path,
                  f"error converting fieldPath: field label does not support subscript: {field_path}")
        return
    internal = "spec.nodeName" if field_path == "spec.host" else field_path
    if internal not in _CONVERTIBLE:
        f.invalid(RULE, child(path, "fieldPath"), field_path,
                  f"error converting fieldPath: field label not supported: {field_path}")
    elif internal not in allowed:
        f.unsupported(RULE, child(path, "fieldPath"), internal, allowed)


def check_resource_field_ref(selector: dict, path: str, volume: bool, f) -> None:
    resource = as_str(selector.get("resource"))
    if volume and not selector.get("containerName"):
        f.required(RULE, child(path, "containerName"))
    elif not resource:
        f.required(RULE, child(path, "resource"))
    elif resource not in RESOURCE_FIELDS and not resource.startswith(_HUGEPAGE_FIELDS):
        f.unsupported(RULE, child(path, "resource"), resource, RESOURCE_FIELDS)
    divisor = selector.get("divisor")
    if divisor is None or not resource:
        return
    try:
        q = quantity.parse(divisor)
    except (quantity.QuantityError, TypeError, ValueError):
        return
    if q.is_zero():
        return
    shown = quantity.canonical(q)
    where = child(path, "divisor")
    if resource in ("limits.cpu", "requests.cpu"):
        if shown not in ("1m", "1"):
            f.invalid(RULE, where, resource, "only divisor's values 1m and 1 are supported with the cpu resource")
    elif resource in ("limits.memory", "requests.memory"):
        if shown not in _BYTE_DIVISORS:
            f.invalid(RULE, where, resource, f"only divisor's values {_BYTE_DIVISORS_TEXT} are supported with the memory resource")
    elif resource in ("limits.ephemeral-storage", "requests.ephemeral-storage"):
        if shown not in _BYTE_DIVISORS:
            f.invalid(RULE, where, resource, f"only divisor's values {_BYTE_DIVISORS_TEXT} are supported with the local ephemeral storage resource")
    elif resource.startswith(_HUGEPAGE_FIELDS) and shown not in _BYTE_DIVISORS:
        f.invalid(RULE, where, resource, f"only divisor's values {_BYTE_DIVISORS_TEXT} are supported with the hugepages resource")


def check_env_from(env_from, path: str, f) -> None:
    for i, source in enumerate(as_list(env_from)):
        if not isinstance(source, dict):
            continue
        where = index(path, i)
        prefix = as_str(source.get("prefix"))
        if prefix:
            for msg in relaxed_name_problems(prefix):
                f.invalid(RULE, child(where, "prefix"), prefix, msg)
        count = 0
        for kind in ("configMapRef", "secretRef"):
            ref = source.get(kind)
            if ref is None:
                continue
            count += 1
            # ValidateConfigMapName / ValidateSecretName with prefix=true
            f.named(RULE, child(child(where, kind), "name"), as_str(as_dict(ref).get("name")),
                    lambda name: utilvalidation.is_dns1123_subdomain(names.mask_trailing_dash(name)))
        # upstream reports these two at `envFrom`, not at the entry
        if count == 0:
            f.invalid(RULE, path, "", "must specify one of: `configMapRef` or `secretRef`")
        elif count > 1:
            f.invalid(RULE, path, "", "may not have more than one field specified at a time")
