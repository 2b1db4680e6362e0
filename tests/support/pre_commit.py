"""pre-commit (https://pre-commit.com, from PyPI, in the test venv) running this checkout's hooks
(.pre-commit-hooks.yaml) on a repository a test builds, as a user's `pre-commit run` does: pre-commit
clones the hook repository at a revision and installs it into an environment of its own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from support.github_workflow import ROOT, git as _git


def hook_repository(tmp_path: Path) -> tuple[Path, str]:
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


def run(repo: Path, home: Path) -> subprocess.CompletedProcess:
    env = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin", "HOME": str(home),
        "PRE_COMMIT_HOME": str(home / "pre-commit"), "PIP_CONSTRAINT": str(ROOT / "constraints.txt"),
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"], cwd=repo,
                          env=env, capture_output=True, text=True, timeout=900)
