"""What a change does, for the reviewer of a pull request: a report of every TrainJob's expansion, and a
semantic diff of the expansions at two revisions (docs/review.md).

Both read the Outcome the function itself produces (plain.expand: the same files, config and engine as
`render`), and count pods and requests through kpt_fn.workload, as the Kueue and policy checks do.
The parts, in the order data flows:

- findings: each error and warning of the run as plain data (rule, severity, message, object,
  file:line, field, waiver), grouped by the TrainJob it is about;
- report: one summary per TrainJob (with its findings), totals per namespace;
- diff: each side read as a directory or from git's objects alone (kpt_fn.gitrev), expanded, and
  compared object by object and field by field; Secret data is masked before anything is compared;
- Markdown: both as a pull-request comment, every value from the repository made inert by
  kpt_fn.markdown, a summary first, per-TrainJob details collapsed, cut to a size with counts.

The commands `report` and `diff` (kpt_fn.cli.modes) read and render each side and hand the Outcomes
here; this module never runs the function itself.
"""

from __future__ import annotations

import json
import os
import tempfile

from kpt_fn import markdown as md
from kpt_fn import lines, quantity, upstream, workload
from kpt_fn.lifecycle import classify
from kpt_fn import resource as res
from kpt_fn.problems import ERROR, WARNING
from kpt_fn.results import without_file
from kpt_fn.resource import dig

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
_GANG_KINDS = {"scheduling.x-k8s.io": "coscheduling", "scheduling.volcano.sh": "volcano"}
# A GitHub comment holds 65,536 characters: the Markdown outputs stop short of that by default.
DEFAULT_MAX_CHARS = 60_000
# kpt_fn.policy.WAIVER_PREFIX (tests/unit/test_review.py checks they are the same; policy is not imported
# for a constant).
WAIVER_PREFIX = "waive.expand-trainjobs.kpt.dev/"
# Most fields listed per changed object, and characters per value shown, in Markdown.
FIELDS_SHOWN = 50
VALUE_CHARS = 80


# --- findings --------------------------------------------------------------------------------------


def _object(ref) -> str:
    if not ref:
        return ""
    ns = ref.get("namespace")
    return f"{ref.get('kind')} {ns + '/' if ns else ''}{ref.get('name')}"


def finding(r, trainjob: dict | None = None) -> dict:
    """One result as plain data (its line set by kpt_fn.lines.locate). A waived policy violation
    names the waiver and its reason."""
    out = {"severity": r.severity, "rule": r.rule, "message": without_file(r), "object": _object(r.resource),
           "file": r.file, "line": getattr(r, "lineno", 0) or None, "field": r.field}
    if r.rule.startswith("policy/") and r.severity == WARNING and isinstance(trainjob, dict):
        annotation = WAIVER_PREFIX + r.rule[len("policy/"):]
        reason = res.annotations(trainjob).get(annotation)
        if isinstance(reason, str) and reason.strip():
            out["waiver"] = {"annotation": annotation, "reason": reason.strip()}
    return out


def _shown(r) -> bool:
    return r.severity in (ERROR, WARNING)


def findings(outcome, root: str | None) -> tuple[dict, list]:
    """({id(Rendered entry): [finding]}, [findings about no single TrainJob]): errors and warnings."""
    # The line of each finding's field in its file (the documents composed once for all of them).
    documents = lines.locate([r for r in outcome.results if _shown(r)], root) if root is not None else None
    per_job, seen = {}, set()
    for entry in outcome.rendered:
        own = [r for r in entry.results if _shown(r)]
        if root is not None:
            lines.locate(own, root, documents)  # merged per-Secret results are not among outcome.results
        seen.update(id(r) for r in own)
        origin = entry.origin if isinstance(entry.origin, dict) else None
        per_job[id(entry)] = [finding(r, origin) for r in own]
    general = [finding(r) for r in outcome.results if _shown(r) and id(r) not in seen]
    return per_job, general


