"""kpt_fn.orphans: every TrainJob file below the searched paths that no app found reads is named, as an
error, unless the platform team states it unchecked with a reason. Hostile trees (a deleted or renamed
config, hidden directories, links, unreadable files, a forged statement) and valid, unusual controls
(every TrainJob in an app: nothing more is said)."""

from __future__ import annotations

import os

import pytest

from kpt_fn import apps, orphans

TJ = "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: {name}\n  namespace: {ns}\n"


def _tree(root, files: dict):
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def _judge(root, tops=(".",)):
    tops, found = apps.find_all(list(tops), str(root))
    return found, orphans.judge(tops, found, str(root))


def _errors(judged):
    return [(f["file"], f["line"], f["rule"]) for f in judged["findings"] if f["severity"] == "error"]


REPO = {
    "apps/a/expand-trainjobs.yaml": "policy: {maxGPUsPerTrainJob: 2}\n",
    "apps/a/job.yaml": TJ.format(name="a", ns="ta"),
    "apps/a/sub/more.yaml": TJ.format(name="a2", ns="ta"),
    "apps/b/expand-trainjobs.yaml": "",
    "apps/b/job.yaml": "# a comment first\n" + TJ.format(name="b", ns="tb"),
    "platform/runtimes/torch.yaml": "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata: {name: t}\n",
    "README.md": "TrainJob everywhere in prose\n",
}


# --- controls: a repository whose every TrainJob is in an app says nothing more ----------------------

def test_every_trainjob_in_an_app_says_nothing(tmp_path):
    _tree(tmp_path, REPO)
    found, judged = _judge(tmp_path)
    assert found == ["apps/a", "apps/b"]
    assert judged["findings"] == [] and judged["lines"] == [] and judged["errors"] == 0


@pytest.mark.parametrize("extra", [
    # YAML that is not a TrainJob, outside every app: a runtime, a kustomization, a TrainJob of another group
    {"platform/other.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: TrainJob}\ndata: {kind: TrainJob}\n"},
    {"platform/x.yaml": "apiVersion: example.com/v1\nkind: TrainJob\nmetadata: {name: not-trainer}\n"},
    {"docs/trainjob.md": TJ.format(name="doc", ns="d")},  # not a YAML or JSON name: nobody applies it
    {"apps/a/kustomization.yaml": TJ.format(name="k", ns="k")},  # a build file, never read as a resource
    # a link inside an app to a TrainJob file elsewhere: render reads it through the link
    {"shared/jobs/j.yaml": TJ.format(name="s", ns="ta")},
    # .git is no working tree
    {".git/objects/x.yaml": TJ.format(name="g", ns="g")},
], ids=["not-trainjobs", "other-group", "not-yaml", "build-file", "linked-from-an-app", "dot-git"])
def test_unusual_controls_pass(tmp_path, extra):
    _tree(tmp_path, {**REPO, **extra})
    if "shared/jobs/j.yaml" in extra:
        os.symlink("../../shared/jobs", tmp_path / "apps/a/linked")
    _, judged = _judge(tmp_path)
    assert judged["findings"] == [], judged["lines"]


def test_a_list_and_json_are_read(tmp_path):
    _tree(tmp_path, {**REPO,
                     "loose/list.yaml": "apiVersion: v1\nkind: List\nitems:\n- " + TJ.format(name="l", ns="x").replace("\n", "\n  "),
                     "loose/j.json": '{"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "j"}}'})
    _, judged = _judge(tmp_path)
    assert _errors(judged) == [("loose/j.json", 1, orphans.RULE), ("loose/list.yaml", 1, orphans.RULE)]


# --- hostile: a pull request that hides an app -------------------------------------------------------

def test_a_deleted_config_makes_its_trainjobs_errors(tmp_path):
    _tree(tmp_path, REPO)
    (tmp_path / "apps/b/expand-trainjobs.yaml").unlink()
    found, judged = _judge(tmp_path)
    assert found == ["apps/a"]
    assert _errors(judged) == [("apps/b/job.yaml", 2, orphans.RULE)]
    assert judged["findings"][0]["resource"]["name"] == "b"
    (line,) = judged["lines"]
    assert line.startswith("apps/b/job.yaml:2:1: error: TrainJob tb/b: the TrainJob is in no app") and line.endswith(f"[{orphans.RULE}]")


def test_a_renamed_config_is_no_config(tmp_path):
    _tree(tmp_path, REPO)
    os.rename(tmp_path / "apps/b/expand-trainjobs.yaml", tmp_path / "apps/b/expand-trainjobs.yml")
    _, judged = _judge(tmp_path)
    assert _errors(judged) == [("apps/b/job.yaml", 2, orphans.RULE)]


