"""The runtime registry key of a TrainJob, shared by runtime resolution and the engine's admission.

Upstream keys its runtime registry by `<kind>.<apiGroup>` of `spec.runtimeRef` after the CRD
defaults (upstream pkg/runtime/core/registry.go at v2.3.0); only the two runtime kinds of trainer.kubeflow.org are
registered. This module imports only the release bundles (kpt_fn.upstream) so that kpt_fn.resolve
and kpt_fn.engine both read it without one depending on the other.
"""

from __future__ import annotations

from kpt_fn import upstream

API_GROUP = "trainer.kubeflow.org"
TRAINING_RUNTIME = "TrainingRuntime"
CLUSTER_TRAINING_RUNTIME = "ClusterTrainingRuntime"

SUPPORTED_RUNTIMES = (f"{TRAINING_RUNTIME}.{API_GROUP}", f"{CLUSTER_TRAINING_RUNTIME}.{API_GROUP}")


def runtime_ref(trainjob: dict) -> dict:
    spec = trainjob.get("spec") if isinstance(trainjob, dict) else None
    ref = spec.get("runtimeRef") if isinstance(spec, dict) else None
    return ref if isinstance(ref, dict) else {}


def _key(ref: dict) -> str:
    """`kind.apiGroup` of a (defaulted) runtimeRef; the kind alone when the group is empty."""
    kind = ref.get("kind") or ""
    group = ref.get("apiGroup") or ""
    return f"{kind}.{group}" if group else kind


def registry_key(trainjob: dict, bundle: upstream.Bundle) -> str:
    """The registry key of a TrainJob after the CRD defaults: structural defaulting fills an absent
    or null field only, so an explicit "" stays "" (and gives an unsupported key)."""
    ref = runtime_ref(trainjob)
    # The `default:` values of spec.runtimeRef in the release's TrainJob CRD.
    ref_defaults = bundle.runtime_ref_defaults()
    defaulted = {k: (v if ref.get(k) is None else ref[k]) for k, v in ref_defaults.items()}
    return _key(defaulted)


def registered_kind(key: str) -> str | None:
    """The runtime kind a supported registry key names, else None."""
    return key.split(".", 1)[0] if key in SUPPORTED_RUNTIMES else None