def _counts(found: list) -> dict:
    return {"errors": sum(1 for f in found if f["severity"] == ERROR),
            "warnings": sum(1 for f in found if f["severity"] == WARNING)}


def _status(rendered: bool, found: list) -> str:
    return "rendered" if rendered else "failed" if _counts(found)["errors"] else "not rendered"


# --- report ----------------------------------------------------------------------------------------

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




def report(outcome, root: str | None = None) -> dict:
    """The report's data. `root`: the directory the files were read from (for the findings' lines)."""
    per_job, general = findings(outcome, root)
    jobs = []
    for entry in outcome.rendered:
        summary = trainjob_summary(entry)
        summary["findings"] = per_job.get(id(entry), [])
        summary["status"] = _status(summary["rendered"], summary["findings"])
        jobs.append(summary)
    jobs.sort(key=lambda j: (j["namespace"], j["name"]))
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
    return {"trainJobs": jobs, "namespaces": dict(sorted(namespaces.items())), "findings": general,
            "errors": outcome.errors, "warnings": outcome.warnings}


# --- Markdown --------------------------------------------------------------------------------------


def _list_cell(values) -> str:
    return "<br>".join(md.code(v, in_table=True) for v in values) if values else "–"


def _pods_cell(pods: dict) -> str:
    return ", ".join(f"{md.text(k)}×{n}" for k, n in pods.items()) if pods else "–"


def _where(f: dict) -> str:
    if not f["file"]:
        return "–"
    return md.code(f"{f['file']}:{f['line']}" if f["line"] else f["file"], in_table=True)


def findings_table(found: list) -> list:
    """The findings as a table: severity, rule, object, file:line, field, message (with the waiver)."""
    rows = []
    for f in found:
        message = md.text(md.shorten(f["message"], 1000))
        waiver = f.get("waiver")
        if waiver:
            # policy's message quotes the reason already: the annotation is what the table adds.
            reason = "" if waiver["reason"] in f["message"] else f": {md.text(waiver['reason'])}"
            message += f" (waived by {md.code(waiver['annotation'], in_table=True)}{reason})"
        rows.append([f["severity"], md.code(f["rule"], in_table=True) if f["rule"] else "–",
                     md.text(f["object"]) or "–", _where(f), md.code(f["field"], in_table=True) if f["field"] else "–", message])
    return md.table(["severity", "rule", "object", "file:line", "field", "message"], rows)


def _counted(c: dict) -> str:
    return f"{c['errors']} error(s), {c['warnings']} warning(s)"


def _trainjob_title(j: dict) -> str:
    return f"{j['namespace']}/{j['name']}" if j["namespace"] else str(j["name"])


def _trainjob_block(j: dict) -> list:
    c = _counts(j["findings"])
    state = {"rendered": "", "failed": " (not rendered: it has errors)", "not rendered": " (not rendered)"}[j["status"]]
    first_error = next((f["message"] for f in j["findings"] if f["severity"] == ERROR), None)
    summary = (f"<b>{md.in_html(_trainjob_title(j))}</b>{state}: {md.in_html(j['runtime'])}, "
               f"{j['nodes']} node(s), {j['gpus']} GPU(s); {_counted(c)}")
    if first_error:
        summary += f" — {md.in_html(md.shorten(first_error, 200))}"
    body = md.table(["runtime", "nodes × procs", "pods", "GPUs", "CPU", "memory", "images", "gang", "queue", "objects", "file"], [[
        md.code(j["runtime"], in_table=True), f"{j['nodes']} × {md.text(j['procsPerNode']) if j['procsPerNode'] is not None else '–'}",
        _pods_cell(j["pods"]), str(j["gpus"]), md.text(j["cpu"]), md.text(j["memory"]), _list_cell(j["images"]),
        md.text(j["gang"]) if j["gang"] else "–", md.code(j["queue"], in_table=True) if j["queue"] else "–",
        _list_cell(j["objects"]), md.code(j["file"], in_table=True) if j["file"] else "–"]])
    if j["findings"]:
        body += ["", *findings_table(j["findings"])]
    return md.details(summary, body, open_=bool(c["errors"]))


