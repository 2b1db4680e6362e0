"""The ObjectMeta / ConfigMap / Secret checks the API server runs on create (k8s.io/apimachinery v0.36
pkg/api/validation/objectmeta.go, pkg/apis/core/validation), with the name, label and key syntax of
kpt_fn.apimachinery.validation and apimachinery's exact messages.
"""

from __future__ import annotations

import base64
import binascii

from kpt_fn.problems import Problem, Rule
from kpt_fn.apimachinery.field import REQUIRED, TOO_LONG, body, child, index, key
from kpt_fn.apimachinery.validation import (byte_length, is_config_map_key, is_dns1123_label, is_dns1123_subdomain,
                                            is_label_value, is_qualified_name)

RULE_NAME = "names/metadata-name"
RULE_GENERATE_NAME = "names/metadata-generate-name"
RULE_NAMESPACE = "names/metadata-namespace"
RULE_LABELS = "names/labels"
RULE_ANNOTATIONS = "names/annotations"
RULE_FINALIZERS = "names/finalizers"
RULE_TEMPLATE_METADATA = "names/template-metadata"
RULE_DATA_KEYS = "names/data-keys"
RULE_SECRET_TYPE = "names/secret-type"

_META_KINDS = "TrainJob, TrainingRuntime, ClusterTrainingRuntime, JobSet, PodGroup, ConfigMap, Secret"
_TEMPLATE_KINDS = "TrainJob, TrainingRuntime, ClusterTrainingRuntime, JobSet"

RULES = [
    Rule(RULE_NAME, _META_KINDS, "metadata.name is set (or generateName) and is a DNS-1123 subdomain"),
    Rule(RULE_GENERATE_NAME, _META_KINDS, "metadata.generateName is a DNS-1123 subdomain prefix"),
    Rule(RULE_NAMESPACE, _META_KINDS, "metadata.namespace, when set on a namespaced kind, is a DNS-1123 label"),
    Rule(RULE_LABELS, _META_KINDS, "label keys are qualified names, label values valid label values"),
    Rule(RULE_ANNOTATIONS, _META_KINDS, "annotation keys are qualified names; annotations total at most 256 KiB"),
    Rule(RULE_FINALIZERS, _META_KINDS, "finalizers are qualified names"),
    Rule(RULE_TEMPLATE_METADATA, _TEMPLATE_KINDS,
         "labels and annotations of embedded Job/Pod/PVC template metadata have valid syntax"),
    Rule(RULE_DATA_KEYS, "ConfigMap, Secret",
         "data/binaryData keys are valid config keys, not in both maps; payload at most 1 MiB"),
    Rule(RULE_SECRET_TYPE, "Secret", "typed Secrets carry their required keys (e.g. ssh-privatekey for ssh-auth)"),
]

TOTAL_ANNOTATION_SIZE = 256 * 1024
MAX_DATA_SIZE = 1024 * 1024  # ConfigMap and Secret payload limit


def mask_trailing_dash(name: str) -> str:
    """generateName may end in '-': check it as if a character followed (Go's maskTrailingDash)."""
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


# ----------------------------------------------------------------------------------------------
# ObjectMeta

def check_label_map(labels, path: str, subject, rule: str = RULE_LABELS) -> list[Problem]:
    out = []
    if not isinstance(labels, dict):
        return out
    for k, v in labels.items():
        if not isinstance(k, str):
            continue
        p = key(path, k)
        out.extend(Problem(m, p, subject=subject, rule=rule) for m in is_qualified_name(k))
        if isinstance(v, str):
            out.extend(Problem(m, p, subject=subject, rule=rule) for m in is_label_value(v))
    return out


def check_annotation_map(annotations, path: str, subject, rule: str = RULE_ANNOTATIONS) -> list[Problem]:
    out = []
    if not isinstance(annotations, dict):
        return out
    total = 0
    for k, v in annotations.items():
        if not isinstance(k, str):
            continue
        out.extend(Problem(m, key(path, k), subject=subject, rule=rule) for m in is_qualified_name(k.lower()))
        total += byte_length(k) + (byte_length(v) if isinstance(v, str) else 0)
    if total > TOTAL_ANNOTATION_SIZE:
        out.append(Problem(body(TOO_LONG, detail=f"may not be more than {TOTAL_ANNOTATION_SIZE} bytes"),
                           path, subject=subject, rule=rule))
    return out


def check_metadata_maps(meta: dict, path: str, subject) -> list[Problem]:
    """Labels and annotations of an embedded (template) metadata object."""
    return (check_label_map(meta.get("labels"), child(path, "labels"), subject, RULE_TEMPLATE_METADATA)
            + check_annotation_map(meta.get("annotations"), child(path, "annotations"), subject,
                                   RULE_TEMPLATE_METADATA))


