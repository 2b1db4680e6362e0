"""The nine ClusterTrainingRuntimes Trainer v2.3.0 ships, read from ../shared/upstream for the tests.

An oracle independent of the function's built-in catalog (the bundle's runtimes.json, made by
`scripts/generate.py catalog`), which tests/behaviour/test_shipped_runtimes.py checks against it: the base manifests
with what upstream's install overlays do (manifests/overlays/runtimes, .../data-cache) — Kubeflow-built
images pinned to the release tag, webhook validation disabled by label.
"""

from __future__ import annotations

import copy
import functools

from support import upstream_data

from kpt_fn import yamlio

SHIPPED_DIR = upstream_data.TRAINER / "manifests" / "base" / "runtimes"
RELEASE_TAG = "v2.3.0"
# Trainer v2.2.1's copies (../shared/upstream/PROVENANCE.md); its overlay retags the same images and
# adds no webhook-validation label (manifests/overlays/runtimes/kustomization.yaml at v2.2.1).
OLDER = {"v2.2.1": upstream_data.UPSTREAM / "trainer-v2.2.1" / "manifests" / "base" / "runtimes"}
RETAGGED_IMAGES = (
    "ghcr.io/kubeflow/trainer/torchtune-trainer",
    "ghcr.io/kubeflow/trainer/dataset-initializer",
    "ghcr.io/kubeflow/trainer/model-initializer",
    "ghcr.io/kubeflow/trainer/mlx-runtime",
    "ghcr.io/kubeflow/trainer/deepspeed-runtime",
    "ghcr.io/kubeflow/trainer/xgboost-runtime",
)


def shipped_runtimes(release: str = RELEASE_TAG) -> dict:
    """name -> ClusterTrainingRuntime dict (a private copy) of a Trainer release, for tests marked
    `upstream` (tests/support/upstream_data.py: skipped or failed when ../shared is absent)."""
    upstream_data.require()
    return copy.deepcopy(_shipped_runtimes(release))


@functools.lru_cache(maxsize=None)
def _shipped_runtimes(release: str = RELEASE_TAG) -> dict:
    out = {}
    for path in sorted(OLDER.get(release, SHIPPED_DIR).rglob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        for doc in yamlio.load_all(path.read_text()):
            if not doc or doc.get("kind") != "ClusterTrainingRuntime":
                continue
            if release == RELEASE_TAG:
                doc["metadata"].setdefault("labels", {})["trainer.kubeflow.org/webhook-validation"] = "disabled"
            for rj in doc["spec"]["template"]["spec"]["replicatedJobs"]:
                pod = rj["template"]["spec"]["template"]["spec"]
                for c in pod.get("initContainers", []) + pod.get("containers", []):
                    if c.get("image") in RETAGGED_IMAGES:
                        c["image"] = f"{c['image']}:{release}"
            out[doc["metadata"]["name"]] = doc
    return out