def test_an_app_moved_into_a_hidden_directory_is_found_by_its_trainjobs(tmp_path):
    # --find-apps skips hidden directories; an Argo CD Application may still name one as its path
    _tree(tmp_path, REPO)
    os.rename(tmp_path / "apps/b", tmp_path / "apps/.b")
    found, judged = _judge(tmp_path)
    assert found == ["apps/a"]
    assert _errors(judged) == [("apps/.b/job.yaml", 2, orphans.RULE)]


def test_hidden_entries_inside_an_app_are_not_read_by_it(tmp_path):
    # render skips hidden names inside an app, so the app does not check them
    _tree(tmp_path, {**REPO, "apps/a/.drafts/big.yaml": TJ.format(name="big", ns="ta"),
                     "apps/a/.big.yaml": TJ.format(name="big2", ns="ta")})
    _, judged = _judge(tmp_path)
    assert _errors(judged) == [("apps/a/.big.yaml", 1, orphans.RULE), ("apps/a/.drafts/big.yaml", 1, orphans.RULE)]


def test_a_link_to_a_directory_is_listed_not_followed_and_its_target_searched(tmp_path):
    _tree(tmp_path, {**REPO, "stash/j.yaml": TJ.format(name="s", ns="x")})
    os.symlink("../stash", tmp_path / "apps/c")
    _, judged = _judge(tmp_path)
    assert _errors(judged) == [("stash/j.yaml", 1, orphans.RULE)]  # once, where it lies


def test_a_file_link_outside_the_apps_is_read_inside_the_repository_only(tmp_path):
    outside = tmp_path / "outside"
    _tree(outside, {"j.yaml": TJ.format(name="o", ns="o")})
    repo = tmp_path / "repo"
    _tree(repo, {**REPO, "loose/real.yaml": TJ.format(name="r", ns="r")})
    os.symlink("real.yaml", repo / "loose/link.yaml")
    os.symlink(str(outside / "j.yaml"), repo / "loose/out.yaml")
    _, judged = _judge(repo)
    assert _errors(judged) == [("loose/link.yaml", 1, orphans.RULE)]  # the target, once; nothing outside read


def test_a_file_that_cannot_be_parsed_but_names_trainjob_fails_closed(tmp_path):
    _tree(tmp_path, {**REPO, "loose/broken.yaml": "kind: TrainJob\n  bad: [\n"})
    _, judged = _judge(tmp_path)
    (finding,) = judged["findings"]
    assert (finding["file"], finding["object"]) == ("loose/broken.yaml", "")
    assert "names TrainJob but cannot be read as YAML" in finding["message"]


def test_names_with_control_characters_cannot_forge_lines(tmp_path):
    _tree(tmp_path, {**REPO, "loose/x\nexpand-trainjobs: ok.yaml": TJ.format(name="n\nforged", ns="x")})
    _, judged = _judge(tmp_path)
    assert all("\n" not in line for line in judged["lines"]) and len(judged["lines"]) == 1


# --- stated unchecked: a legitimate layout, said on every run -------------------------------------------

STATED = "unchecked:\n- path: clusters/lab\n  reason: applied by the lab cluster's own Trainer controller (PLAT-7)\n"


def test_a_stated_directory_is_named_with_its_reason_not_an_error(tmp_path):
    _tree(tmp_path, {**REPO, "clusters/lab/j.yaml": TJ.format(name="lab", ns="lab"), orphans.STATEMENT_FILE: STATED})
    _, judged = _judge(tmp_path)
    assert judged["findings"] == []
    assert judged["unchecked"] == [{"path": "clusters/lab", "reason": "applied by the lab cluster's own Trainer controller (PLAT-7)",
                                    "files": ["clusters/lab/j.yaml"]}]
    (line,) = judged["lines"]
    assert line.startswith("  [info] 1 file(s) of TrainJobs in no app under clusters/lab") and "PLAT-7" in line


def test_the_statement_covers_only_what_it_names(tmp_path):
    _tree(tmp_path, {**REPO, "clusters/lab/j.yaml": TJ.format(name="lab", ns="lab"),
                     "clusters/lab2/j.yaml": TJ.format(name="lab2", ns="lab"), orphans.STATEMENT_FILE: STATED})
    _, judged = _judge(tmp_path)
    assert _errors(judged) == [("clusters/lab2/j.yaml", 1, orphans.RULE)]


def test_a_statement_in_a_subdirectory_is_not_read(tmp_path):
    # only the working directory's (the repository's top level, which CODEOWNERS holds)
    _tree(tmp_path, {**REPO, "clusters/lab/j.yaml": TJ.format(name="lab", ns="lab"),
                     "clusters/" + orphans.STATEMENT_FILE: STATED.replace("clusters/lab", "lab")})
    _, judged = _judge(tmp_path)
    assert _errors(judged) == [("clusters/lab/j.yaml", 1, orphans.RULE)]