def check_object_meta(obj: dict, namespaced: bool, name_check=is_dns1123_subdomain) -> list[Problem]:
    """ValidateObjectMetaAccessor for a create, as far as it applies to a manifest in Git.

    A missing namespace is not reported: in a kpt/kustomize pipeline the namespace is often set
    later, and kubectl fills it from the context. For cluster-scoped kinds the API server clears a
    namespace instead of rejecting it.
    """
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        meta = {}
    out = []
    generate_name = meta.get("generateName")
    if isinstance(generate_name, str) and generate_name:
        out.extend(Problem(m, "metadata.generateName", subject=obj, rule=RULE_GENERATE_NAME)
                   for m in name_check(mask_trailing_dash(generate_name)))
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        if not isinstance(generate_name, str) or not generate_name:
            out.append(Problem(body(REQUIRED, detail="name or generateName is required"), "metadata.name",
                               subject=obj, rule=RULE_NAME))
    else:
        out.extend(Problem(m, "metadata.name", subject=obj, rule=RULE_NAME) for m in name_check(name))
    namespace = meta.get("namespace")
    if namespaced and isinstance(namespace, str) and namespace:
        out.extend(Problem(m, "metadata.namespace", subject=obj, rule=RULE_NAMESPACE)
                   for m in is_dns1123_label(namespace))
    out.extend(check_label_map(meta.get("labels"), "metadata.labels", obj))
    out.extend(check_annotation_map(meta.get("annotations"), "metadata.annotations", obj))
    finalizers = meta.get("finalizers")
    if isinstance(finalizers, list):
        for i, f in enumerate(finalizers):
            if isinstance(f, str):
                out.extend(Problem(m, index("metadata.finalizers", i), subject=obj, rule=RULE_FINALIZERS)
                           for m in is_qualified_name(f))
    return out


# ----------------------------------------------------------------------------------------------
# ConfigMap and Secret payloads

def _data_keys(mapping, path: str, subject) -> list[Problem]:
    out = []
    if isinstance(mapping, dict):
        for k in mapping:
            if isinstance(k, str):
                out.extend(Problem(m, key(path, k), subject=subject, rule=RULE_DATA_KEYS)
                           for m in is_config_map_key(k))
    return out


_B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def base64_error(value: str) -> str | None:
    """The API server decodes []byte fields with padded standard base64; Go's error names the offset."""
    body_len = len(value.rstrip("="))
    for i, ch in enumerate(value):
        if ch not in _B64_CHARS and not (ch == "=" and i >= body_len):
            return f"illegal base64 data at input byte {i}"
    if len(value) % 4 or len(value) - body_len > 2:
        return f"illegal base64 data at input byte {len(value) - len(value) % 4 if len(value) % 4 else body_len}"
    return None


def _base64_values(mapping, path: str, subject) -> list[Problem]:
    out = []
    for k, v in mapping.items():
        if isinstance(v, str):
            err = base64_error(v)
            if err:
                out.append(Problem(err, key(path, k), subject=subject, rule=RULE_DATA_KEYS))
    return out


def _decoded_len(value) -> int:
    if not isinstance(value, str):
        return 0
    try:
        return len(base64.b64decode(value, validate=False))
    except (binascii.Error, ValueError):
        return len(value)


def check_configmap(obj: dict) -> list[Problem]:
    data = obj.get("data") if isinstance(obj.get("data"), dict) else {}
    binary = obj.get("binaryData") if isinstance(obj.get("binaryData"), dict) else {}
    out = _data_keys(data, "data", obj) + _data_keys(binary, "binaryData", obj)
    out += _base64_values(binary, "binaryData", obj)
    for k in data:
        if k in binary:
            out.append(Problem("duplicate of key present in binaryData", key("data", k), subject=obj,
                               rule=RULE_DATA_KEYS))
    size = sum(byte_length(v) for v in data.values() if isinstance(v, str)) + sum(
        _decoded_len(v) for v in binary.values())
    if size > MAX_DATA_SIZE:
        out.append(Problem(body(TOO_LONG, detail=f"may not be more than {MAX_DATA_SIZE} bytes"), "",
                           subject=obj, rule=RULE_DATA_KEYS))
    return out


def check_secret(obj: dict) -> list[Problem]:
    data = obj.get("data") if isinstance(obj.get("data"), dict) else {}
    string_data = obj.get("stringData") if isinstance(obj.get("stringData"), dict) else {}
    # The API server merges stringData into data before validating.
    out = _data_keys(data, "data", obj) + _data_keys(
        {k: v for k, v in string_data.items() if k not in data}, "data", obj)
    out += _base64_values(data, "data", obj)
    sizes = {k: _decoded_len(v) for k, v in data.items()}
    sizes.update({k: byte_length(v) for k, v in string_data.items() if isinstance(v, str)})
    if sum(sizes.values()) > MAX_DATA_SIZE:
        out.append(Problem(body(TOO_LONG, detail=f"may not be more than {MAX_DATA_SIZE} bytes"), "data",
                           subject=obj, rule=RULE_DATA_KEYS))
    stype = obj.get("type")
    present = set(data) | set(string_data)
    required = {
        "kubernetes.io/ssh-auth": ("ssh-privatekey",),
        "kubernetes.io/tls": ("tls.crt", "tls.key"),
        "kubernetes.io/dockerconfigjson": (".dockerconfigjson",),
        "kubernetes.io/dockercfg": (".dockercfg",),
    }.get(stype, ())
    for k in required:
        if k not in present or (stype == "kubernetes.io/ssh-auth" and sizes.get(k, 0) == 0):
            out.append(Problem(body(REQUIRED), key("data", k), subject=obj, rule=RULE_SECRET_TYPE))
            if stype != "kubernetes.io/tls":
                break
    if stype == "kubernetes.io/basic-auth" and not ({"username", "password"} & present):
        for k in ("username", "password"):
            out.append(Problem(body(REQUIRED), key("data", k), subject=obj, rule=RULE_SECRET_TYPE))
    return out

