"""The findings model: a run's errors and warnings as plain data, the one shape every command that
reports them builds (validate's machine-readable formats, the review report, the diff).

A finding is one result with its rule, severity, message, the object it is about (named once, as
`Kind namespace/name`: who), the field and the file and line it points at, and, for a waived policy
violation, the waiver. Two views of it are published and documented, so both stay as they are:

- `collect`: validate's report (`--format json|sarif|junit|github`): the object as a reference
  (apiVersion, kind, namespace, name), the file relative to the directory the command ran in, as CI
  systems want it (a SARIF `artifactLocation.uri`, a GitHub annotation's `file=`), a count per
  finding and, per TrainJob, the indexes of its findings;
- `findings`: the review's (report and diff): the object as `Kind namespace/name`, the file as the
  result names it, the waiver, grouped by the TrainJob each is about.

The writers (kpt_fn/formats/) are pure functions of these dicts.
"""

from __future__ import annotations

import os

from kpt_fn import lines, resource as res
from kpt_fn.problems import ERROR, WARNING
from kpt_fn.results import capped, without_file
from kpt_fn.trainer_names import WAIVER_PREFIX

# As many findings of one kind as a ResourceList carries (results.RESULTS_PER_KIND): the rest are one
# "... and K more like this" finding, so that a million identical warnings cannot flood a CI system.
PER_KIND = 100


def who(ref: dict | None) -> str:
    """`Kind namespace/name` of a finding's resource ("" when it names none)."""
    if not ref or not ref.get("kind"):
        return ""
    return res.named(ref["kind"], ref.get("namespace"), ref.get("name"))


def headline(finding: dict) -> str:
    """`Kind ns/name: field: message`, what a one-line format (an annotation, a SARIF message) shows."""
    name = who(finding["resource"])
    field = f"{finding['field']}: " if finding["field"] else ""
    return (f"{name}: " if name else "") + field + finding["message"]


def counts(found: list) -> dict:
    """{"errors": n, "warnings": n} of a list of findings."""
    return {"errors": sum(1 for f in found if f["severity"] == ERROR),
            "warnings": sum(1 for f in found if f["severity"] == WARNING)}


# --- validate's report -----------------------------------------------------------------------------


def _path(root: str, cwd: str, file: str) -> str:
    if not file:
        return ""
    rel = os.path.relpath(os.path.join(root, file), cwd)
    return rel.replace(os.sep, "/")


def _ref(r) -> dict:
    ref = r.resource or {}
    return {k: ref.get(k, "") for k in ("apiVersion", "kind", "namespace", "name")}


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
            "namespace": entry.namespace or res.namespace(tj) or "",
            "file": _path(root, cwd, file),
            "line": None,
            "findings": [],
        }
        if file:
            by_place[(file, index)] = record
            record["line"] = lines.line_of(lines.composed(documents, root, file), index, "")
        trainjobs.append(record)
    findings_ = []
    for r in results:
        finding_ = {
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
            owner["findings"].append(len(findings_))
        findings_.append(finding_)
    errors = sum(f["count"] for f in findings_ if f["severity"] == ERROR)
    warnings = sum(f["count"] for f in findings_ if f["severity"] == WARNING)
    return {
        "summary": str(outcome.summary),
        "errors": errors,
        "warnings": warnings,
        "trainJobs": trainjobs,
        "findings": findings_,
    }


# --- the review's findings -------------------------------------------------------------------------


def finding(r, trainjob: dict | None = None) -> dict:
    """One result as plain data (its line set by kpt_fn.lines.locate). A waived policy violation
    names the waiver and its reason."""
    ref = r.resource
    named = res.named(ref.get("kind"), ref.get("namespace"), ref.get("name")) if ref else ""
    out = {"severity": r.severity, "rule": r.rule, "message": without_file(r), "object": named,
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


def status(rendered: bool, found: list) -> str:
    """A TrainJob's state in the report: rendered, failed (it has errors), or not rendered."""
    return "rendered" if rendered else "failed" if counts(found)["errors"] else "not rendered"
