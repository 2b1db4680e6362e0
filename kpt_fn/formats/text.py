"""`--format text` and every run's stderr: one line per finding, in the form compilers, linters and
kubeconform users read (and editors, terminals and CI problem matchers jump from):

    path:line:col: severity: Kind namespace/name: field: message [rule-id]

`path` is the file, relative to the directory the command ran in (`path` alone when no line is
known); a finding from no file names the app directory when one command judged several apps, else
the program (`expand-trainjobs: error: ...`, as `gcc: error: ...`). The object and the field are left
out where the finding names none. The same line is what every mode prints on stderr after the
summary (kpt, kustomize, the Argo CD sidecar, render and validate), and what JUnit's failures hold.

Inert by construction: each line is escaped (kpt_fn.results.escape: control characters, the
runner's `##[`), and the path's `:` is written `\\x3a` (kpt_fn.results.location), so a file name,
field or message cannot start another line, read as another place or finding, or, at a line's start,
as a GitHub Actions command (`::`); the rule id is the line's last `[...]`.
"""

from __future__ import annotations

from kpt_fn.results import escape, location
from kpt_fn.trainer_names import OUTPUT_PREFIX

PROGRAM = OUTPUT_PREFIX.rstrip(": ")


def headline(finding: dict) -> str:
    """`Kind ns/name: field: message`, what a one-line format (an annotation, a SARIF message) shows."""
    name = finding["object"]
    field = f"{finding['field']}: " if finding["field"] else ""
    return (f"{name}: " if name else "") + field + finding["message"]


def where(finding: dict) -> str:
    """`path:line:col`, `path`, the app directory or the program: the place a line starts with."""
    if finding["file"]:
        return location(finding["file"], finding["line"] or 0, finding["column"] or 0)
    if finding["app"]:
        return location(finding["app"])
    return PROGRAM


def line(finding: dict) -> str:
    """One finding as one line: `path:line:col: severity: Kind ns/name: field: message [rule-id]`."""
    rule = f" [{finding['rule']}]" if finding["rule"] else ""
    return escape(f"{where(finding)}: {finding['severity']}: {headline(finding)}{rule}")


def lines(found: list) -> list:
    """The lines of `found`, one per finding, in order."""
    return [line(f) for f in found]


def write(report: dict, rules: list | None = None) -> str:
    """validate's report as text: its summary, then a line per finding (what stderr shows)."""
    return "\n".join([escape(report["summary"]), *lines(report["findings"])]) + "\n"
