"""`scripts/generate.py catalog`: runtimes.json of a release bundle, the ClusterTrainingRuntimes the
release ships.

Reads the base runtime manifests from the release's upstream copy (manifests/base/runtimes) and
applies what upstream's own overlays do at install time (manifests/overlays/runtimes and
manifests/overlays/data-cache): pin the Kubeflow-built images to the release tag and, where the
release's overlay does so, label every runtime `trainer.kubeflow.org/webhook-validation: disabled`.
The output is our own JSON, sorted by name, so that re-running reproduces it byte for byte.
"""

from __future__ import annotations

import json

import yaml

from generators.releases import local

PER_RELEASE = True

# Images the overlays retag; others (pytorch, jax) already carry a tag in the base files.
RETAGGED_IMAGES = {
    "ghcr.io/kubeflow/trainer/torchtune-trainer",
    "ghcr.io/kubeflow/trainer/dataset-initializer",
    "ghcr.io/kubeflow/trainer/model-initializer",
    "ghcr.io/kubeflow/trainer/mlx-runtime",
    "ghcr.io/kubeflow/trainer/deepspeed-runtime",
    "ghcr.io/kubeflow/trainer/xgboost-runtime",
}
# The labels each release's runtime overlay adds (manifests/overlays/runtimes/kustomization.yaml; v2.2.1's
# adds none).
OVERLAY_LABELS = {
    "v2.3.0": {"trainer.kubeflow.org/webhook-validation": "disabled"},
}
RUNTIMES = "manifests/base/runtimes"


def _retag(pod_spec: dict, tag: str) -> None:
    for key in ("initContainers", "containers"):
        for c in pod_spec.get(key) or []:
            if c.get("image") in RETAGGED_IMAGES:
                c["image"] = f"{c['image']}:{tag}"


def shipped_runtimes(ctx) -> list[dict]:
    release = ctx.release.name
    base = ctx.upstream / local(ctx.release, "trainer", RUNTIMES)
    out = []
    for path in sorted(base.rglob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        for doc in yaml.safe_load_all(ctx.read(str(path.relative_to(ctx.upstream)))):
            if not doc or doc.get("kind") != "ClusterTrainingRuntime":
                continue
            md = doc["metadata"]
            labels = OVERLAY_LABELS.get(release, {})
            if labels:
                md["labels"] = {**(md.get("labels") or {}), **labels}
            for rj in doc["spec"]["template"]["spec"]["replicatedJobs"]:
                _retag(rj["template"]["spec"]["template"]["spec"], release)
            out.append(doc)
    return sorted(out, key=lambda d: d["metadata"]["name"])


def build(ctx) -> dict[str, str]:
    doc = {"generated": ctx.marker, "runtimes": shipped_runtimes(ctx)}
    return {ctx.output("runtimes.json"): json.dumps(doc, indent=1, sort_keys=False) + "\n"}
