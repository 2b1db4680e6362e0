"""The defaults the API server applies to TrainJobs and runtimes (the selected release's CRDs' defaults: manifests/base/crds/trainer.kubeflow.org_*.yaml).

In the cluster the controller only sees objects defaulted from the CRD structural schemas, and
several code paths rely on that (MPI, coscheduling and volcano dereference defaulted fields). Raw
YAML from Git has not been through the API server, so the engine defaults its private copies first,
with the release bundle's trees (Bundle.defaults, kpt_fn.upstream.defaults).
"""

from __future__ import annotations

from kpt_fn import upstream
from kpt_fn.upstream.defaults import apply_defaults

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
    # Here, not at the top: `copy` (with weakref) is a noticeable part of a small run's start-up,
    # and parsed input never gets here.
    import copy

    return copy.deepcopy(value)


def default_trainjob(trainjob: dict, bundle: upstream.Bundle | None = None) -> dict:
    """A defaulted deep copy of the TrainJob (the input is not touched)."""
    out = private_copy(trainjob)
    apply_defaults(out, (bundle or upstream.bundle()).defaults("TrainJob"))
    return out


def default_runtime(runtime: dict, bundle: upstream.Bundle | None = None) -> dict:
    """A defaulted deep copy of a TrainingRuntime / ClusterTrainingRuntime."""
    out = private_copy(runtime)
    apply_defaults(out, (bundle or upstream.bundle()).defaults("TrainingRuntime"))
    return out
