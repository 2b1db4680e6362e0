"""kpt_fn.formats.diff: the diff as Markdown (each changed field on one line) and as JSON."""

from __future__ import annotations


import pytest

from kpt_fn.formats import diff
from kpt_fn.lifecycle import classify as c

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


# --- what each change does in the cluster (kpt_fn.lifecycle.classify's effects), in words ----------


@pytest.mark.parametrize("obj, first", [
    ({"effect": c.IN_PLACE}, "  - applied in place"),
    ({"effect": c.PRUNED}, "  - deleted by a sync that prunes"),
    ({"effect": c.IN_PLACE, "onceRunning": c.REFUSED, "refusedFields": ["a|b"]}, "  - applied in place while the TrainJob is held"),
    ({"effect": c.REFUSED, "object": "JobSet ns/tj", "refusedFields": ["spec.x"], "remedy": "r"},
     "  - **refused by the cluster**: JobSet ns/tj cannot be changed once created (`spec.x`)"),
])
def test_effect_lines(obj, first):
    assert diff._effect_lines(obj)[0].startswith(first)


def test_effect_lines_of_created_are_nothing_and_user_paths_are_code():
    assert diff._effect_lines({"effect": c.CREATED}) == []
    lines = diff._effect_lines({"effect": c.REFUSED, "object": "JobSet tj", "refusedFields": ["env.*x*"], "remedy": "r",
                        "whileSuspended": c.IN_PLACE})
    assert "`env.*x*`" in lines[0] and lines[1].startswith("  - accepted while the JobSet is suspended")
    assert lines[2] == "  - what to do: r"
    routes = [{"client": "kubectl", "do": "k"}, {"client": "Argo CD", "do": "a"}]
    lines = diff._effect_lines({"effect": c.REFUSED, "object": "JobSet tj", "refusedFields": ["x"], "remedy": "r", "routes": routes})
    assert lines[-3:] == ["  - what to do: r", "    - kubectl: k", "    - Argo CD: a"]


def test_refused_summary():
    assert diff._refused_summary({"summary": {"refused": 0}}) == []
    assert diff._refused_summary({"summary": {"refused": 2}})[0].startswith("**2 TrainJob(s) have changes the cluster refuses**")
