"""Upsert helpers and the user-env conversion the controller uses everywhere (upstream pkg/apply/apply.go at v2.3.0).

Every upsert walks the new items one at a time, replaces the first existing element that matches
*in place*, or appends. Elements are replaced, never mutated, so element dicts may be shared
between the PodSets and the template.
"""

from __future__ import annotations

from kpt_fn.resource import private_copy

_MISSING = object()


def _upsert(items: list, new_items, same) -> list:
    for new in new_items:
        for i, old in enumerate(items):
            if same(old, new):
                if old is not new and any(x is new for x in items):
                    # Upserting a list into itself (the JobSet builder writes back the template's own
                    # elements) can put one element at two places; the output must not alias it.
                    new = private_copy(new)
                items[i] = new
                break
        else:
            items.append(new)
    return items


def _same_name(a: dict, b: dict) -> bool:
    return a.get("name") == b.get("name")


def _same_mount_path(a: dict, b: dict) -> bool:
    return a.get("mountPath") == b.get("mountPath")


def _same_port(a: dict, b: dict) -> bool:
    # Two absent names compare equal upstream (pointer equality of nil), so an unnamed new port
    # replaces the first unnamed existing one (pkg/apply/apply.go byContainerPortOrName at v2.3.0).
    return a.get("containerPort") == b.get("containerPort") or a.get("name") == b.get("name")


def upsert_env_vars(envs: list, new_envs) -> list:
    return _upsert(envs, new_envs, _same_name)


def upsert_volumes(volumes: list, new_volumes) -> list:
    return _upsert(volumes, new_volumes, _same_name)


def upsert_volume_mounts(mounts: list, new_mounts) -> list:
    """Matched by mountPath, not by name."""
    return _upsert(mounts, new_mounts, _same_mount_path)


def upsert_ports(ports: list, new_ports) -> list:
    return _upsert(ports, new_ports, _same_port)


def _key_selector(ref: dict) -> dict:
    out = {"key": ref.get("key", ""), "name": ref.get("name", "")}
    if ref.get("optional") is not None:
        out["optional"] = ref["optional"]
    return out


def env_var(e: dict) -> dict:
    """A user corev1.EnvVar (TrainJob trainer/initializer env) in the form the controller applies.

    Without valueFrom the value is always emitted (even ""); with valueFrom the value is dropped
    and only fieldRef.fieldPath, resourceFieldRef (divisor always, "0" when unset),
    configMapKeyRef and secretKeyRef are copied. fileKeyRef is lost, leaving `valueFrom: {}`
    (pkg/apply/apply.go EnvVar at v2.3.0 copies no other source).
    """
    out = {"name": e.get("name", "")}
    src = e.get("valueFrom")
    if src is None:
        out["value"] = "" if e.get("value") is None else e["value"]
        return out
    value_from: dict = {}
    if (ref := src.get("fieldRef")) is not None:
        value_from["fieldRef"] = {"fieldPath": ref.get("fieldPath", "")}
    if (ref := src.get("resourceFieldRef")) is not None:
        divisor = ref.get("divisor")
        value_from["resourceFieldRef"] = {
            "containerName": ref.get("containerName", ""),
            "resource": ref.get("resource", ""),
            "divisor": "0" if divisor is None else divisor,
        }
    if (ref := src.get("configMapKeyRef")) is not None:
        value_from["configMapKeyRef"] = _key_selector(ref)
    if (ref := src.get("secretKeyRef")) is not None:
        value_from["secretKeyRef"] = _key_selector(ref)
    out["valueFrom"] = value_from
    return out


def env_vars(envs) -> list:
    return [env_var(e) for e in envs or ()]
