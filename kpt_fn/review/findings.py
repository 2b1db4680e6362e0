"""The findings model: a run's errors and warnings as plain data, the one record every command that
reports them builds (stderr in every mode, validate's formats, the review report, the diff, the
upgrade preview) and every writer of kpt_fn/formats/ reads.

A finding (`finding`) is one result as a dict of these keys (FIELDS), always all of them:

- `rule`, `severity`, `message`: the rule id, error/warning/info, the check's own words;
- `resource`: the object it is about as a reference (apiVersion, kind, namespace, name; "" where
  none), the namespace the one `render` uses; `object`: the same as `Kind namespace/name` (what a
  person reads; "" when it names none);
- `app`: the app directory it belongs to when one command judged several apps ("" otherwise);
- `field`: the field path in the object; `file`, `line`, `column`: where that field is (the file
  named relative to the directory the command ran in when it was given, as compilers, CI systems and
  code scanning want it; line and column 1-based, None when unknown);
- `count`: how many findings it stands for ("... and K more like this": more than one);
- `waiver`: for a waived policy violation, `{annotation, reason}`; None otherwise.

Three views of a run are built of them: `shown` (what stderr shows, capped per kind), `collect`
(validate's report: summary, counts, findings, TrainJobs with their findings' indexes) and
`findings` (the review's: per TrainJob, and those about no single TrainJob). The writers are pure
functions of these dicts.
"""

from __future__ import annotations

import os

from kpt_fn import lines, resource as res
from kpt_fn.problems import ERROR, WARNING
from kpt_fn.results import LINES_PER_KIND, capped
from kpt_fn.trainer_names import WAIVER_PREFIX

# As many findings of one kind as a ResourceList carries (results.RESULTS_PER_KIND): the rest are one
# "... and K more like this" finding, so that a million identical warnings cannot flood a CI system.
PER_KIND = 100

FIELDS = ("rule", "severity", "message", "resource", "object", "app", "field", "file", "line", "column", "count", "waiver")
_REF_KEYS = ("apiVersion", "kind", "namespace", "name")


def who(ref: dict | None) -> str:
    """`Kind namespace/name` of a finding's resource ("" when it names none)."""
    if not ref or not ref.get("kind"):
        return ""
    return res.named(ref["kind"], ref.get("namespace"), ref.get("name"))


def counts(found: list) -> dict:
    """{"errors": n, "warnings": n} of a list of findings."""
    return {"errors": sum(1 for f in found if f["severity"] == ERROR),
            "warnings": sum(1 for f in found if f["severity"] == WARNING)}


def _waiver(r, trainjob) -> dict | None:
    """The waiver annotation and its reason of a waived policy violation (a policy warning on a
    TrainJob that carries the rule's waiver annotation)."""
    if not (r.rule.startswith("policy/") and r.severity == WARNING and isinstance(trainjob, dict)):
        return None
    annotation = WAIVER_PREFIX + r.rule[len("policy/"):]
    reason = res.annotations(trainjob).get(annotation)
    if isinstance(reason, str) and reason.strip():
        return {"annotation": annotation, "reason": reason.strip()}
    return None


def named_from(root: str | None, cwd: str | None, file: str) -> str:
    """`file` (relative to the app directory `root`) named relative to `cwd`, with `/`: what a person
    or CI system in `cwd` opens. As it is without both."""
    if not file or root is None or cwd is None:
        return file
    return os.path.relpath(os.path.join(root, file), cwd).replace(os.sep, "/")


def record(rule: str, severity: str, message: str, resource: dict | None = None, field: str = "", file: str = "",
           line: int | None = None, column: int | None = None, count: int = 1, waiver: dict | None = None,
           app: str = "") -> dict:
    """One finding as the model's record (FIELDS, every key), for findings made without a Result (the
    search for TrainJobs in no app: kpt_fn.orphans)."""
    ref = resource or {}
    resource = {k: ref.get(k) or "" for k in _REF_KEYS}
    return {"rule": rule, "severity": severity, "message": message, "resource": resource, "object": who(resource),
            "app": app, "field": field or "", "file": file or "", "line": line or None,
            "column": (column or 1) if line else None, "count": count, "waiver": waiver}