@pytest.mark.parametrize("text", [
    "unchecked:\n- path: clusters/lab\n  reason: \"\\u200b\"\n",    # no visible reason
    "unchecked:\n- path: clusters/lab\n",                          # no reason
    "unchecked:\n- path: ../clusters/lab\n  reason: r\n",         # above the top
    "unchecked:\n- path: /etc\n  reason: r\n",                     # absolute
    "unchecked: clusters/lab\n",                                   # not a list
    "unchecked: []\nextra: 1\n",                                   # unknown key
    "unchecked:\n- path: clusters/lab\n  reason: r\n  note: x\n",  # unknown key in an entry
    "[unclosed\n",                                                 # not YAML
], ids=["invisible-reason", "no-reason", "dotdot", "absolute", "not-a-list", "extra-key", "entry-extra-key", "not-yaml"])
def test_a_bad_statement_states_nothing_and_is_an_error(tmp_path, text):
    _tree(tmp_path, {**REPO, "clusters/lab/j.yaml": TJ.format(name="lab", ns="lab"), orphans.STATEMENT_FILE: text})
    _, judged = _judge(tmp_path)
    rules = sorted(f["rule"] for f in judged["findings"])
    assert rules == [orphans.RULE, orphans.STATEMENT_RULE], judged["lines"]
    assert all(text.strip() not in line for line in judged["lines"])  # its content is not quoted


def test_a_linked_statement_is_not_read(tmp_path):
    _tree(tmp_path, {**REPO, "clusters/lab/j.yaml": TJ.format(name="lab", ns="lab"), "elsewhere.yaml": STATED})
    os.symlink("elsewhere.yaml", tmp_path / orphans.STATEMENT_FILE)
    _, judged = _judge(tmp_path)
    assert sorted(f["rule"] for f in judged["findings"]) == [orphans.RULE, orphans.STATEMENT_RULE]


def test_a_statement_covering_an_app_is_a_warning(tmp_path):
    # stating `apps` would let any app of it lose its config without an error
    _tree(tmp_path, {**REPO, orphans.STATEMENT_FILE: "unchecked:\n- path: apps\n  reason: everything, please\n"})
    _, judged = _judge(tmp_path)
    (finding,) = judged["findings"]
    assert (finding["severity"], finding["rule"]) == ("warning", orphans.STATEMENT_RULE)
    assert "apps/a, apps/b" in finding["message"]


def test_findings_join_a_report_and_fail_its_summary():
    from kpt_fn.results import Summary

    from kpt_fn.review.findings import FIELDS, record

    judged = {"findings": [record(orphans.RULE, "error", "m", file="f.yaml", line=1)], "errors": 1, "warnings": 0,
              "unchecked": [], "lines": []}
    merged = orphans.with_findings({"summary": "s", "errors": 0, "warnings": 0, "findings": []}, judged)
    assert merged["errors"] == 1 and merged["findings"][0]["app"] == "" and merged["unchecked"] == []
    # one record shape for validate's report and the review's (kpt_fn.review.findings)
    review = orphans.with_findings({"errors": 0, "warnings": 0, "findings": []}, judged)
    assert tuple(review["findings"][0]) == FIELDS and review["findings"][0]["object"] == ""
    assert not orphans.summary(Summary(True, "2 app(s), each ok"), judged).ok
    assert orphans.summary(Summary(True, "ok"), {**judged, "errors": 0}).ok


@pytest.mark.parametrize("text", [
    'apiVersion: trainer.kubeflow.org/v1alpha1\nkind: "Train\\x4aob"\nmetadata: {name: esc}\n',
    '{"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJ\\u006fb", "metadata": {"name": "esc"}}',
    'apiVersion: trainer.kubeflow.org/v1alpha1\nkind: "Train\\\n  Job"\nmetadata: {name: esc}\n',
], ids=["yaml-hex-escape", "json-unicode-escape", "escaped-line-break"])
def test_a_kind_spelled_with_escapes_is_still_found(tmp_path, text):
    # the bytes never say TrainJob; the parsed document does, as the API server reads it
    _tree(tmp_path, {**REPO, "loose/esc.yaml": text})
    _, judged = _judge(tmp_path)
    assert _errors(judged) == [("loose/esc.yaml", 1, orphans.RULE)]


def test_utf16_yaml_fails_closed(tmp_path):
    # YAML may be UTF-16; the reader here refuses it, so it is named as a file that may hold a TrainJob
    _tree(tmp_path, REPO)
    (tmp_path / "loose").mkdir()
    (tmp_path / "loose/u16.yaml").write_bytes(TJ.format(name="u", ns="x").encode("utf-16"))
    _, judged = _judge(tmp_path)
    assert [f["file"] for f in judged["findings"]] == ["loose/u16.yaml"]
