"""Everything from the repository is inert in the Markdown of `report`, `diff` and the KRM `report:`
ConfigMap: no raw HTML, no broken code span or table cell, no forged line.

Golden file: fixtures/review/hostile-report.md (EXPAND_TRAINJOBS_UPDATE_GOLDEN=1 rewrites it and fails,
as in tests/unit/review/test_report.py)."""

from __future__ import annotations

import os
import pathlib
import re

import pytest

from kpt_fn import formats
from kpt_fn.formats import markdown as md
from kpt_fn.cli import krm
from support.door import run_with

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "review"

HOSTILE = [
    "a|b", "`", "``x``", "x`|`y", "<img src=x onerror=alert(1)>", "<!-- hide the rest", "-->", "</details>",
    "<details open>", "line\n### forged heading", "row\n| forged | row |", "\r\n0 error(s), 0 warning(s).",
    "[click](https://evil.example)", "![img](https://evil.example/x.png)", "**bold** _em_ ~~s~~", "\\", "&lt;",
    "$x^2$", "\u2028### after a line separator", "\u202eevil", "   ", "",
]

OUR_TAGS = re.compile(r"</?(details|summary|b|br)( open)?>")


def _cells(line: str) -> list:
    """A table row split as GitHub's table extension splits it (cmark-gfm: a `|` right after a
    backslash is part of the cell), each cell with `\\|` turned back into `|`."""
    if not line.startswith("| "):
        return [line]
    cells, cur, prev = [], "", ""
    for c in line[1:]:
        if c == "|" and prev != "\\":
            cells.append(cur)
            cur = ""
        else:
            cur += c
        prev = c
    return [c.replace("\\|", "|") for c in cells] + ([cur] if cur.strip() else [])


