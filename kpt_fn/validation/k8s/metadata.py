"""The pod template's annotations that the API server reads (labels and annotation syntax are the
names family's).

Kubernetes v1.36 pkg/apis/core/validation/validation.go ValidatePodSpecificAnnotations (mirror pod,
pod deletion cost, seccomp and AppArmor annotations), ValidateSeccompProfile,
ValidateAppArmorProfileFormat, validateSeccompAnnotationsAndFields and
validateAppArmorAnnotationsAndFieldsMatchOnCreate. Upstream's paths for a template's annotations are
`<template>.annotations` (no `metadata`).
"""

from __future__ import annotations

from kpt_fn.apimachinery.field import child, key
from kpt_fn.validation.k8s import paths
from kpt_fn.validation.k8s.findings import as_dict, as_list

RULE = "k8s/pod-annotations"

MIRROR = "kubernetes.io/config.mirror"
DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_CONTAINER = "container.seccomp.security.alpha.kubernetes.io/"
APPARMOR_CONTAINER = "container.apparmor.security.beta.kubernetes.io/"
_INT32 = range(-(2**31), 2**31)


def _int32(text: str) -> bool:
    """strconv.ParseInt(text, 10, 32) succeeds."""
    body = text[1:] if text[:1] in "+-" else text
    # the length test first: Python refuses to convert thousands of digits (ValueError)
    return body.isdigit() and body.isascii() and len(body) <= 10 and int(text) in _INT32


def _seccomp(value: str, path: str, f) -> None:
    if value in ("runtime/default", "docker/default", "unconfined"):
        return
    if value.startswith("localhost/"):
        paths.local_descending(value[len("localhost/"):], path, RULE, f)
        return
    f.invalid(RULE, path, value, "must be a valid seccomp profile")


def _containers(pod: dict):
    for field in ("initContainers", "containers"):
        for i, c in enumerate(as_list(pod.get(field))):
            if isinstance(c, dict):
                yield field, i, c


def check_annotations(annotations, pod: dict, template_path: str, f) -> None:
    annotations = as_dict(annotations)
    if not annotations:
        return
    path = child(template_path, "annotations")
    if MIRROR in annotations and not pod.get("nodeName"):
        f.invalid(RULE, key(path, MIRROR), annotations[MIRROR], "must set spec.nodeName if mirror pod annotation is set")
    cost = annotations.get(DELETION_COST)
    if isinstance(cost, str) and not _int32(cost):
        f.invalid(RULE, key(path, DELETION_COST), cost, "must be a 32bit integer")
    names = {c.get("name") for _, _, c in _containers(pod) if isinstance(c.get("name"), str)}
    for k, v in annotations.items():
        if not isinstance(k, str) or not isinstance(v, str):
            continue
        if k == SECCOMP_POD or k.startswith(SECCOMP_CONTAINER):
            _seccomp(v, child(path, k), f)  # upstream uses Child here, not Key
        elif k.startswith(APPARMOR_CONTAINER):
            container = k[len(APPARMOR_CONTAINER):]
            if container not in names:
                f.invalid(RULE, key(path, k), container, "container not found")
            if v not in ("", "runtime/default", "unconfined") and not v.startswith("localhost/"):
                f.invalid(RULE, key(path, k), v, f"invalid AppArmor profile name: {v!r}".replace("'", '"'))
    _fields_match(annotations, pod, child(template_path, "spec"), f)


_SECCOMP_MATCH = {"Unconfined": ("unconfined",), "RuntimeDefault": ("runtime/default", "docker/default")}
_APPARMOR_MATCH = {"Unconfined": "unconfined", "RuntimeDefault": "runtime/default"}


def _seccomp_matches(annotation: str, profile: dict, path: str, f) -> None:
    kind = profile.get("type")
    if kind in _SECCOMP_MATCH:
        if annotation not in _SECCOMP_MATCH[kind]:
            f.forbidden(RULE, child(path, "type"), "seccomp type in annotation and field must match")
    elif kind == "Localhost":
        if not annotation.startswith("localhost/"):
            f.forbidden(RULE, child(path, "type"), "seccomp type in annotation and field must match")
        elif annotation[len("localhost/"):] != profile.get("localhostProfile"):
            f.forbidden(RULE, child(path, "localhostProfile"), "seccomp profile in annotation and field must match")


def _fields_match(annotations: dict, pod: dict, spec_path: str, f) -> None:
    """Where an annotation and the matching securityContext field are both set, they agree."""
    pod_sc = as_dict(pod.get("securityContext"))
    pod_seccomp = pod_sc.get("seccompProfile")
    if isinstance(pod_seccomp, dict) and isinstance(annotations.get(SECCOMP_POD), str):
        _seccomp_matches(annotations[SECCOMP_POD], pod_seccomp, f"{spec_path}.securityContext.seccompProfile", f)
    windows = as_dict(pod.get("os")).get("name") == "windows"
    for field, i, c in _containers(pod):
        sc = as_dict(c.get("securityContext"))
        where = f"{spec_path}.{field}[{i}].securityContext"
        seccomp = sc.get("seccompProfile")
        note = annotations.get(SECCOMP_CONTAINER + str(c.get("name")))
        if isinstance(seccomp, dict) and isinstance(note, str):
            _seccomp_matches(note, seccomp, f"{where}.seccompProfile", f)
        apparmor = sc.get("appArmorProfile") or pod_sc.get("appArmorProfile")
        note = annotations.get(APPARMOR_CONTAINER + str(c.get("name")))
        if windows or not isinstance(apparmor, dict) or not isinstance(note, str):
            continue
        kind, apparmor_path = apparmor.get("type"), f"{where}.appArmorProfile"
        if kind in _APPARMOR_MATCH and note != _APPARMOR_MATCH[kind]:
            f.forbidden(RULE, child(apparmor_path, "type"), "apparmor type in annotation and field must match")
        elif kind == "Localhost":
            if not note.startswith("localhost/"):
                f.forbidden(RULE, child(apparmor_path, "type"), "apparmor type in annotation and field must match")
            elif note[len("localhost/"):] != apparmor.get("localhostProfile"):
                f.forbidden(RULE, child(apparmor_path, "localhostProfile"), "apparmor profile in annotation and field must match")
