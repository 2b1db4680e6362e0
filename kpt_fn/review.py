"""What a change does, for the reviewer of a pull request: a report of every TrainJob's expansion, and a
semantic diff of the expansions at two revisions.

Both read the Outcome the function itself produces (plain.expand: the same files, config and engine as
`render`), and count pods and requests through kpt_fn.workload, as the Kueue and policy checks do.
"""

from __future__ import annotations

import json
import os
import subprocess
import tarfile
import tempfile

from kpt_fn import quantity, workload
from kpt_fn.lifecycle import classify
from kpt_fn import resource as res
from kpt_fn.resource import dig

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
_GANG_KINDS = {"scheduling.x-k8s.io": "coscheduling", "scheduling.volcano.sh": "volcano"}


# --- report --------------------------------------------------------------------------------------


def _runtime_ref(trainjob: dict) -> str:
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
        "namespace": res.namespace(tj) or "",
        "name": res.name(tj),
        "file": res.file_path(tj) or "",
        "runtime": _runtime_ref(tj),
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


def report(outcome) -> dict:
    jobs = sorted((trainjob_summary(e) for e in outcome.rendered), key=lambda j: (j["namespace"], j["name"]))
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
    return {"trainJobs": jobs, "namespaces": dict(sorted(namespaces.items())),
            "errors": outcome.errors, "warnings": outcome.warnings}


def _cell(value) -> str:
    if value is None or value == [] or value == {}:
        return "–"
    if isinstance(value, dict):
        return ", ".join(f"{k}×{v}" for k, v in value.items())
    if isinstance(value, list):
        return "<br>".join(f"`{v}`" for v in value)
    return str(value).replace("|", "\\|")