def _outside_code(text: str) -> str:
    """`text` without its code spans (CommonMark: a run of N backticks closes at the next run of N;
    a backslash outside a span escapes the next character), escaped characters dropped."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "`":
            n = len(text[i:]) - len(text[i:].lstrip("`"))
            j = i + n
            while True:
                k = text.find("`" * n, j)
                if k < 0:
                    break
                m = len(text[k:]) - len(text[k:].lstrip("`"))
                if m == n:
                    break
                j = k + m
            if k >= 0:
                i = k + n
                continue
            out.append("`" * n)  # no closer: literal backticks
            i += n
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _assert_inert(text: str, hostile: str):
    for line in text.splitlines():
        assert "\r" not in line and "\u2028" not in line and "\u202e" not in line
        assert not line.startswith("### forged") and not line.startswith("| forged")
        if line.startswith("<details"):  # an HTML block: Markdown is not parsed, text is HTML-escaped
            assert "<" not in OUR_TAGS.sub("", line), (hostile, line)
            continue
        for cell in _cells(line):
            bare = OUR_TAGS.sub("", _outside_code(cell))
            assert "<" not in bare and "`" not in bare, (hostile, line)  # no raw HTML, no open code span
    for line in text.splitlines():
        if line.startswith("| "):
            # Every row has as many cells as its header: 6 (findings, namespaces) or 11 (a TrainJob).
            assert len(_cells(line)) in (6, 11), (hostile, line)


@pytest.mark.parametrize("hostile", HOSTILE)
def test_text_and_code_are_inert(hostile):
    for made in (md.text(hostile), md.code(hostile, in_table=True)):
        assert "\n" not in made and "\r" not in made
        assert "<" not in _outside_code(made) and len(_cells(f"| {made} |")) == 1
    assert not {"<", ">", "\n"} & set(md.in_html(hostile))
    span = md.code(hostile)
    fence = re.match("`+", span).group()
    body = span[len(fence):-len(fence)]
    assert "`" * len(fence) not in body  # the span cannot be closed early


def _job(hostile: str) -> dict:
    return {"namespace": "ml", "name": "a", "file": f"jobs/{hostile}.yaml", "runtime": f"ClusterTrainingRuntime/{hostile}",
            "rendered": False, "status": "failed", "nodes": 2, "procsPerNode": hostile, "pods": {hostile: 2}, "gpus": 0,
            "cpu": "1", "memory": "1Gi", "images": [hostile, "ok:1"], "gang": hostile, "queue": hostile,
            "objects": [f"JobSet/{hostile}"],
            "findings": [{"severity": "error", "rule": f"r/{hostile}", "message": f"bad value {hostile!s}",
                          "object": f"TrainJob ml/{hostile}", "file": hostile, "line": 3, "column": 7, "field": f"spec.{hostile}",
                          "waiver": {"annotation": f"waive/{hostile}", "reason": hostile}}]}


@pytest.mark.parametrize("hostile", HOSTILE)
def test_report_and_diff_markdown_are_inert(hostile):
    data = {"trainJobs": [_job(hostile)], "namespaces": {hostile: {"trainJobs": 1, "pods": 2, "gpus": 0, "cpu": hostile, "memory": "1"}},
            "findings": _job(hostile)["findings"], "errors": 2, "warnings": 0}
    _assert_inert(formats.write("report", "markdown", data), hostile)
    change = {"trainJob": f"ml/{hostile}", "change": "changed", "runtime": hostile, "findings": _job(hostile)["findings"],
              "objects": [{"object": "JobSet ml/a", "change": "changed",
                           "fields": [{"path": f"spec.{hostile}", "old": hostile, "new": [hostile]}],
                           "effect": "refused", "refusedFields": [f"spec.{hostile}"], "remedy": "recreate it"},
                          {"object": f"Secret ml/{hostile}", "change": "added"}]}
    diff = {"trainJobs": [change], "findings": [], "errors": 0, "warnings": 0,
            "runtimes": [{"runtime": hostile, "change": "changed", "trainJobs": 1, "trainJobsChanged": []}],
            "summary": {"added": 0, "removed": 0, "changed": 1, "failed": 0, "refused": 1}}
    _assert_inert(formats.write("diff", "markdown", diff), hostile)


def test_hostile_report_golden(fn, tmp_path):
    """A real run: an image, an env value and a file name holding markup, and a TrainJob that fails
    with a message quoting its hostile name."""
    import subprocess

    (tmp_path / "job |<img src=x>.yaml").write_text("""\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: ok
  namespace: ml
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  runtimeRef: {name: torch-distributed}
  trainer:
    image: "registry.example.com/x`|<img src=x onerror=alert(1)>\\n### forged\\n| a | b |"
    env:
    - {name: NOTE, value: "<!-- the rest is hidden"}
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: "Bad_Name<!--"
  namespace: ml
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  runtimeRef: {name: torch-distributed}
""")
    done = subprocess.run([fn, "report"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    _assert_inert(done.stdout, "golden")
    path = FIXTURE / "hostile-report.md"
    if os.environ.get("EXPAND_TRAINJOBS_UPDATE_GOLDEN"):
        path.write_text(done.stdout)
        pytest.fail(f"rewrote {path.relative_to(ROOT)}; review it and run again without EXPAND_TRAINJOBS_UPDATE_GOLDEN")
    assert done.stdout == path.read_text()


def test_krm_report_configmap_is_the_same_markdown():
    from kpt_fn import function

    items = [{"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
              "metadata": {"name": "ok", "namespace": "ml", "annotations": {"config.kubernetes.io/local-config": "true"}},
              "spec": {"runtimeRef": {"name": "torch-distributed"},
                       "trainer": {"image": "x`|<img src=x>\n### forged"}}}]
    outcome = run_with(items, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"report": "markdown"}},
                       function.Door(report=krm.report_placement("markdown")))
    [cm] = [i for i in outcome.items if i.get("kind") == "ConfigMap"]
    text = cm["data"]["report.md"]
    _assert_inert(text, "krm")
    assert "\n### forged" not in text
