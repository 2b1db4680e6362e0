"""The defaults the API server applies to TrainJobs and runtimes (the selected release's CRDs' defaults: manifests/base/crds/trainer.kubeflow.org_*.yaml).

In the cluster the controller only sees objects defaulted from the CRD structural schemas, and
several code paths rely on that (MPI, coscheduling and volcano dereference defaulted fields). Raw
YAML from Git has not been through the API server, so the engine defaults its private copies first,
with the release bundle's trees (Bundle.defaults, kpt_fn.upstream.defaults).
"""

from __future__ import annotations

from kpt_fn import upstream
from kpt_fn.resource import private_copy
from kpt_fn.upstream.defaults import apply_defaults

def default_trainjob(trainjob: dict, bundle: upstream.Bundle) -> dict:
    """A defaulted deep copy of the TrainJob (the input is not touched)."""
    out = private_copy(trainjob)
    apply_defaults(out, bundle.defaults("TrainJob"))
    return out


def default_runtime(runtime: dict, bundle: upstream.Bundle) -> dict:
    """A defaulted deep copy of a TrainingRuntime / ClusterTrainingRuntime."""
    out = private_copy(runtime)
    apply_defaults(out, bundle.defaults("TrainingRuntime"))
    return out
