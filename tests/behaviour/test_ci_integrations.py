"""The CI integrations users copy: the pre-commit hooks (.pre-commit-hooks.yaml) run by pre-commit from
PyPI on a repository built here, and the GitHub Actions workflow (deploy/github/expand-trainjobs.yaml)
whose `run:` steps run as a script, as the runner would run them (tests/support/github_workflow.py
emulates the runner). tests/behaviour/test_monorepo.py runs both on the shipped monorepo example.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from support.github_workflow import FUNCTION, LOCAL_SOURCE, PINNED_SOURCE, WORKFLOW, Runner
from support.github_workflow import git as _git, stubs as _stubs, workflow as _workflow, write as _write
from support import pre_commit
from support.tiny_app import RUNTIME, trainjob

# The workflow's APPS as this repository sets it: its one app (it has no expand-trainjobs.yaml, so
# --find-apps would not find it).
APPS = {"APPS": "apps/train"}


def _pull_request_repo(tmp_path: Path, new_trainjob: str) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    _write(repo, {"apps/train/runtime.yaml": RUNTIME, "apps/train/trainjob.yaml": trainjob(nodes=2)})
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    _git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    _git(repo, "checkout", "-qb", "change")
    _write(repo, {"apps/train/trainjob.yaml": new_trainjob})
    _git(repo, "commit", "-qam", "change")
    return repo


@pytest.fixture()
def stubs(tmp_path):
    return _stubs(tmp_path / "bin")


def test_workflow_on_a_pull_request_comments_the_diff_and_passes(tmp_path, stubs):
    repo = _pull_request_repo(tmp_path, trainjob(nodes=4))
    steps = Runner(repo, stubs, "pull_request", "main", APPS).run(_workflow())
    assert [(name, code) for name, code, _ in steps] == [
        ("actions/checkout", 0), ("actions/setup-python", 0), ("Install expand-trainjobs", 0),
        ("Validate", 0), ("Upload the findings to code scanning", 0),
        ("What the change does to the rendered objects", 0), ("Fail on validation errors", 0),
    ], steps
    log = (tmp_path / "stub.log").read_text()
    assert f"python -m pip install {LOCAL_SOURCE}" in log
    assert f'python -m pip install "{PINNED_SOURCE}"' in WORKFLOW.read_text()
    assert "gh pr comment 7 --body-file diff.md" in log
    assert "### apps/train" in log and "mnist" in log


def test_workflow_fails_on_an_invalid_trainjob_with_annotations_and_sarif(tmp_path, stubs):
    repo = _pull_request_repo(tmp_path, trainjob(nodes="two"))
    steps = Runner(repo, stubs, "pull_request", "main", APPS).run(_workflow())
    by_name = {name: (code, out) for name, code, out in steps}
    assert by_name["Validate"][0] == 0  # the step records the status; the last step fails the job
    assert "::error file=apps/train/trainjob.yaml,line=12," in by_name["Validate"][1]
    assert by_name["Upload the findings to code scanning"][0] == 0
    sarif = json.loads((repo / "expand-trainjobs.sarif").read_text())
    assert sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 12
    assert steps[-1][0] == "Fail on validation errors" and steps[-1][1] != 0


def test_workflow_on_a_push_makes_no_comment(tmp_path, stubs):
    repo = _pull_request_repo(tmp_path, trainjob(nodes=4))
    steps = Runner(repo, stubs, "push", "", APPS).run(_workflow())
    assert "What the change does to the rendered objects" not in [s[0] for s in steps]
    assert steps[-1][1] == 0
    assert "gh " not in (tmp_path / "stub.log").read_text()


# --- pre-commit --------------------------------------------------------------------------------------


def test_pre_commit_hooks_on_a_users_repository(tmp_path):
    hooks, rev = pre_commit.hook_repository(tmp_path)
    repo = tmp_path / "user"
    repo.mkdir()
    _git(repo, "init", "-q")
    package = {
        "pkg/Kptfile": "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n  annotations:\n"
                       "    config.kubernetes.io/local-config: \"true\"\n",
        "pkg/expand-trainjobs.yaml": "apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nmetadata:\n"
                                     "  name: expand-trainjobs\n  annotations:\n"
                                     "    config.kubernetes.io/local-config: \"true\"\nspec:\n  namespace: team-a\n",
        "pkg/runtime.yaml": RUNTIME,
        "pkg/trainjob.yaml": trainjob(nodes=2),
    }
    config = {"repos": [{"repo": str(hooks), "rev": rev, "hooks": [
        {"id": "expand-trainjobs-validate", "args": ["apps/train"]},
        {"id": "expand-trainjobs-generated-current", "args": ["pkg"]},
    ]}]}
    _write(repo, {"apps/train/runtime.yaml": RUNTIME, "apps/train/trainjob.yaml": trainjob(nodes=2),
                  ".pre-commit-config.yaml": yaml.safe_dump(config), **package})
    # The package's output as kpt writes it: render it with the function the hooks install.
    kpt = subprocess.run(["kpt", "fn", "eval", "pkg", "--exec", str(FUNCTION), "--fn-config", "pkg/expand-trainjobs.yaml"],
                         cwd=repo, capture_output=True, text=True, timeout=300)
    assert kpt.returncode == 0, kpt.stderr
    assert (repo / "pkg" / "mnist.generated.yaml").is_file()
    _git(repo, "add", "-A")

    ok = pre_commit.run(repo, tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "expand-trainjobs validate" in ok.stdout and "Passed" in ok.stdout

    _write(repo, {"apps/train/trainjob.yaml": trainjob(nodes="two"),
                  "pkg/trainjob.yaml": trainjob(nodes=3)})
    _git(repo, "add", "-A")
    bad = pre_commit.run(repo, tmp_path)
    assert bad.returncode == 1
    assert "spec.trainer.numNodes" in bad.stdout and "apps/train/trainjob.yaml:12:5: error: " in bad.stdout
    assert "mnist.generated.yaml: JobSet team-a/mnist is stale" in bad.stdout
