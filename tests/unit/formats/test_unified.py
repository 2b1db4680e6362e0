"""kpt_fn.formats.unified: the plain-text diff (kubectl diff's form), its colour and its inertness."""

from __future__ import annotations

import re

import pytest

from kpt_fn.formats import unified
from support import actions_runner as runner

CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "ml"}, "data": {"a": "1", "b": "2"}}
JS = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "j", "namespace": "ml"},
      "spec": {"suspend": False}}
SUMMARY = {"added": 0, "removed": 0, "changed": 1, "failed": 0, "refused": 0}


def _data(objects, findings=(), runtimes=()):
    return {"trainJobs": [{"trainJob": "ml/tj", "change": "changed", "objects": list(objects), "findings": list(findings),
                           "runtime": "ClusterTrainingRuntime/torch-distributed"}],
            "runtimes": list(runtimes), "findings": [], "errors": 0, "warnings": 0, "summary": dict(SUMMARY)}


def test_file_names_are_kubectl_diffs():
    # kubectl's InfoObject.Name: group.version.kind.namespace.name, no group for the core group
    assert unified.file_name(CM) == "v1.ConfigMap.ml.c"
    assert unified.file_name(JS) == "jobset.x-k8s.io.v1alpha2.JobSet.ml.j"


def test_a_changed_object_is_a_unified_diff_of_its_sorted_yaml():
    new = {**CM, "data": {"b": "3", "a": "1"}}  # key order is no change: keys are sorted, as kubectl's YAML
    text = unified.text(_data([{"object": "ConfigMap ml/c", "change": "changed", "effect": "in-place"}]),
                        {"ml/tj": {"ConfigMap ml/c": (CM, new)}}, ("main", "HEAD"))
    assert text == ("# expand-trainjobs diff: 1 TrainJob(s) changed, 0 added, 0 removed\n"
                    "# at the new revision: 0 error(s), 0 warning(s)\n"
                    "# TrainJob ml/tj: changed (runtime ClusterTrainingRuntime/torch-distributed), 1 object(s)\n"
                    "# ConfigMap ml/c: changed\n"
                    "#   applied in place\n"
                    "diff -u -N main/v1.ConfigMap.ml.c HEAD/v1.ConfigMap.ml.c\n"
                    "--- main/v1.ConfigMap.ml.c\n"
                    "+++ HEAD/v1.ConfigMap.ml.c\n"
                    "@@ -1,7 +1,7 @@\n"
                    " apiVersion: v1\n"
                    " data:\n"
                    "   a: '1'\n"
                    "-  b: '2'\n"
                    "+  b: '3'\n"
                    " kind: ConfigMap\n"
                    " metadata:\n"
                    "   name: c\n")


def test_an_added_object_is_all_additions_and_a_removed_one_all_removals():
    data = _data([{"object": "ConfigMap ml/c", "change": "added", "effect": "created"},
                  {"object": "JobSet ml/j", "change": "removed", "effect": "pruned"}])
    text = unified.text(data, {"ml/tj": {"ConfigMap ml/c": (None, CM), "JobSet ml/j": (JS, None)}})
    lines = text.splitlines()
    assert "@@ -0,0 +1,8 @@" in lines and "@@ -1,7 +0,0 @@" in lines
    assert "+kind: ConfigMap" in lines and "-kind: JobSet" in lines
    assert "#   deleted by a sync that prunes (Argo CD prune, kpt live apply); left running otherwise" in lines


def test_a_refusal_says_what_to_do_above_the_diff():
    obj = {"object": "JobSet ml/j", "change": "changed", "effect": "refused", "refusedFields": ["spec.replicatedJobs"],
           "remedy": "recreate it", "routes": [{"client": "kubectl", "do": "delete it"}]}
    text = unified.text(_data([obj]), {"ml/tj": {"JobSet ml/j": (JS, {**JS, "spec": {"suspend": True}})}})
    assert ("# JobSet ml/j: changed\n"
            "#   refused by the cluster: JobSet ml/j cannot be changed once created (spec.replicatedJobs)\n"
            "#   what to do: recreate it\n"
            "#     kubectl: delete it\n"
            "diff -u -N OLD/jobset.x-k8s.io.v1alpha2.JobSet.ml.j NEW/jobset.x-k8s.io.v1alpha2.JobSet.ml.j\n") in text