_CUT_NOTE_CHARS = 400  # room kept for the line that counts what was cut


def _cut_note(max_chars: int, omitted: list, what: str) -> str:
    errors = sum(c["errors"] for _, c in omitted)
    warnings = sum(c["warnings"] for _, c in omitted)
    return (f"\n**Cut to {max_chars} characters: {len(omitted)} more {what} not shown ({errors} error(s), "
            f"{warnings} warning(s) among them).** The `--format json` output has everything; `--max-chars` "
            "sets the size.\n")


def _fit(head: list, blocks: list, max_chars: int, what: str) -> str:
    """`head`, then as many `blocks` [(lines, counts)] as fit in `max_chars` characters, then a line
    counting the blocks left out and their errors and warnings. A head too long by itself is cut
    by lines."""
    out, left = [], max_chars - _CUT_NOTE_CHARS
    for line in head:
        if len(line) + 1 > left:
            out.append("\n**Cut: the summary alone is longer than the size allowed.**\n")
            return "".join(out) + _cut_note(max_chars, blocks, what)
        out.append(line + "\n")
        left -= len(line) + 1
    left += _CUT_NOTE_CHARS
    for i, (block_lines, _) in enumerate(blocks):
        piece = "\n".join(block_lines) + "\n"
        reserve = _CUT_NOTE_CHARS if i + 1 < len(blocks) else 0
        if len(piece) + reserve > left:
            out.append(_cut_note(max_chars, blocks[i:], what))
            break
        out.append(piece)
        left -= len(piece)
    # One final newline: a text ending in a blank line is a `|+` block in YAML (the KRM report).
    return "".join(out).rstrip("\n") + "\n"