def finding(r, trainjob: dict | None = None, *, root: str | None = None, cwd: str | None = None, app: str = "") -> dict:
    """One result as the findings model's record; `trainjob`, the TrainJob it is about (its waiver
    annotations); `root` and `cwd` name its file relative to the directory the command ran in."""
    return record(r.rule, r.severity, r.message, r.resource, r.field, named_from(root, cwd, r.file), r.lineno,
                  r.column, r.count, _waiver(r, trainjob), app)


def _trainjobs_by_place(outcome) -> dict:
    """{(file, index): the TrainJob read there}: a finding in a TrainJob's place is about it."""
    out = {}
    for entry in outcome.rendered:
        if isinstance(entry.origin, dict) and res.file_path(entry.origin):
            out[(res.file_path(entry.origin), res.file_index(entry.origin))] = entry.origin
    return out


def shown(outcome, root: str | None = None, cwd: str | None = None, app: str = "", results: list | None = None) -> list:
    """The findings stderr shows, in order: errors, warnings and the info results a user must act on
    (results.Result.shown), at most LINES_PER_KIND of a kind. `results`: the run's final results
    (under `strict`, warnings as errors) when not `outcome.final_results`."""
    results = outcome.final_results if results is None else results
    places = _trainjobs_by_place(outcome)
    return [finding(r, places.get((r.file, r.index)), root=root, cwd=cwd, app=app)
            for r in capped([r for r in results if r.shown], LINES_PER_KIND)]


# --- validate's report -----------------------------------------------------------------------------


def collect(outcome, root: str, cwd: str, app: str = "") -> dict:
    """validate's report of a run: summary, counts, findings (with lines), TrainJobs."""
    results = capped(outcome.results, PER_KIND)
    documents = lines.locate(results, root)
    trainjobs, by_place = [], {}
    for entry in outcome.rendered:
        tj = entry.origin
        file, index = res.file_path(tj) or "", res.file_index(tj)
        record = {
            "name": res.name(tj) or "",
            "namespace": entry.namespace or res.namespace(tj) or "",
            "file": named_from(root, cwd, file),
            "line": None,
            "findings": [],
        }
        if app:
            record["app"] = app
        if file:
            by_place[(file, index)] = (record, tj)
            record["line"] = lines.line_of(lines.composed(documents, root, file), index, "")
        trainjobs.append(record)
    found = []
    for r in results:
        owner, tj = by_place.get((r.file, r.index), (None, None)) if r.file else (None, None)
        if owner is not None:
            owner["findings"].append(len(found))
        found.append(finding(r, tj, root=root, cwd=cwd, app=app))
    return {
        "summary": str(outcome.summary),
        "errors": sum(f["count"] for f in found if f["severity"] == ERROR),
        "warnings": sum(f["count"] for f in found if f["severity"] == WARNING),
        "trainJobs": trainjobs,
        "findings": found,
    }


# --- the review's findings -------------------------------------------------------------------------


def _reviewed(r) -> bool:
    return r.severity in (ERROR, WARNING)


def findings(outcome, root: str | None, cwd: str | None = None) -> tuple[dict, list]:
    """({id(Rendered entry): [finding]}, [findings about no single TrainJob]): errors and warnings.
    Files are named as the run names them (relative to the app directory `root`), or relative to
    `cwd` when it is given."""
    # The line of each finding's field in its file (the documents composed once for all of them).
    documents = lines.locate([r for r in outcome.results if _reviewed(r)], root) if root is not None else None
    per_job, seen = {}, set()
    for entry in outcome.rendered:
        own = [r for r in entry.results if _reviewed(r)]
        if root is not None:
            lines.locate(own, root, documents)  # merged per-Secret results are not among outcome.results
        seen.update(id(r) for r in own)
        origin = entry.origin if isinstance(entry.origin, dict) else None
        per_job[id(entry)] = [finding(r, origin, root=root, cwd=cwd) for r in own]
    general = [finding(r, root=root, cwd=cwd) for r in outcome.results if _reviewed(r) and id(r) not in seen]
    return per_job, general


def status(rendered: bool, found: list) -> str:
    """A TrainJob's state in the report: rendered, failed (it has errors), or not rendered."""
    return "rendered" if rendered else "failed" if counts(found)["errors"] else "not rendered"
