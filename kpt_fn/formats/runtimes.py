"""The writers of `runtimes`: the ClusterTrainingRuntimes a Trainer release ships, as an aligned table
(name, ML policies, replicated jobs, images; kpt_fn.formats.columns), as the YAML stream of the
runtimes themselves, or as JSON: the v1 List that `kubectl get -o json` prints for several objects. The data: {"release": "vX.Y.Z", "runtimes": [runtime, ...]}. The table is the
header and its rows only, as kubectl get prints one: which release it lists is a note on stderr
(kpt_fn.cli.modes.runtimes_mode), so that a script reading the table reads no line that is not a row."""

from __future__ import annotations

import json

from kpt_fn.formats.columns import aligned
from kpt_fn.yamlio import dump_all


def table(data: dict) -> str:
    rows = []
    for rt in data["runtimes"]:
        spec = rt.get("spec") or {}
        policy = ",".join(k for k in (spec.get("mlPolicy") or {}) if k != "numNodes") or ""
        jobs = (spec.get("template") or {}).get("spec", {}).get("replicatedJobs") or []
        images = sorted({c.get("image", "") for rj in jobs
                         for c in ((rj.get("template") or {}).get("spec", {}).get("template", {})
                                   .get("spec", {}).get("containers") or [])})
        rows.append([rt["metadata"]["name"], policy, ",".join(rj.get("name", "") for rj in jobs), " ".join(images)])
    return aligned(["NAME", "ML POLICY", "REPLICATED JOBS", "IMAGES"], rows)


def to_yaml(data: dict) -> str:
    return dump_all(data["runtimes"])


def to_json(data: dict) -> str:
    # kubectl get -o json wraps several objects in a v1 List whose metadata holds the list's (empty)
    # resourceVersion (kubectl v0.36.3 pkg/cmd/get/get.go:738-795, printGeneric), so a script reads
    # `.items[]` here as it reads kubectl's output; the runtimes are written whole, as `-o yaml` writes them.
    return json.dumps({"apiVersion": "v1", "items": data["runtimes"], "kind": "List",
                       "metadata": {"resourceVersion": ""}}, indent=2, ensure_ascii=False) + "\n"
