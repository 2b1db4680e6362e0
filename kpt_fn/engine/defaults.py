"""The defaults the API server applies to TrainJobs and runtimes (trainer-semantics.md §1.2, §1.3).

In the cluster the controller only sees objects defaulted from the CRD structural schemas, and
several code paths rely on that (MPI, coscheduling and volcano dereference defaulted fields). Raw
YAML from Git has not been through the API server, so the engine defaults its private copies first.

The trees below list exactly the `default:` values of the v2.3.0 CRDs
(shared/upstream/trainer/manifests/base/crds); tests/test_engine_defaults.py checks them against
the CRD files. Structural defaulting fills a field only when it is absent (or null) and its parent
object is present; an explicitly written value, even "" or 0, is kept.
"""

from __future__ import annotations

import copy


class _Default:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"D({self.value!r})"


D = _Default
ITEMS = "[]"  # key of the subtree that applies to every element of a list

_ENV = {"valueFrom": {
    "configMapKeyRef": {"name": D("")},
    "secretKeyRef": {"name": D("")},
    "fileKeyRef": {"optional": D(False)},
}}
_PROBE = {"grpc": {"service": D("")}}
_CONTAINER = {
    "env": {ITEMS: _ENV},
    "envFrom": {ITEMS: {"configMapRef": {"name": D("")}, "secretRef": {"name": D("")}}},
    "ports": {ITEMS: {"protocol": D("TCP")}},
    "livenessProbe": _PROBE,
    "readinessProbe": _PROBE,
    "startupProbe": _PROBE,
}
_SECRET_REF = {"secretRef": {"name": D("")}}
_VOLUME = {
    "azureDisk": {"fsType": D("ext4"), "readOnly": D(False)},
    "cephfs": _SECRET_REF,
    "cinder": _SECRET_REF,
    "configMap": {"name": D("")},
    "csi": {"nodePublishSecretRef": {"name": D("")}},
    "flexVolume": _SECRET_REF,
    "iscsi": {"iscsiInterface": D("default"), "secretRef": {"name": D("")}},
    "projected": {"sources": {ITEMS: {"configMap": {"name": D("")}, "secret": {"name": D("")}}}},
    "rbd": {"keyring": D("/etc/ceph/keyring"), "pool": D("rbd"), "user": D("admin"),
            "secretRef": {"name": D("")}},
    "scaleIO": {"fsType": D("xfs"), "storageMode": D("ThinProvisioned"), "secretRef": {"name": D("")}},
    "storageos": _SECRET_REF,
}
_POD_SPEC = {
    "containers": {ITEMS: _CONTAINER},
    "initContainers": {ITEMS: _CONTAINER},
    "ephemeralContainers": {ITEMS: _CONTAINER},
    "imagePullSecrets": {ITEMS: {"name": D("")}},
    "volumes": {ITEMS: _VOLUME},
}

RUNTIME_DEFAULTS = {"spec": {
    "mlPolicy": {
        "mpi": {"numProcPerNode": D(1), "mpiImplementation": D("OpenMPI"),
                "sshAuthMountPath": D("/root/.ssh"), "runLauncherAsNode": D(False)},
        "flux": {"numProcPerNode": D(1)},
    },
    "podGroupPolicy": {
        "coscheduling": {"scheduleTimeoutSeconds": D(60)},
        "volcano": {"networkTopology": {"mode": D("hard"), "highestTierAllowed": D(1)}},
    },
    "template": {"spec": {
        "failurePolicy": {"restartStrategy": D("Recreate")},
        "volumeClaimPolicies": {ITEMS: {"retentionPolicy": {"whenDeleted": D("Delete")}}},
        "replicatedJobs": {ITEMS: {
            "groupName": D("default"),
            "replicas": D(1),
            "template": {"spec": {"template": {"spec": _POD_SPEC}}},
        }},
    }},
}}

# Only what the TrainJob CRD can carry inside a runtime patch (PodSpecPatch / ContainerPatch).
_PATCH_POD_SPEC = {
    "containers": {ITEMS: {"env": {ITEMS: _ENV}}},
    "initContainers": {ITEMS: {"env": {ITEMS: _ENV}}},
    "imagePullSecrets": {ITEMS: {"name": D("")}},
    "volumes": {ITEMS: _VOLUME},
}
_INITIALIZER = {"env": {ITEMS: _ENV}, "secretRef": {"name": D("")}}

TRAINJOB_DEFAULTS = {"spec": {
    "runtimeRef": {"apiGroup": D("trainer.kubeflow.org"), "kind": D("ClusterTrainingRuntime")},
    "suspend": D(False),
    "managedBy": D("trainer.kubeflow.org/trainjob-controller"),
    "initializer": {"dataset": _INITIALIZER, "model": _INITIALIZER},
    "trainer": {"env": {ITEMS: _ENV}},
    "runtimePatches": {ITEMS: {"trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": {ITEMS: {
        "template": {"spec": {"template": {"spec": _PATCH_POD_SPEC}}},
    }}}}}}},
}}


def apply_defaults(obj, tree) -> None:
    """Fill absent fields of `obj` in place from `tree`, descending only into present objects."""
    if isinstance(obj, list):
        for item in obj:
            apply_defaults(item, tree)
        return
    if not isinstance(obj, dict):
        return
    for key, sub in tree.items():
        if isinstance(sub, _Default):
            if obj.get(key) is None:
                obj[key] = copy.copy(sub.value)
            continue
        value = obj.get(key)
        if value is None:
            continue
        if ITEMS in sub:
            if isinstance(value, list):
                apply_defaults(value, sub[ITEMS])
        else:
            apply_defaults(value, sub)


_SCALARS = (str, int, float, bool, type(None))


def private_copy(value):
    """A deep copy of plain data (dicts, lists and scalars as parsed from YAML).

    Several times faster than copy.deepcopy, which keeps a memo of every object for the sake of
    shared and cyclic structure: parsed documents have no cycles, and sub-objects shared through YAML
    aliases are better copied apart anyway (upstream decodes every alias into a value of its own).
    Anything that is not plain data still goes through copy.deepcopy.
    """
    kind = type(value)
    if kind is dict:
        return {k: private_copy(v) for k, v in value.items()}
    if kind is list:
        return [private_copy(v) for v in value]
    if kind in _SCALARS:
        return value
    return copy.deepcopy(value)


def default_trainjob(trainjob: dict) -> dict:
    """A defaulted deep copy of the TrainJob (the input is not touched)."""
    out = private_copy(trainjob)
    apply_defaults(out, TRAINJOB_DEFAULTS)
    return out


def default_runtime(runtime: dict) -> dict:
    """A defaulted deep copy of a TrainingRuntime / ClusterTrainingRuntime."""
    out = private_copy(runtime)
    apply_defaults(out, RUNTIME_DEFAULTS)
    return out
