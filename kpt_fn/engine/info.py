"""The Info model: what the runtime framework knows about one TrainJob while plugins run.

Mirrors upstream's pkg/runtime.Info. `obj_apply` is the (defaulted, patched) JobSet spec as a plain
dict that plugins and the JobSet builder mutate; PodSets hold the per-replicated-job projections that
plugins edit and that the JobSet builder copies back (see trainer-semantics.md §3.1, §4.10.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable


@dataclass
class Container:
    # Only these fields of a container are ever written back by the builder.
    name: str
    image: str | None = None
    command: list | None = None
    env: list = field(default_factory=list)
    ports: list = field(default_factory=list)
    volume_mounts: list = field(default_factory=list)


@dataclass
class PodSet:
    name: str
    ancestor: str | None
    count: int
    init_containers: list = field(default_factory=list)  # list[Container]
    containers: list = field(default_factory=list)  # list[Container]
    volumes: list = field(default_factory=list)  # list[dict]
    # Filled by the JobSet PodNetwork step; a callable so that counts changed later are honoured,
    # like upstream's lazy iterator.
    endpoints: Callable[[], Iterable[str]] | None = None
    single_pod_requests: dict = field(default_factory=dict)  # resource name -> Quantity


@dataclass
class Scheduler:
    pod_labels: dict = field(default_factory=dict)
    pod_annotations: dict | None = None


@dataclass
class RuntimePolicy:
    ml_policy_source: dict | None = None  # runtime spec.mlPolicy without numNodes; None if absent
    pod_group_policy: dict | None = None


@dataclass
class Info:
    labels: dict
    annotations: dict
    runtime_policy: RuntimePolicy
    scheduler: Scheduler
    obj_apply: dict  # JobSet spec (plain dict), mutated by plugins and the builder
    pod_sets: list  # list[PodSet], one per replicated job, same order

    def pod_set_by_ancestor(self, ancestor: str) -> PodSet | None:
        return next((ps for ps in self.pod_sets if ps.ancestor == ancestor), None)

    def pod_set_by_name(self, name: str) -> PodSet | None:
        return next((ps for ps in self.pod_sets if ps.name == name), None)
