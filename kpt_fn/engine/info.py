"""The Info model: what the runtime framework knows about one TrainJob while plugins run.

Mirrors upstream's pkg/runtime.Info. `obj_apply` is the (defaulted, patched) JobSet spec as a plain
dict that plugins and the JobSet builder mutate; PodSets hold the per-replicated-job projections that
plugins edit and that the JobSet builder copies back (upstream pkg/runtime/runtime.go and pkg/runtime/framework/plugins/jobset/jobset.go at v2.3.0).

PodSet container lists are copies of the template lists (not aliases as in Go): plugins upsert into
them and the JobSet builder upserts them back into the template, which gives the same result
(pkg/runtime/runtime.go toPodSetContainer). Upserts replace list elements, they never mutate an
element dict in place.
"""

from __future__ import annotations

from kpt_fn.trainer_names import ANCESTOR_LABEL

# Annotations only (never evaluated): importing `typing` cost ~3 ms of every start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

# Plain classes, not dataclasses: creating a dataclass costs a noticeable part of a one-TrainJob run's
# start-up, and nothing compares or copies these field by field.


class _Plain:
    __slots__ = ()

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class Container(_Plain):
    # Only these fields of a container are ever written back by the builder.
    def __init__(self, name: str, image: str | None = None, command: list | None = None,
                 env: list | None = None, ports: list | None = None, volume_mounts: list | None = None):
        self.name = name
        self.image = image
        self.command = command
        self.env = [] if env is None else env
        self.ports = [] if ports is None else ports
        self.volume_mounts = [] if volume_mounts is None else volume_mounts


class PodSet(_Plain):
    def __init__(self, name: str, ancestor: str | None, count: int, init_containers: list | None = None,
                 containers: list | None = None, volumes: list | None = None,
                 network: tuple | None = None, single_pod_requests: dict | None = None):
        self.name = name
        self.ancestor = ancestor
        self.count = count
        self.init_containers = [] if init_containers is None else init_containers  # list[Container]
        self.containers = [] if containers is None else containers  # list[Container]
        self.volumes = [] if volumes is None else volumes  # list[dict]
        # Filled by the JobSet PodNetwork step: (TrainJob name, replicated job name, replicas,
        # subdomain), which endpoints() names the pods from. Plain data rather than a closure over
        # the pod set, which would make every Info a reference cycle only the cyclic collector frees.
        self.network = network
        # resource name -> Quantity
        self.single_pod_requests = {} if single_pod_requests is None else single_pod_requests

    def endpoints(self) -> Iterable[str]:
        """The pods' DNS names with the count as it is when asked (a later phase may change it), like
        upstream's lazy iterator; only a pod set the PodNetwork step has named has them."""
        tj, job, replicas, subdomain = self.network
        for r in range(replicas):
            for p in range(self.count):
                yield f"{tj}-{job}-{r}-{p}.{subdomain}"


class Scheduler(_Plain):
    def __init__(self, pod_labels: dict | None = None, pod_annotations: dict | None = None):
        self.pod_labels = {} if pod_labels is None else pod_labels
        self.pod_annotations = pod_annotations


class RuntimePolicy(_Plain):
    def __init__(self, ml_policy_source: dict | None = None, pod_group_policy: dict | None = None):
        self.ml_policy_source = ml_policy_source  # runtime spec.mlPolicy without numNodes; None if absent
        self.pod_group_policy = pod_group_policy


class Info(_Plain):
    def __init__(self, labels: dict, annotations: dict, runtime_policy: RuntimePolicy, scheduler: Scheduler,
                 obj_apply: dict, pod_sets: list, unpatched_spec: dict | None = None,
                 problems: list | None = None):
        self.labels = labels
        self.annotations = annotations
        self.runtime_policy = runtime_policy
        self.scheduler = scheduler
        self.obj_apply = obj_apply  # JobSet spec (plain dict), mutated by plugins and the builder
        self.pod_sets = pod_sets  # list[PodSet], one per replicated job, same order
        # The defaulted runtime JobSet spec before runtimePatches; admission checks patch targets
        # against it (plugins/jobset.py, runtime-patch-target). It shares sub-objects with
        # obj_apply, so it is only meaningful before the plugin phases run; never mutate it.
        self.unpatched_spec = unpatched_spec
        # Non-fatal findings of plugins during a render (warnings, infos).
        self.problems = [] if problems is None else problems

    def pod_set_by_ancestor(self, ancestor: str) -> PodSet | None:
        return next((ps for ps in self.pod_sets if ps.ancestor == ancestor), None)

    def pod_set_by_name(self, name: str) -> PodSet | None:
        return next((ps for ps in self.pod_sets if ps.name == name), None)

    def container_by_ancestor(self, ancestor: str, container_name: str) -> Container | None:
        """First regular container `container_name` of the first PodSet with that ancestor."""
        ps = self.pod_set_by_ancestor(ancestor)
        if ps is None:
            return None
        return next((c for c in ps.containers if c.name == container_name), None)

    def container_by_pod_set_name(self, pod_set_name: str, container_name: str) -> Container | None:
        """Regular containers first, then init containers (upstream FindContainerByPodSetName)."""
        ps = self.pod_set_by_name(pod_set_name)
        if ps is None:
            return None
        for c in ps.containers:
            if c.name == container_name:
                return c
        return next((c for c in ps.init_containers if c.name == container_name), None)

    @property
    def replicated_jobs(self) -> list:
        return self.obj_apply.get("replicatedJobs") or []


def extract_resource_per_node_from_runtime(info: Info) -> dict | None:
    """Resources of the trainer `node` container as the runtime (after the resourcesPerNode merge) has them.

    The first replicated job named `node` or carrying ancestor `trainer` that has a `node`
    container with a resources object wins; returns {"limits": {...}, "requests": {...}}.
    """
    for rj in info.replicated_jobs:
        labels = (((rj.get("template") or {}).get("metadata") or {}).get("labels")) or {}
        if rj.get("name") != "node" and labels.get(ANCESTOR_LABEL) != "trainer":
            continue
        for c in pod_spec_of(rj).get("containers") or ():
            # After the typed round-trip every container has a (possibly empty) resources
            # struct in Go, so presence of the container is what matters.
            if c.get("name") == "node":
                res = c.get("resources") or {}
                return {"limits": dict(res.get("limits") or {}), "requests": dict(res.get("requests") or {})}
    return None


def resources_per_node(info: Info, trainjob: dict) -> dict:
    """The TrainJob's resourcesPerNode as written if set (unmerged, a quirk), else the runtime's."""
    trainer = (trainjob.get("spec") or {}).get("trainer")
    if trainer is not None and trainer.get("resourcesPerNode") is not None:
        return trainer["resourcesPerNode"]
    return extract_resource_per_node_from_runtime(info) or {}




def ancestor_of(rj: dict) -> str | None:
    labels = (((rj.get("template") or {}).get("metadata") or {}).get("labels")) or {}
    return labels.get(ANCESTOR_LABEL)


def pod_spec_of(rj: dict) -> dict:
    """The pod spec of a replicated job, {} when any level is missing."""
    return ((((rj.get("template") or {}).get("spec") or {}).get("template") or {}).get("spec")) or {}
