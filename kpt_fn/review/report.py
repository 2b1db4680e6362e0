"""The review report's data: one summary per TrainJob (runtime, nodes, pods, GPUs, requests, images,
gang, queue, objects, status, findings) and totals per namespace, from the Outcome the function
itself produces (plain.expand: the same files, config and engine as `render`). Pods and requests are
counted through kpt_fn.workload, as the Kueue and policy checks do. The writers of the report
(Markdown for a pull request, JSON, the KRM `report:` ConfigMap) are in kpt_fn/formats/.
"""

from __future__ import annotations

from kpt_fn import quantity, workload
from kpt_fn import resource as res
from kpt_fn.profiles.kueue_names import QUEUE_LABEL
from kpt_fn.resource import dig
from kpt_fn.review.findings import findings, status

_GANG_KINDS = {"scheduling.x-k8s.io": "coscheduling", "scheduling.volcano.sh": "volcano"}


def runtime_ref(trainjob: dict) -> str:
    ref = dig(trainjob, "spec", "runtimeRef") or {}
    return f"{ref.get('kind') or res.CLUSTER_TRAINING_RUNTIME}/{ref.get('name')}"


def _procs_per_node(trainjob: dict, runtime: dict | None, jobsets: list):
    for js in jobsets:
        for ps in workload.pod_sets(js):
            for _, _, c in ps.containers():
                for env in c.get("env") or ():
                    if env.get("name") == "PET_NPROC_PER_NODE" and "value" in env:
                        return env["value"]
    value = dig(trainjob, "spec", "trainer", "numProcPerNode")
    if value is not None:
        return value
    for policy in ("torch", "mpi"):
        value = dig(runtime, "spec", "mlPolicy", policy, "numProcPerNode")
        if value is not None:
            return value
    return None


def trainjob_summary(entry) -> dict:
    """One TrainJob's line of the report, from its Rendered entry."""
    tj = entry.origin if isinstance(entry.origin, dict) else {}
    objects = [o for o in entry.objects if isinstance(o, dict)]
    jobsets = [o for o in objects if o.get("kind") == "JobSet"]
    totals: dict = {}
    pods: dict = {}
    images: set = set()
    gpus = nodes = 0
    is_node = workload.training_node_test(entry.runtime)
    for js in jobsets:
        for k, v in workload.totals(js).items():
            totals[k] = totals.get(k, quantity.Quantity()) + v
        for ps in workload.pod_sets(js):
            pods[ps.name] = ps.count
            gpus += workload.gpus(ps.requests()) * ps.count
            nodes += ps.count if is_node(ps) else 0
            images.update(c.get("image") for _, _, c in ps.containers() if c.get("image"))
    gang = sorted({_GANG_KINDS.get(res.api_group(o), res.api_group(o)) for o in objects if o.get("kind") == "PodGroup"})
    queue = next((dig(js, "metadata", "labels", QUEUE_LABEL) for js in jobsets
                  if dig(js, "metadata", "labels", QUEUE_LABEL)), None) \
        or dig(tj, "metadata", "labels", QUEUE_LABEL)
    return {
        "namespace": entry.namespace or res.namespace(tj) or "",
        "name": res.name(tj),
        "file": res.file_path(tj) or "",
        "runtime": runtime_ref(tj),
        "rendered": bool(objects),
        "nodes": nodes,
        "procsPerNode": _procs_per_node(tj, entry.runtime, jobsets),
        "pods": pods,
        "gpus": gpus,
        "cpu": quantity.canonical(totals["cpu"]) if "cpu" in totals else "0",
        "memory": quantity.canonical(totals["memory"]) if "memory" in totals else "0",
        "images": sorted(images),
        "gang": gang[0] if gang else None,
        "queue": queue,
        "objects": [f"{o.get('kind')}/{res.name(o)}" for o in objects],
    }


def report(outcome, root: str | None = None) -> dict:
    """The report's data. `root`: the directory the files were read from (for the findings' lines)."""
    per_job, general = findings(outcome, root)
    jobs = []
    for entry in outcome.rendered:
        summary = trainjob_summary(entry)
        summary["findings"] = per_job.get(id(entry), [])
        summary["status"] = status(summary["rendered"], summary["findings"])
        jobs.append(summary)
    jobs.sort(key=lambda j: (j["namespace"], j["name"]))
    return {"trainJobs": jobs, "namespaces": namespace_totals(jobs), "findings": general,
            "errors": outcome.errors, "warnings": outcome.warnings}


def namespace_totals(jobs: list) -> dict:
    """{namespace: TrainJobs, pods, GPUs, CPU, memory} of TrainJob summaries, sorted by namespace
    (one app's, or several apps' together: a namespace's quota is shared by whatever lands in it)."""
    namespaces: dict = {}
    for j in jobs:
        ns = namespaces.setdefault(j["namespace"], {"trainJobs": 0, "pods": 0, "gpus": 0, "cpu": quantity.Quantity(), "memory": quantity.Quantity()})
        ns["trainJobs"] += 1
        ns["pods"] += sum(j["pods"].values())
        ns["gpus"] += j["gpus"]
        ns["cpu"] += quantity.parse(j["cpu"])
        ns["memory"] += quantity.parse(j["memory"])
    for ns in namespaces.values():
        ns["cpu"], ns["memory"] = quantity.canonical(ns["cpu"]), quantity.canonical(ns["memory"])
    return dict(sorted(namespaces.items()))
