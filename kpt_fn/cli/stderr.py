"""What a run prints on stderr, in every mode (kpt, kustomize, the Argo CD sidecar, render, validate,
report, diff): its summary first, `expand-trainjobs: ok: ...` or `... FAILED: ...` (results.Summary;
clients and docs parse it), then each finding a person must see, one line each in the one form
`path:line:col: severity: message [rule-id]`, written by validate's text writer (kpt_fn.formats.text)
from the findings model (kpt_fn.review.findings.shown)."""

from __future__ import annotations


def lines(outcome, root: str | None = None, cwd: str | None = None, app: str = "") -> list:
    """The stderr lines of `outcome`; `root` and `cwd` name its files relative to the directory the
    command ran in (as the run names them without both), `app` the app a finding from no file is of."""
    # A clean run shows nothing but its summary: it need not import the writer and the findings model
    # (about 2 ms of every Argo CD render's start-up).
    if not any(r.shown for r in outcome.final_results):
        return [outcome.summary]
    from kpt_fn.formats import text
    from kpt_fn.review import findings

    return [outcome.summary, *text.lines(findings.shown(outcome, root, cwd, app))]
