"""The writers of `report` (and of the KRM `report:` ConfigMap): the report (kpt_fn.review.report)
as a pull-request comment in Markdown, or as JSON."""

from __future__ import annotations

import json

from kpt_fn.formats import markdown as md
from kpt_fn.formats.comment import DEFAULT_MAX_CHARS, counted, findings_table, fit
from kpt_fn.problems import ERROR
from kpt_fn.review.findings import counts


def _list_cell(values) -> str:
    return "<br>".join(md.code(v, in_table=True) for v in values) if values else "–"


def _pods_cell(pods: dict) -> str:
    return ", ".join(f"{md.text(k)}×{n}" for k, n in pods.items()) if pods else "–"


def _trainjob_title(j: dict) -> str:
    return f"{j['namespace']}/{j['name']}" if j["namespace"] else str(j["name"])


def _trainjob_block(j: dict) -> list:
    c = counts(j["findings"])
    state = {"rendered": "", "failed": " (not rendered: it has errors)", "not rendered": " (not rendered)"}[j["status"]]
    first_error = next((f["message"] for f in j["findings"] if f["severity"] == ERROR), None)
    app = f" (app {md.in_html(j['app'])})" if j.get("app") else ""  # several apps: whose TrainJob
    summary = (f"<b>{md.in_html(_trainjob_title(j))}</b>{app}{state}: {md.in_html(j['runtime'])}, "
               f"{j['nodes']} node(s), {j['gpus']} GPU(s); {counted(c)}")
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


def markdown(data: dict, max_chars: int | None = None) -> str:
    """The report as a pull-request comment: counts, namespaces and the findings about no single
    TrainJob first, then one collapsed section per TrainJob (those with errors first, open)."""
    jobs = data["trainJobs"]
    rendered = sum(1 for j in jobs if j["status"] == "rendered")
    failed = sum(1 for j in jobs if j["status"] == "failed")
    head = [f"## expand-trainjobs report: {len(jobs)} TrainJob(s), {data['errors']} error(s), {data['warnings']} warning(s)",
            "", f"{rendered} rendered, {failed} failed, {len(jobs) - rendered - failed} not rendered.", ""]
    if data.get("apps"):  # several apps, each reported by its own config
        head += [f"{len(data['apps'])} app(s), each by its own config: " + ", ".join(md.code(a) for a in data["apps"]) + ".", ""]
    if data["namespaces"]:
        head += md.table(["namespace", "TrainJobs", "pods", "GPUs", "CPU", "memory"], [
            [md.text(ns) if ns else "(none)", str(t["trainJobs"]), str(t["pods"]), str(t["gpus"]), md.text(t["cpu"]), md.text(t["memory"])]
            for ns, t in data["namespaces"].items()]) + [""]
    if data["findings"]:
        head += ["### Findings not about one TrainJob", "", *findings_table(data["findings"]), ""]
    if jobs:
        head += ["### TrainJobs", ""]
    order = sorted(jobs, key=lambda j: (-counts(j["findings"])["errors"], -counts(j["findings"])["warnings"]))
    blocks = [(_trainjob_block(j), counts(j["findings"])) for j in order]
    return fit(head, blocks, max_chars or DEFAULT_MAX_CHARS, "TrainJob(s)")


def to_json(data: dict) -> str:
    return json.dumps(data, indent=2, sort_keys=True) + "\n"
