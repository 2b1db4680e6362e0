"""A run's findings as plain data, for the machine-readable outputs of `validate --format`.

One dict per result (rule, severity, message, the object, field, file and line) and one per TrainJob
(with the indexes of its findings), so that each output format (kpt_fn/formats/) is a pure function of
this report. Files are named relative to the directory the command ran in, as CI systems want them
(a SARIF `artifactLocation.uri`, a GitHub annotation's `file=`), whatever app directory was rendered.
"""

from __future__ import annotations

import os

from kpt_fn import lines, resource as res
from kpt_fn.problems import ERROR, WARNING
from kpt_fn.results import capped, without_file

# As many findings of one kind as a ResourceList carries (results.RESULTS_PER_KIND): the rest are one
# "... and K more like this" finding, so that a million identical warnings cannot flood a CI system.
PER_KIND = 100


def _path(root: str, cwd: str, file: str) -> str:
    if not file:
        return ""
    rel = os.path.relpath(os.path.join(root, file), cwd)
    return rel.replace(os.sep, "/")


def _ref(r) -> dict:
    ref = r.resource or {}
    return {k: ref.get(k, "") for k in ("apiVersion", "kind", "namespace", "name")}


def who(ref: dict) -> str:
    """`Kind namespace/name` of a finding's resource ("" when it names none)."""
    if not ref.get("kind"):
        return ""
    return f"{ref['kind']} {ref['namespace'] + '/' if ref.get('namespace') else ''}{ref['name']}"


def headline(finding: dict) -> str:
    """`Kind ns/name: field: message`, what a one-line format (an annotation, a SARIF message) shows."""
    name = who(finding["resource"])
    field = f"{finding['field']}: " if finding["field"] else ""
    return (f"{name}: " if name else "") + field + finding["message"]


def _trainjob_key(obj: dict) -> tuple:
    return (res.file_path(obj) or "", res.file_index(obj))


def collect(outcome, root: str, cwd: str) -> dict:
    """The report of a run: summary, counts, findings (with lines), TrainJobs."""
    results = capped(outcome.results, PER_KIND)
    documents = lines.locate(results, root)
    trainjobs, by_place = [], {}
    for entry in outcome.rendered:
        tj = entry.origin
        file, index = _trainjob_key(tj)
        record = {
            "name": res.name(tj) or "",
            "namespace": res.namespace(tj) or "",
            "file": _path(root, cwd, file),
            "line": None,
            "findings": [],
        }
        if file:
            by_place[(file, index)] = record
            record["line"] = lines.line_of(lines.composed(documents, root, file), index, "")
        trainjobs.append(record)
    findings = []
    for r in results:
        finding = {
            "rule": r.rule,
            "severity": r.severity,
            "message": without_file(r),
            "resource": _ref(r),
            "field": r.field,
            "file": _path(root, cwd, r.file),
            "line": getattr(r, "lineno", 0) or None,
            "count": r.count,
        }
        owner = by_place.get((r.file, r.index)) if r.file else None
        if owner is not None:
            owner["findings"].append(len(findings))
        findings.append(finding)
    errors = sum(f["count"] for f in findings if f["severity"] == ERROR)
    warnings = sum(f["count"] for f in findings if f["severity"] == WARNING)
    return {
        "summary": str(outcome.summary),
        "errors": errors,
        "warnings": warnings,
        "trainJobs": trainjobs,
        "findings": findings,
    }