def report_markdown(data: dict) -> str:
    lines = ["## TrainJobs", "",
             "| TrainJob | runtime | nodes × procs | pods | GPUs | CPU | memory | images | gang | queue | objects |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for j in data["trainJobs"]:
        name = f"{j['namespace']}/{j['name']}" if j["namespace"] else j["name"]
        if not j["rendered"]:
            name += " (not rendered)"
        lines.append("| " + " | ".join([
            f"**{name}**", f"`{j['runtime']}`", f"{j['nodes']} × {_cell(j['procsPerNode'])}", _cell(j["pods"]),
            str(j["gpus"]), j["cpu"], j["memory"], _cell(j["images"]), _cell(j["gang"]), _cell(j["queue"]),
            _cell(j["objects"])]) + " |")
    lines += ["", "## Namespaces", "", "| namespace | TrainJobs | pods | GPUs | CPU | memory |", "|---|---|---|---|---|---|"]
    for ns, t in data["namespaces"].items():
        lines.append(f"| {ns or '(none)'} | {t['trainJobs']} | {t['pods']} | {t['gpus']} | {t['cpu']} | {t['memory']} |")
    lines += ["", f"{data['errors']} error(s), {data['warnings']} warning(s)."]
    return "\n".join(lines) + "\n"


# --- diff ----------------------------------------------------------------------------------------


class SourceError(Exception):
    """OLD or NEW cannot be read."""


def materialize(spec: str, cwd: str, scratch: str) -> str:
    """A directory holding OLD or NEW: the directory itself, or the working directory's place in a git
    revision of its repository (extracted with git archive, no network, no worktree left behind)."""
    path = spec if os.path.isabs(spec) else os.path.join(cwd, spec)
    if os.path.isdir(path):
        return path
    try:
        top = subprocess.run(["git", "-C", cwd, "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True).stdout.strip()
        subprocess.run(["git", "-C", cwd, "rev-parse", "--verify", "--quiet", f"{spec}^{{commit}}"], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        raise SourceError(f"{spec!r} is neither a directory nor a git revision of the repository at {cwd}") from None
    dest = tempfile.mkdtemp(dir=scratch)
    archive = os.path.join(scratch, "rev.tar")
    subprocess.run(["git", "-C", top, "archive", "--format=tar", "-o", archive, spec], check=True, capture_output=True)
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")
    os.unlink(archive)
    return os.path.join(dest, os.path.relpath(os.path.realpath(cwd), os.path.realpath(top)))


def _key(obj: dict) -> str:
    ns = res.namespace(obj)
    return f"{obj.get('kind')} {ns + '/' if ns else ''}{res.name(obj)}"


def _strip(obj: dict) -> dict:
    return res.without_client_annotations(obj) if isinstance(obj, dict) else obj


def field_changes(old, new, path: str = "") -> list[tuple[str, object, object]]:
    """[(path, old, new)]: fields added (old None), removed (new None) or changed. Lists of named items
    are matched by name, so a reordering is not a change and an env var is named, not numbered."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for k in list(old) + [k for k in new if k not in old]:
            sub = f"{path}.{k}" if path else str(k)
            if k not in new:
                out.append((sub, old[k], None))
            elif k not in old:
                out.append((sub, None, new[k]))
            else:
                out += field_changes(old[k], new[k], sub)
        return out
    if isinstance(old, list) and isinstance(new, list):
        named = all(isinstance(x, dict) and "name" in x for x in old + new)
        if named and len({x["name"] for x in old}) == len(old) and len({x["name"] for x in new}) == len(new):
            return field_changes({x["name"]: x for x in old}, {x["name"]: x for x in new}, path)
        if len(old) == len(new):
            out = []
            for i, (a, b) in enumerate(zip(old, new)):
                out += field_changes(a, b, f"{path}[{i}]")
            return out
    return [] if old == new else [(path, old, new)]


def _runtimes(outcome) -> dict:
    return {_key(i): _strip(i) for i in outcome.items if isinstance(i, dict) and res.is_runtime(i)}


def diff(old_outcome, new_outcome) -> dict:
    def by_trainjob(outcome):
        return {f"{res.namespace(e.origin) or ''}/{res.name(e.origin)}".lstrip("/"): e for e in outcome.rendered}

    old_jobs, new_jobs = by_trainjob(old_outcome), by_trainjob(new_outcome)
    jobs = []
    for name in sorted(set(old_jobs) | set(new_jobs)):
        a, b = old_jobs.get(name), new_jobs.get(name)
        state = "added" if a is None else "removed" if b is None else None
        objs_a = {_key(o): _strip(o) for o in (a.objects if a else ()) if isinstance(o, dict)}
        objs_b = {_key(o): _strip(o) for o in (b.objects if b else ()) if isinstance(o, dict)}
        objects = []
        for key in sorted(set(objs_a) | set(objs_b)):
            if key not in objs_a:
                objects.append({"object": key, "change": "added"})
            elif key not in objs_b:
                objects.append({"object": key, "change": "removed"})
            else:
                fields = field_changes(objs_a[key], objs_b[key])
                if fields:
                    objects.append({"object": key, "change": "changed",
                                    "fields": [{"path": p, "old": o, "new": n} for p, o, n in fields]})
        objects = classify.annotate(objects, objs_a, objs_b)  # what each change does in the cluster
        if state or objects:
            entry = {"trainJob": name, "change": state or "changed", "objects": objects}
            if b is not None:
                entry["runtime"] = _runtime_ref(b.origin)
            jobs.append(entry)
    old_rt, new_rt = _runtimes(old_outcome), _runtimes(new_outcome)
    changed_jobs = {j["trainJob"] for j in jobs if j["change"] == "changed"}
    runtimes = []
    for key in sorted(set(old_rt) | set(new_rt)):
        if old_rt.get(key) == new_rt.get(key):
            continue
        kind, where = key.split(" ", 1)
        namespace, _, name = where.rpartition("/")
        users = sorted(n for n, e in new_jobs.items() if _runtime_ref(e.origin) == f"{kind}/{name}"
                       and (kind == res.CLUSTER_TRAINING_RUNTIME or (res.namespace(e.origin) or "") == namespace))
        runtimes.append({"runtime": key, "change": "added" if key not in old_rt else "removed" if key not in new_rt else "changed",
                         "trainJobs": len(users), "trainJobsChanged": sorted(set(users) & changed_jobs)})
    return {"trainJobs": jobs, "runtimes": runtimes,
            "summary": {**{k: sum(1 for j in jobs if j["change"] == k) for k in ("added", "removed", "changed")},
                        **classify.summary(jobs)}}


def _short(value) -> str:
    # A value on one line (a hostfile or script is JSON-quoted, its newlines escaped): the list stays a list.
    plain = isinstance(value, str) and "\n" not in value and "`" not in value
    text = value if plain else json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def diff_markdown(data: dict) -> str:
    s = data["summary"]
    lines = [f"## Rendered changes: {s['changed']} TrainJob(s) changed, {s['added']} added, {s['removed']} removed", ""]
    for rt in data["runtimes"]:
        lines.append(f"- runtime `{rt['runtime']}` {rt['change']}: used by {rt['trainJobs']} TrainJob(s), "
                     f"{len(rt['trainJobsChanged'])} existing one(s) render differently")
    if data["runtimes"]:
        lines.append("")
    lines += classify.markdown_summary(data)
    for j in data["trainJobs"]:
        lines.append(f"### {j['change']}: TrainJob {j['trainJob']}" + (f" (`{j['runtime']}`)" if j.get("runtime") else ""))
        for o in j["objects"]:
            if o["change"] != "changed":
                lines.append(f"- {o['change']}: {o['object']}")
                lines += classify.markdown(o)
                continue
            lines.append(f"- changed: {o['object']}")
            for f in o["fields"]:
                if f["old"] is None:
                    lines.append(f"  - `{f['path']}` added: `{_short(f['new'])}`")
                elif f["new"] is None:
                    lines.append(f"  - `{f['path']}` removed (was `{_short(f['old'])}`)")
                else:
                    lines.append(f"  - `{f['path']}`: `{_short(f['old'])}` → `{_short(f['new'])}`")
            lines += classify.markdown(o)
        lines.append("")
    if not data["trainJobs"] and not data["runtimes"]:
        lines.append("No rendered object changes.")
    return "\n".join(lines).rstrip("\n") + "\n"


def has_changes(data: dict) -> bool:
    return bool(data["trainJobs"] or data["runtimes"])


# --- the report beside the output (KRM mode) -------------------------------------------------------

REPORT_NAME = "expand-trainjobs-report"
REPORT_FILE = f"{REPORT_NAME}.yaml"
REPORT_MARKER = "expand-trainjobs.fn.kpt.dev/report"


def _report_object(data: dict, fmt: str) -> dict:
    key, text = ("report.json", json.dumps(data, indent=2, sort_keys=True) + "\n") if fmt == "json" \
        else ("report.md", report_markdown(data))
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": REPORT_NAME, "annotations": {res.LOCAL_CONFIG: "true", REPORT_MARKER: fmt}},
        "data": {key: text},
    }


def with_report(outcome, fmt: str) -> None:
    """Put the review report among `outcome.items` as a local-config ConfigMap (kpt writes it to
    expand-trainjobs-report.yaml at the package root; nothing applies it): in place of the report of
    an earlier run, or at the end. A ConfigMap of that name that is not a report of ours is left as
    it is, and is an error."""
    from kpt_fn import results as results_mod
    from kpt_fn.problems import ERROR

    report_cm = _report_object(report(outcome), fmt)
    for i, item in enumerate(outcome.items):
        if not (isinstance(item, dict) and item.get("kind") == "ConfigMap" and res.name(item) == REPORT_NAME
                and not res.namespace(item)):
            continue
        if REPORT_MARKER not in res.annotations(item):
            outcome.results.append(results_mod.about(
                item, f"{res.display(item)} is not a report of this function (no {REPORT_MARKER} annotation): "
                f"left as it is; rename it, or drop the `report` option", ERROR))
            return
        outcome.items[i] = res.with_annotations(report_cm, res.client_annotations(item))
        return
    # The file may hold the user's own objects: take the next free index (kpt refuses a taken one).
    index = str(max((res.file_index(i) + 1 for i in outcome.items if isinstance(i, dict) and res.file_path(i) == REPORT_FILE),
                    default=0))
    outcome.items.append(res.with_annotations(report_cm, {res.PATH: REPORT_FILE, res.INDEX: index,
                                                           res.LEGACY_PATH: REPORT_FILE, res.LEGACY_INDEX: index}))
