"""Items of a ResourceList as plain dicts: identity, file location and the annotations clients own."""

from __future__ import annotations

TRAINER_GROUP = "trainer.kubeflow.org"
TRAINER_API_VERSION = "trainer.kubeflow.org/v1alpha1"
TRAINJOB = "TrainJob"
TRAINING_RUNTIME = "TrainingRuntime"
CLUSTER_TRAINING_RUNTIME = "ClusterTrainingRuntime"
RUNTIME_KINDS = (TRAINING_RUNTIME, CLUSTER_TRAINING_RUNTIME)

PATH = "internal.config.kubernetes.io/path"
INDEX = "internal.config.kubernetes.io/index"
LEGACY_PATH = "config.kubernetes.io/path"
LEGACY_INDEX = "config.kubernetes.io/index"
LOCAL_CONFIG = "config.kubernetes.io/local-config"
# Annotations that clients put on an item to track where it came from (file, position, comment ids,
# kustomize's identity and origin). They belong to the item they were put on: never copied to another
# object, and dropped from plain output. Annotations a user writes for a client to act on
# (config.kubernetes.io/depends-on, apply-time-mutation, local-config) are not among them.
CLIENT_ANNOTATION_PREFIXES = ("internal.config.kubernetes.io/",)
CLIENT_ANNOTATION_KEYS = frozenset({
    LEGACY_PATH,
    LEGACY_INDEX,
    "config.kubernetes.io/id",
    "config.k8s.io/id",
    "config.kubernetes.io/origin",
    "config.kubernetes.io/transformations",
    "kustomize.config.k8s.io/id",
    "kustomize.config.k8s.io/behavior",
    "kustomize.config.k8s.io/needs-hash",
})


def api_group(obj: dict) -> str:
    api_version = obj.get("apiVersion")
    if not isinstance(api_version, str) or "/" not in api_version:
        return ""
    return api_version.split("/", 1)[0]


def metadata(obj: dict) -> dict:
    md = obj.get("metadata")
    return md if isinstance(md, dict) else {}


def name(obj: dict):
    return metadata(obj).get("name")


def namespace(obj: dict):
    return metadata(obj).get("namespace")


def annotations(obj: dict) -> dict:
    ann = metadata(obj).get("annotations")
    return ann if isinstance(ann, dict) else {}


def kind(obj: dict):
    return obj.get("kind")


def is_trainer_kind(obj: dict, kinds) -> bool:
    return obj.get("kind") in kinds and api_group(obj) in (TRAINER_GROUP, "kubeflow.org")


def is_trainjob(obj: dict) -> bool:
    return is_trainer_kind(obj, (TRAINJOB,))


def is_runtime(obj: dict) -> bool:
    return is_trainer_kind(obj, RUNTIME_KINDS)


def is_local_config(obj: dict) -> bool:
    return str(annotations(obj).get(LOCAL_CONFIG, "")).lower() == "true"


def file_path(obj: dict):
    ann = annotations(obj)
    for key in (PATH, LEGACY_PATH):
        value = ann.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def file_index(obj: dict) -> int:
    ann = annotations(obj)
    raw = ann.get(INDEX, ann.get(LEGACY_INDEX, 0))
    try:
        return int(raw)
    except (TypeError, ValueError, OverflowError):
        return 0


def identity(obj: dict) -> tuple:
    """What makes two objects the same object in a cluster: apiVersion group, kind, namespace, name.

    Always hashable: a kind, namespace or name that is not a string (hostile or half-edited input)
    counts as absent, so such an item can never be mistaken for a generated object.
    """
    kind, ns, nm = obj.get("kind"), namespace(obj), name(obj)
    return (
        api_group(obj),
        kind if isinstance(kind, str) else None,
        ns if isinstance(ns, str) else "",
        nm if isinstance(nm, str) else None,
    )


def resource_ref(obj: dict) -> dict:
    ref = {
        "apiVersion": str(obj.get("apiVersion") or ""),
        "kind": str(obj.get("kind") or ""),
        "name": str(name(obj) or ""),
    }
    ns = namespace(obj)
    if ns:
        ref["namespace"] = str(ns)
    return ref


def named(kind, ns, obj_name) -> str:
    """`Kind namespace/name` (`Kind name` without a namespace): the one way the package names an
    object in a message, a report, a diff or a finding; `Kind` alone for an object without a name (a
    functionConfig without metadata), not `Kind ` with a stray space before what follows."""
    who = f"{ns + '/' if ns else ''}{obj_name if obj_name is not None else ''}"
    return f"{kind} {who}" if who else f"{kind}"


def display(obj: dict) -> str:
    return named(obj.get("kind"), namespace(obj), name(obj))


def _is_client_key(key) -> bool:
    return isinstance(key, str) and (key in CLIENT_ANNOTATION_KEYS or key.startswith(CLIENT_ANNOTATION_PREFIXES))


def client_annotations(obj: dict) -> dict:
    return {k: v for k, v in annotations(obj).items() if _is_client_key(k)}


def without_client_annotations(obj: dict) -> dict:
    """A shallow copy of obj whose metadata has no client-owned annotations (and no emptied map)."""
    ann = annotations(obj)
    if not any(_is_client_key(k) for k in ann):
        return obj
    kept = {k: v for k, v in ann.items() if not _is_client_key(k)}
    md = dict(metadata(obj))
    if kept:
        md["annotations"] = kept
    else:
        md.pop("annotations", None)
    out = dict(obj)
    out["metadata"] = md
    return out


def with_annotations(obj: dict, extra: dict) -> dict:
    """A shallow copy of obj with `extra` annotations merged into its metadata."""
    md = dict(metadata(obj))
    md["annotations"] = {**(md.get("annotations") or {}), **extra}
    out = dict(obj)
    out["metadata"] = md
    return out


def without_nulls(value):
    """`value` without the null values of its maps, at any depth, in new containers (the input is
    never changed nor shared): what the API server stores of an object (it prunes nulls) and what a
    typed Go value omits. A null list item stays (Go decodes it as a zero value)."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def dig(obj, *path):
    """obj[path[0]][path[1]]..., or None where a step is missing or not a mapping."""
    for step in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(step)
    return obj


_PLAIN_SCALARS = (str, int, float, bool, type(None))


def private_copy(value):
    """A deep copy of plain data (dicts, lists and scalars as parsed from YAML): the package's one
    deep copy, for the engine's private copies and the conversion's, update checks' and
    check-generated's alike.

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
    if kind in _PLAIN_SCALARS:
        return value
    # Here, not at the top: `copy` (with weakref) is a noticeable part of a small run's start-up,
    # and parsed input never gets here.
    import copy

    return copy.deepcopy(value)
