"""kpt_fn.formats.comment: the findings table and the cut of a pull-request comment to its size."""

from __future__ import annotations

from kpt_fn.formats import comment


def _finding(**more):
    return {"severity": "warning", "rule": "policy/max-gpus", "message": "too many GPUs", "object": "TrainJob ml/a",
            "file": "jobs/a.yaml", "line": 7, "column": 3, "field": "spec", **more}


def test_findings_table_shows_file_line_and_the_waiver():
    waived = _finding(waiver={"annotation": "waive.expand-trainjobs.kpt.dev/max-gpus", "reason": "PLAT-1"})
    header, rule, row = comment.findings_table([waived])
    assert header == "| severity | rule | object | file:line:col | field | message |" and rule.startswith("| --- |")
    assert "`jobs/a.yaml:7:3`" in row and "(waived by `waive.expand-trainjobs.kpt.dev/max-gpus`: PLAT\\-1)" not in row
    assert "(waived by `waive.expand-trainjobs.kpt.dev/max-gpus`: PLAT-1)" in row


def test_fit_keeps_whole_blocks_and_counts_the_rest():
    blocks = [([f"block {i}", "x" * 300], {"errors": 1, "warnings": 0}) for i in range(10)]
    text = comment.fit(["# head"], blocks, 1500, "TrainJob(s)")
    assert len(text) <= 1500 and text.startswith("# head\nblock 0\n")
    assert "more TrainJob(s) not shown (" in text and text.endswith("\n")
    assert comment.fit(["# head"], blocks[:1], 1500, "TrainJob(s)") == "# head\nblock 0\n" + "x" * 300 + "\n"


def test_counted():
    assert comment.counted({"errors": 2, "warnings": 1}) == "2 error(s), 1 warning(s)"