def test_findings_name_file_line_severity_and_rule():
    finding = {"severity": "error", "rule": "policy/max-nodes", "message": "too many", "object": "TrainJob ml/tj",
               "file": "jobs.yaml", "line": 12, "field": "spec.trainer.numNodes"}
    text = unified.text(_data([], [finding]))
    assert "#   jobs.yaml:12: error: TrainJob ml/tj: too many [policy/max-nodes]\n" in text


def test_no_change_says_so():
    data = {**_data([]), "trainJobs": []}
    assert unified.text(data).endswith("# no rendered object changes\n")


def test_colour_wraps_each_line_and_only_when_asked():
    new = {**CM, "data": {"a": "1", "b": "3"}}
    data, sides = _data([{"object": "ConfigMap ml/c", "change": "changed"}]), {"ml/tj": {"ConfigMap ml/c": (CM, new)}}
    plain = unified.text(data, sides)
    assert "\x1b" not in plain
    coloured = unified.text(data, sides, color=True)
    assert "\x1b[31m-  b: '2'\x1b[m\n" in coloured and "\x1b[32m+  b: '3'\x1b[m\n" in coloured
    assert "\x1b[36m@@ -1,7 +1,7 @@\x1b[m\n" in coloured and "\x1b[1m--- OLD/v1.ConfigMap.ml.c\x1b[m\n" in coloured
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain  # colour adds nothing else


HOSTILE = ["::error file=x.yaml::forged", "  ::warning::indented", "\u00a0::notice::nbsp", "##[error]legacy",
           "a\x1b[2Jb", "line\rcarriage", "x\u2028y", "\u202eevil", "two\nlines\n::error::third", "\t::error::tab"]


@pytest.mark.parametrize("value", HOSTILE)
def test_whatever_the_values_hold_each_line_is_one_diff_line_and_runs_no_command(value):
    old = {**CM, "metadata": {"name": "c", "namespace": "ml", "labels": {value: value}}, "data": {"s": value, value: "k"}}
    new = {**old, "data": {"s": value + "\n" + value, value: "changed " + value}}
    obj = {"object": f"ConfigMap ml/{value}", "change": "changed", "effect": "refused", "refusedFields": [value],
           "remedy": value, "routes": [{"client": value, "do": value}]}
    finding = {"severity": "error", "rule": value, "message": value, "object": value, "file": value, "line": 1}
    data = _data([obj], [finding], [{"runtime": value, "change": "changed", "trainJobs": 1, "trainJobsChanged": []}])
    data["trainJobs"][0]["trainJob"] = value
    for color in (False, True):
        text = unified.text(data, {value: {f"ConfigMap ml/{value}": (old, new)}}, (value, value), color)
        assert runner.commands_run(text) == [], text
        assert not re.search(r"\x1b(?!\[(?:1|31|32|33|36)?m)", text)  # no escape sequence but the colours
        assert "\r" not in text and "\u2028" not in text and "\u202e" not in text
        for line in text.splitlines():
            plain = re.sub(r"\x1b\[[0-9;]*m", "", line)
            assert plain[:1] in ("#", "d", "-", "+", "@", " "), line  # a note, a header, a hunk or a diff line


def test_the_upgrade_preview_says_what_upgrading_does_first():
    data = {**_data([]), "upgrade": {"from": "v2.2.1", "to": "v2.3.0", "trainJobsRendered": 3,
                                     "objects": {"in-place": 1, "refused": 0, "created": 0, "pruned": 0}}}
    text = unified.upgrade(data, {}, ("v2.2.1", "v2.3.0"))
    assert text.startswith("# upgrading Kubeflow Trainer v2.2.1 -> v2.3.0: 1 of 3 TrainJob(s) render differently")


@pytest.mark.parametrize("line", ["     ::error::in a context line", " \u00a0::warning::after a no-break space", "::x::"])
def test_a_line_the_runner_would_read_as_a_command_has_its_colon_escaped(line):
    # TryParseV2 reads the line after TrimStart (ActionCommand.cs :51-119): a context line's leading
    # space does not protect it
    assert runner.parse_v2(line, runner.COMMANDS | {"x"}) is not None or line.startswith("::x")
    shown = unified._inert(line)
    assert "\\x3a:" in shown and runner.commands_run(shown) == []
