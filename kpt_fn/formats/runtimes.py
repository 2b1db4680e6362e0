"""The writers of `runtimes`: the ClusterTrainingRuntimes a Trainer release ships, as one line each
(name, ML policies, replicated jobs, images) or as the YAML stream of the runtimes themselves. The
data: {"release": "vX.Y.Z", "runtimes": [runtime, ...]}."""

from __future__ import annotations

from kpt_fn.formats.columns import aligned
from kpt_fn.yamlio import dump_all


def table(data: dict) -> str:
    rows = []
    for rt in data["runtimes"]:
        spec = rt.get("spec") or {}
        policy = ",".join(k for k in (spec.get("mlPolicy") or {}) if k != "numNodes") or "-"
        jobs = (spec.get("template") or {}).get("spec", {}).get("replicatedJobs") or []
        images = sorted({c.get("image", "") for rj in jobs
                         for c in ((rj.get("template") or {}).get("spec", {}).get("template", {})
                                   .get("spec", {}).get("containers") or [])})
        rows.append([rt["metadata"]["name"], policy, ",".join(rj.get("name", "") for rj in jobs), " ".join(images)])
    title = f"# the ClusterTrainingRuntimes Kubeflow Trainer {data['release']} ships\n"
    return title + aligned(["NAME", "ML POLICY", "REPLICATED JOBS", "IMAGES"], rows)


def to_yaml(data: dict) -> str:
    return dump_all(data["runtimes"])
