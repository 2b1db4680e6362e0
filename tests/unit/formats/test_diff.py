"""kpt_fn.formats.diff: the diff as Markdown (each changed field on one line) and as JSON."""

from __future__ import annotations


import pytest

from kpt_fn.formats import diff

EMPTY = {"trainJobs": [], "runtimes": [], "findings": [], "errors": 0, "warnings": 0,
         "summary": {"added": 0, "removed": 0, "changed": 0, "failed": 0, "refused": 0}}


@pytest.mark.parametrize("old, new, want", [
    ("a\nb\nc\n", "a\nB\nc\n", (2, "b", "B")),
    ("a\nb", "a\nb\nc", (3, "", "c")),  # a line added at the end
    ("one\ntwo", "one", (2, "two", "")),
    ("a", "b", None),  # one line each: shown whole
    (["a\nb"], ["a\nc"], None),
])
def test_first_changed_line_of_a_text(old, new, want):
    assert diff._first_changed_line(old, new) == want


def test_no_change_is_said():
    text = diff.markdown(EMPTY)
    assert text.startswith("## expand-trainjobs diff: 0 TrainJob(s) changed, 0 added, 0 removed\n")
    assert "No rendered object changes." in text and text.endswith("\n")


def test_json_is_sorted_and_writes_any_value_as_text():
    assert diff.to_json({"b": 1, "a": 2}) == "{\n  \"a\": 2,\n  \"b\": 1\n}\n"
    assert diff.to_json({"x": object}).startswith('{\n  "x": "<class')
