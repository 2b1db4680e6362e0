#!/usr/bin/env python3
"""Build kpt_fn/catalog/runtimes.json: the ClusterTrainingRuntimes that Trainer v2.3.0 ships.

Reads the base runtime manifests from a copy of upstream (default: ../shared/upstream/trainer) and
applies what upstream's own overlays do at install time (manifests/overlays/runtimes and
manifests/overlays/data-cache): pin the Kubeflow-built images to the release tag and label every
runtime `trainer.kubeflow.org/webhook-validation: disabled`. The output is our own JSON, sorted by
name, so that re-running the script reproduces it byte for byte.

    python scripts/gen_catalog.py [UPSTREAM_TRAINER_DIR]
"""

from __future__ import annotations

import json
import pathlib
import sys

import yaml

RELEASE_TAG = "v2.3.0"
# Images the overlays retag; others (pytorch, jax) already carry a tag in the base files.
RETAGGED_IMAGES = {
    "ghcr.io/kubeflow/trainer/torchtune-trainer",
    "ghcr.io/kubeflow/trainer/dataset-initializer",
    "ghcr.io/kubeflow/trainer/model-initializer",
    "ghcr.io/kubeflow/trainer/mlx-runtime",
    "ghcr.io/kubeflow/trainer/deepspeed-runtime",
    "ghcr.io/kubeflow/trainer/xgboost-runtime",
}
OVERLAY_LABELS = {"trainer.kubeflow.org/webhook-validation": "disabled"}

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "kpt_fn" / "catalog" / "runtimes.json"


def _retag(pod_spec: dict) -> None:
    for key in ("initContainers", "containers"):
        for c in pod_spec.get(key) or []:
            if c.get("image") in RETAGGED_IMAGES:
                c["image"] = f"{c['image']}:{RELEASE_TAG}"


def shipped_runtimes(upstream: pathlib.Path) -> list[dict]:
    base = upstream / "manifests" / "base" / "runtimes"
    out = []
    for path in sorted(base.rglob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        for doc in yaml.safe_load_all(path.read_text()):
            if not doc or doc.get("kind") != "ClusterTrainingRuntime":
                continue
            md = doc["metadata"]
            md["labels"] = {**(md.get("labels") or {}), **OVERLAY_LABELS}
            for rj in doc["spec"]["template"]["spec"]["replicatedJobs"]:
                _retag(rj["template"]["spec"]["template"]["spec"])
            out.append(doc)
    return sorted(out, key=lambda d: d["metadata"]["name"])


def main(argv: list[str]) -> int:
    upstream = pathlib.Path(argv[1]) if len(argv) > 1 else ROOT.parent / "shared" / "upstream" / "trainer"
    runtimes = shipped_runtimes(upstream)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(runtimes, indent=1, sort_keys=False) + "\n")
    print(f"wrote {len(runtimes)} runtimes to {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
