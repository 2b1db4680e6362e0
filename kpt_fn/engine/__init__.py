"""The expansion engine: one TrainJob plus its runtime in, the controller's objects out.

Contract used by the rest of the function (kpt_fn.function):

    expand(trainjob, runtime, options) -> Expansion
        trainjob: a TrainJob dict in trainer.kubeflow.org/v1alpha1 form (legacy shapes are converted
                  by kpt_fn.legacy before this), as parsed from YAML, NOT defaulted; never mutated.
        runtime:  the TrainingRuntime / ClusterTrainingRuntime dict it references, NOT defaulted;
                  never mutated.
        Expansion.objects: the generated objects, plain dicts, in emit order (Secrets, ConfigMaps,
                  PodGroups, JobSet), with metadata.name/namespace set and no ownerReferences.
        Expansion.problems: Problems (kpt_fn.problems); paths relative to the TrainJob unless
                  Problem.subject says otherwise. When any problem is an error, objects is empty.

    admission(trainjob, runtime, options) -> list[Problem]
        The checks the Trainer v2.3.0 TrainJob admission webhook runs (registry key, runtime plugins'
        CustomValidation), without generating anything.

This stub renders a minimal JobSet until the real engine lands.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from kpt_fn.problems import Problem


@dataclass(frozen=True)
class EngineOptions:
    pass


@dataclass
class Expansion:
    objects: list = field(default_factory=list)
    problems: list = field(default_factory=list)


def expand(trainjob: dict, runtime: dict, options: EngineOptions | None = None) -> Expansion:
    md = trainjob.get("metadata") or {}
    spec = copy.deepcopy(((runtime.get("spec") or {}).get("template") or {}).get("spec") or {})
    jobset = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": md.get("name"), "namespace": md.get("namespace")},
        "spec": spec,
    }
    return Expansion(objects=[jobset])


def admission(trainjob: dict, runtime: dict, options: EngineOptions | None = None) -> list[Problem]:
    return []