def report_markdown(data: dict, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    """The report as a pull-request comment: counts, namespaces and the findings about no single
    TrainJob first, then one collapsed section per TrainJob (those with errors first, open)."""
    jobs = data["trainJobs"]
    rendered = sum(1 for j in jobs if j["status"] == "rendered")
    failed = sum(1 for j in jobs if j["status"] == "failed")
    head = [f"## expand-trainjobs report: {len(jobs)} TrainJob(s), {data['errors']} error(s), {data['warnings']} warning(s)",
            "", f"{rendered} rendered, {failed} failed, {len(jobs) - rendered - failed} not rendered.", ""]
    if data["namespaces"]:
        head += md.table(["namespace", "TrainJobs", "pods", "GPUs", "CPU", "memory"], [
            [md.text(ns) if ns else "(none)", str(t["trainJobs"]), str(t["pods"]), str(t["gpus"]), md.text(t["cpu"]), md.text(t["memory"])]
            for ns, t in data["namespaces"].items()]) + [""]
    if data["findings"]:
        head += ["### Findings not about one TrainJob", "", *findings_table(data["findings"]), ""]
    if jobs:
        head += ["### TrainJobs", ""]
    order = sorted(jobs, key=lambda j: (-_counts(j["findings"])["errors"], -_counts(j["findings"])["warnings"]))
    blocks = [(_trainjob_block(j), _counts(j["findings"])) for j in order]
    return _fit(head, blocks, max_chars, "TrainJob(s)")


# --- diff ------------------------------------------------------------------------------------------


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


# What kubectl diff and Argo CD show for Secret data: that a value changed, never the value.
MASKED, MASKED_BEFORE, MASKED_AFTER = "***", "*** (before)", "*** (after)"
_SECRET_FIELDS = ("data", "stringData")


def _secret(obj) -> bool:
    return isinstance(obj, dict) and obj.get("kind") == "Secret" and res.api_group(obj) == ""


def _masked(obj, other, changed_mark: str):
    if not _secret(obj):
        return obj
    obj = dict(obj)
    for field in _SECRET_FIELDS:
        values = obj.get(field)
        if values is None:
            continue
        if not isinstance(values, dict):
            obj[field] = MASKED
            continue
        others = other.get(field) if _secret(other) else None
        others = others if isinstance(others, dict) else {}
        obj[field] = {k: changed_mark if k in others and others[k] != v else MASKED for k, v in values.items()}
    return obj


def mask_secrets(old: dict | None, new: dict | None) -> tuple:
    """The two sides of one object with every value of a Secret's data and stringData replaced: the
    same mark on both sides when the value is the same, `*** (before)` and `*** (after)` when it
    changed (kubectl diff's marks). Other kinds are returned as they are."""
    return _masked(old, new, MASKED_BEFORE), _masked(new, old, MASKED_AFTER)


def _object_change(key: str, old: dict | None, new: dict | None) -> dict | None:
    """One object's entry of the diff (None when it did not change). The place for anything more to
    say about one object's change (e.g. whether the cluster would take it as an update)."""
    old, new = mask_secrets(old, new)
    if old is None:
        return {"object": key, "change": "added"}
    if new is None:
        return {"object": key, "change": "removed"}
    fields = field_changes(old, new)
    if not fields:
        return None
    return {"object": key, "change": "changed", "fields": [{"path": p, "old": o, "new": n} for p, o, n in fields]}


def diff(old_outcome, new_outcome, old_root: str | None = None, new_root: str | None = None) -> dict:
    """What changes between two expansions: per TrainJob, its objects added, removed and changed
    field by field (and its findings at NEW); per runtime that changed, how many TrainJobs use it and
    which of them render differently. A TrainJob that NEW cannot render is `failed`, with its reason,
    not `removed`."""
    def by_trainjob(outcome):
        return {f"{res.namespace(e.origin) or ''}/{res.name(e.origin)}".lstrip("/"): e for e in outcome.rendered}

    old_jobs, new_jobs = by_trainjob(old_outcome), by_trainjob(new_outcome)
    # The JobSet release each render's Trainer release pairs with decides what the cluster refuses.
    bundles = (upstream.bundle(old_outcome.config.trainerVersion), upstream.bundle(new_outcome.config.trainerVersion))
    new_findings, general = findings(new_outcome, new_root)
    jobs = []
    for name in sorted(set(old_jobs) | set(new_jobs)):
        a, b = old_jobs.get(name), new_jobs.get(name)
        found = new_findings.get(id(b), []) if b is not None else []
        failed = b is not None and not b.objects and _counts(found)["errors"] > 0
        state = "failed" if failed else "added" if a is None else "removed" if b is None else None
        objs_a = {_key(o): _strip(o) for o in (a.objects if a else ()) if isinstance(o, dict)}
        objs_b = {_key(o): _strip(o) for o in (b.objects if b else ()) if isinstance(o, dict)}
        objects = []
        if not failed:
            for key in sorted(set(objs_a) | set(objs_b)):
                change = _object_change(key, objs_a.get(key), objs_b.get(key))
                if change is not None:
                    objects.append(change)
            objects = classify.annotate(objects, objs_a, objs_b, bundles)  # what each change does in the cluster
        if state or objects:
            entry = {"trainJob": name, "change": state or "changed", "objects": objects, "findings": found}
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
    return {"trainJobs": jobs, "runtimes": runtimes, "findings": general,
            "errors": new_outcome.errors, "warnings": new_outcome.warnings,
            "summary": {**{k: sum(1 for j in jobs if j["change"] == k) for k in ("added", "removed", "changed", "failed")},
                        **classify.summary(jobs)}}


def _short(value) -> str:
    # A value on one line (a hostfile or script is JSON-quoted, its newlines escaped): the list stays a list.
    plain = isinstance(value, str) and "\n" not in value
    text = value if plain else json.dumps(value, sort_keys=True, ensure_ascii=False)
    return md.shorten(text, VALUE_CHARS)


def _first_changed_line(old, new) -> tuple | None:
    """(number, old line, new line) of the first line two texts (a script, a hostfile) differ in,
    None unless both are strings and one has several lines: their first characters say nothing."""
    if not (isinstance(old, str) and isinstance(new, str) and ("\n" in old or "\n" in new)):
        return None
    a, b = old.split("\n"), new.split("\n")
    n = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return n + 1, a[n] if n < len(a) else "", b[n] if n < len(b) else ""


def _object_lines(o: dict) -> list:
    if o["change"] != "changed":
        return [f"- {o['change']}: {md.text(o['object'])}", *classify.markdown(o)]
    out = [f"- changed: {md.text(o['object'])}"]
    for f in o["fields"][:FIELDS_SHOWN]:
        path = md.code(f["path"])
        if f["old"] is None:
            out.append(f"  - {path} added: {md.code(_short(f['new']))}")
        elif f["new"] is None:
            out.append(f"  - {path} removed (was {md.code(_short(f['old']))})")
        elif (lines := _first_changed_line(f["old"], f["new"])) is not None:
            number, was, now = lines
            out.append(f"  - {path} line {number}: {md.code(_short(was))} → {md.code(_short(now))}")
        else:
            out.append(f"  - {path}: {md.code(_short(f['old']))} → {md.code(_short(f['new']))}")
    if len(o["fields"]) > FIELDS_SHOWN:
        out.append(f"  - … and {len(o['fields']) - FIELDS_SHOWN} more field(s) (see `--format json`)")
    return out + classify.markdown(o)


def _diff_block(j: dict) -> list:
    c = _counts(j["findings"])
    first_error = next((f["message"] for f in j["findings"] if f["severity"] == ERROR), None)
    summary = f"{j['change']}: TrainJob <b>{md.in_html(j['trainJob'])}</b>"
    if j.get("runtime"):
        summary += f" ({md.in_html(j['runtime'])})"
    summary += f": {len(j['objects'])} object(s)" + (f"; {_counted(c)}" if c["errors"] or c["warnings"] else "")
    if first_error:
        summary += f" — {md.in_html(md.shorten(first_error, 200))}"
    refused = any(o.get("effect") == classify.REFUSED for o in j["objects"])
    if refused:
        summary += " — <b>refused by the cluster</b> on an existing JobSet"
    body = [line for o in j["objects"] for line in _object_lines(o)]
    if j["findings"]:
        body += ["", *findings_table(j["findings"])]
    return md.details(summary, body or ["(no object)"], open_=j["change"] == "failed" or refused)


def diff_markdown(data: dict, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    s = data["summary"]
    head = [f"## expand-trainjobs diff: {s['changed']} TrainJob(s) changed, {s['added']} added, {s['removed']} removed"
            + (f", {s['failed']} failed" if s.get("failed") else ""), "",
            f"At the new revision: {data['errors']} error(s), {data['warnings']} warning(s).", ""]
    for rt in data["runtimes"]:
        head.append(f"- runtime {md.code(rt['runtime'])} {rt['change']}: used by {rt['trainJobs']} TrainJob(s), "
                    f"{len(rt['trainJobsChanged'])} existing one(s) render differently")
    if data["runtimes"]:
        head.append("")
    head += classify.markdown_summary(data)
    if data["findings"]:
        head += ["### Findings not about one TrainJob", "", *findings_table(data["findings"]), ""]
    if not data["trainJobs"] and not data["runtimes"]:
        head.append("No rendered object changes.")
    order = sorted(data["trainJobs"], key=lambda j: j["change"] != "failed")  # stable: by name otherwise
    return _fit(head, [(_diff_block(j), _counts(j["findings"])) for j in order], max_chars, "TrainJob(s)")


def has_changes(data: dict) -> bool:
    return bool(data["trainJobs"] or data["runtimes"])



# --- the commands ----------------------------------------------------------------------------------


class SourceError(Exception):
    """OLD or NEW cannot be read (the message says why, for the user)."""


def materialize(spec: str, cwd: str, scratch: str, env: dict, max_bytes: int | None = None) -> tuple:
    """(directory, environment, notes) to render OLD or NEW with: a directory as it is, or the app's
    files at a git revision of the repository the working directory is in, read from git's objects
    alone into a new directory under `scratch`. A name that is both is an error: which was meant?

    At a revision, the operator's extra roots (EXPAND_TRAINJOBS_EXTRA_ROOTS, e.g. a monorepo's shared
    runtimes) that lie in the repository are read at that revision too, laid out as in the repository
    so that the app's relative references reach them: a runtime changed between OLD and NEW must show
    in the diff, not be read twice from today's working tree. Roots outside the repository are read as
    they are now, and a note says so. `env`: the environment the command line passes in."""
    from kpt_fn import gitrev, sources
    from kpt_fn.yamlio import DEFAULT_LIMITS

    path = spec if os.path.isabs(spec) else os.path.join(cwd, spec)
    is_dir = os.path.isdir(path)
    try:
        repo = gitrev.repository(cwd, env)
        commit = gitrev.resolve(repo, spec) if repo is not None and not os.path.isabs(spec) else None
        if commit is not None and is_dir:
            raise SourceError(f"{spec!r} is both a directory and a git revision: write ./{spec} for the directory, "
                              f"or {spec}^{{commit}} for the revision")
        if is_dir:
            return path, env, []
        if commit is None:
            raise SourceError(f"{spec!r} is neither a directory nor a git revision of the repository at {cwd}")
        limit = max_bytes or DEFAULT_LIMITS.max_bytes
        base = tempfile.mkdtemp(dir=scratch)
        top = os.path.realpath(repo.top)
        inside, outside = _split_roots(sources.extra_roots_from_env(env), top)
        for prefix in _outermost([repo.prefix, *inside.values()]):
            if prefix == repo.prefix or gitrev.has_directory(repo, commit, prefix):
                gitrev.extract(repo, commit, spec, _under(base, prefix), limit, prefix)
        for prefix in [repo.prefix, *inside.values()]:  # a root not in that commit, or with no YAML in it, is empty
            os.makedirs(_under(base, prefix), exist_ok=True)
        roots = [_under(base, prefix) for prefix in inside.values()] + outside
        notes = [f"{spec}: extra root {root} is outside the repository: read as it is now, not at {spec}"
                 for root in outside]
        return _under(base, repo.prefix), {**env, sources.EXTRA_ROOTS_ENV: os.pathsep.join(roots)}, notes
    except gitrev.RevisionError as e:
        raise SourceError(str(e)) from None


def _split_roots(roots, top: str) -> tuple[dict, list]:
    """({root: its path in the repository}, [roots outside the repository])."""
    inside, outside = {}, []
    for root in roots:
        rel = os.path.relpath(os.path.realpath(root), top)
        if rel == os.pardir or rel.startswith(os.pardir + os.sep):
            outside.append(root)
        else:
            inside[root] = "" if rel == os.curdir else rel.replace(os.sep, "/")
    return inside, outside


def _outermost(prefixes) -> list:
    """The directories to extract: each prefix once, and none that an extracted one already holds.
    A prefix below a hidden directory of another is extracted on its own: the walk skips hidden
    entries, so the outer extraction does not hold it."""
    out = []
    for prefix in sorted(set(prefixes), key=len):
        if not any(_holds(outer, prefix) for outer in out):
            out.append(prefix)
    return out


def _holds(outer: str, prefix: str) -> bool:
    """Whether extracting `outer` extracts `prefix` (below it, through no hidden directory)."""
    if outer and not prefix.startswith(outer + "/"):
        return False
    return not any(part.startswith(".") for part in prefix[len(outer):].lstrip("/").split("/"))


def _under(base: str, prefix: str) -> str:
    return os.path.join(base, *prefix.split("/")) if prefix else base


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


def report_placement(fmt: str):
    """function.run's `report`: the review report of the run as a local-config ConfigMap that
    output.Placement.own puts among the items (kpt writes it to expand-trainjobs-report.yaml at the
    package root; nothing applies it), in place of the report of an earlier run or at the end. A
    ConfigMap of that name that is not a report of ours is left as it is, and is an error."""
    return lambda outcome: (_report_object(report(outcome), fmt), REPORT_MARKER, REPORT_FILE, "report")
