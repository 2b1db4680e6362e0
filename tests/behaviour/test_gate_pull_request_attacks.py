"""The gate against a pull request that changes the gate itself (issue 32 point 1, issue 33): the shipped
workflow's steps run as GitHub's runner runs them (tests/support/github_workflow.py) on the shipped
monorepo example, after a hostile change, and after valid, unusual ones that must pass."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from support import github_workflow as gw
from support import shipped_examples as ex

FOUND = {"APPS": "", "KPT_PACKAGES": "apps/team-a/mnist"}  # every app found, as tests/behaviour/test_monorepo.py

HIDDEN_APP = "apps/team-b/llm-finetune"


def monorepo(tmp_path):
    """examples/monorepo committed as the platform repository's main branch."""
    repo = tmp_path / "repo"
    shutil.copytree(ex.EXAMPLES / "monorepo", repo, ignore=shutil.ignore_patterns(".expected"))
    gw.git(repo, "init", "-q")
    gw.git(repo, "add", "-A")
    gw.git(repo, "commit", "-qm", "platform repository")
    return repo


@pytest.fixture()
def stubs(tmp_path):
    return gw.stubs(tmp_path / "bin")


def _validate(repo, stubs, settings=FOUND):
    steps = gw.Runner(repo, stubs, "push", "", settings).run(gw.workflow())
    return steps, {name: out for name, _, out in steps}["Validate"]


@pytest.mark.parametrize("hide", ["delete", "rename", "hidden-directory"])
def test_an_app_hidden_from_find_apps_fails_the_workflow(tmp_path, stubs, hide):
    repo = monorepo(tmp_path)
    config = repo / HIDDEN_APP / "expand-trainjobs.yaml"
    job = f"{HIDDEN_APP}/trainjob.yaml"
    if hide == "delete":
        config.unlink()
    elif hide == "rename":
        config.rename(config.with_name("expand-trainjobs.yaml.bak"))
    else:
        os.rename(repo / HIDDEN_APP, repo / "apps/team-b/.llm-finetune")
        job = "apps/team-b/.llm-finetune/trainjob.yaml"
    steps, out = _validate(repo, stubs)
    assert "found 5 app(s)" in out
    errors = [line for line in out.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and errors[0].startswith(f"::error file={job},line=") and "title=apps/trainjob-in-no-app" in errors[0], out
    sarif = json.loads((repo / "expand-trainjobs.sarif").read_text())
    failed = [r for r in sarif["runs"][0]["results"] if r["level"] == "error"]
    assert [r["ruleId"] for r in failed] == ["apps/trainjob-in-no-app"]
    assert steps[-1][0] == "Fail on validation errors" and steps[-1][1] != 0


def test_a_stated_directory_of_plain_trainjobs_passes_and_is_said(tmp_path, stubs):
    repo = monorepo(tmp_path)
    gw.write(repo, {"clusters/lab/trainjob.yaml": (repo / HIDDEN_APP / "trainjob.yaml").read_text(),
                    ".expand-trainjobs-unchecked.yaml":
                        "unchecked:\n- path: clusters/lab\n  reason: applied by the lab cluster's own Trainer controller\n"})
    steps, out = _validate(repo, stubs)
    assert steps[-1][1] == 0, out
    assert "stated unchecked in .expand-trainjobs-unchecked.yaml (applied by the lab cluster's own Trainer controller)" in out
