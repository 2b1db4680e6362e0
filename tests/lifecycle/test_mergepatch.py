"""The merge-patch emulation against its upstream tables.

* RFC 7386 Appendix A (the RFC's own example table), transcribed.
* apimachinery `pkg/util/jsonmergepatch/patch_test.go` (v0.36.3): a transcribed selection of the
  `createJSONMergePatchTestCaseData` and `filterNullTestCaseData` tables, each named by its
  `description:`; and, where the fetched mirror of kubernetes/apimachinery sits beside the checkout,
  every case of both tables read from the tagged file itself.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from lifecycle import mergepatch as mp

# RFC 7386 Appendix A: (original, patch, result).
RFC_7386 = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"a": "foo"}, "bar", "bar"),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
]


@pytest.mark.parametrize("original,patch,result", RFC_7386)
def test_rfc_7386_appendix_a(original, patch, result):
    assert mp.merge_patch(original, patch) == result


# patch_test.go createJSONMergePatchTestCaseData, by description: (original, modified, current, threeWay, result)
THREE_WAY = {
    "nil original": (None, {"name": 1, "value": 1}, {"name": 1, "other": "a"}, {"value": 1},
                     {"name": 1, "value": 1, "other": "a"}),
    "nil patch": ({"name": 1}, {"name": 1}, {"name": 1}, {}, {"name": 1}),
    "add field to map with conflict": ({"name": 1}, {"name": 1, "value": 1}, {"name": "a", "other": "a"},
                                       {"name": 1, "value": 1}, {"name": 1, "value": 1, "other": "a"}),
    "add field and delete field from map": ({"name": 1}, {"value": 1}, {"name": 1, "other": "a"},
                                            {"name": None, "value": 1}, {"value": 1, "other": "a"}),
    "delete field from nested map": (
        {"simpleMap": {"key1": 1, "key2": 1}}, {"simpleMap": {"key1": 1}},
        {"simpleMap": {"key1": 1, "key2": 1, "other": "a"}},
        {"simpleMap": {"key2": None}}, {"simpleMap": {"key1": 1, "other": "a"}}),
    "replace list of scalars": (
        {"intList": [1, 2]}, {"intList": [2, 3]}, {"intList": [1, 2]},
        {"intList": [2, 3]}, {"intList": [2, 3]}),
    "patch from list to scalar": (
        {"foo": [1, 2]}, {"foo": 0}, {"foo": [1, 2], "bar": 2}, {"foo": 0}, {"foo": 0, "bar": 2}),
}


@pytest.mark.parametrize("description", sorted(THREE_WAY))
def test_three_way_transcribed(description):
    original, modified, current, three_way, result = THREE_WAY[description]
    patch = mp.three_way(original, modified, current)
    assert patch == three_way
    assert mp.merge_patch(current, patch) == result


def test_a_list_that_differs_in_live_is_replaced_whole():
    """The fact that re-applying a render can change a running JobSet rests on: live holds a default inside a list the manifest does not; the
    patch carries the manifest's whole list, so the default is gone after the apply."""
    applied = {"spec": {"replicatedJobs": [{"name": "node", "template": {}}]}}
    live = {"spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {"completionMode": "Indexed"}}}]}}
    patch = mp.three_way(applied, applied, live)
    assert patch == applied
    assert mp.merge_patch(live, patch) == applied


def test_fields_only_live_has_outside_lists_are_kept():
    applied = {"spec": {"network": {"enableDNSHostnames": True}}}
    live = {"spec": {"network": {"enableDNSHostnames": True, "publishNotReadyAddresses": True}, "successPolicy": {"operator": "All"}}}
    assert mp.three_way(applied, applied, live) == {}


# --- upstream's whole tables, from the fetched mirror -------------------------------------------------

MIRROR = Path(__file__).resolve().parents[3] / ".mirror" / "kubernetes+apimachinery" / "repo"
TAG = "v0.36.3"
TEST_FILE = "pkg/util/jsonmergepatch/patch_test.go"


def _upstream_table(var: str) -> list:
    if not MIRROR.is_dir():
        pytest.skip("the fetched kubernetes/apimachinery mirror is not beside the checkout")
    text = subprocess.run(["git", "--git-dir", str(MIRROR), "show", f"{TAG}:{TEST_FILE}"], capture_output=True,
                          text=True, check=True).stdout
    start = text.index(f"var {var} = []byte(`") + len(f"var {var} = []byte(`")
    return yaml.safe_load(text[start:text.index("`)", start)])["testCases"]


def test_three_way_every_upstream_case():
    cases = _upstream_table("createJSONMergePatchTestCaseData")
    assert len(cases) > 20
    for case in cases:
        patch = mp.three_way(case.get("original"), case.get("modified"), case.get("current"))
        assert patch == (case.get("threeWay") or {}), case["description"]
        assert mp.merge_patch(case.get("current") or {}, patch) == (case.get("result") or {}), case["description"]


def test_keep_or_delete_null_every_upstream_case():
    for case in _upstream_table("filterNullTestCaseData"):
        original = case.get("originalObj") or {}
        assert mp.keep_or_delete_null(original, True) == (case.get("expectedWithNull") or {}), case["description"]
        assert mp.keep_or_delete_null(original, False) == (case.get("expectedWithoutNull") or {}), case["description"]
