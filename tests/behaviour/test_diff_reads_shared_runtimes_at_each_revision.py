"""`diff OLD NEW` of the shipped Argo CD example (examples/argocd-app) in a fresh git repository: the
app's runtimes live outside it (platform/runtimes, `runtimeDirs: [../../platform/runtimes]`). In a git
working tree the repository's top level is the root, for `diff` as for `validate`, with no
environment variable: each side reads the shared runtime at its own revision. Reading it from today's
working tree would show no change for a runtime edited between OLD and NEW, and would show one nobody
committed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from kpt_fn import sources
from kpt_fn.cli import modes

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is needed on PATH")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "argocd-app"


def _git(repo, *args, env):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


@pytest.fixture
def env(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != sources.EXTRA_ROOTS_ENV and not k.startswith("ARGOCD_")}
    return {**env, "HOME": str(home), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}


def _set_image(runtime: Path, image: str) -> None:
    text = runtime.read_text()
    old = next(line for line in text.splitlines() if line.strip().startswith("image:"))
    runtime.write_text(text.replace(old, old[: old.index("image:")] + f"image: {image}"))


@pytest.fixture
def monorepo(tmp_path, env):
    """The shipped Argo CD example as a repository: v1, then a commit changing the shared runtime's
    image, then an uncommitted third image in the working tree."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo, ignore=shutil.ignore_patterns(".expected"))
    _git(repo, "init", "-q", "-b", "main", env=env)
    _git(repo, "add", "-A", env=env)
    _git(repo, "commit", "-q", "-m", "v1", env=env)
    runtime = repo / "platform" / "runtimes" / "team-torch.yaml"
    _set_image(runtime, "registry.example.com/torch:committed")
    _git(repo, "commit", "-q", "-am", "v2", env=env)
    _set_image(runtime, "registry.example.com/torch:not-committed")
    return repo


def _images(data) -> set:
    return {line for line in json.dumps(data).split('"') if line.startswith(("pytorch/", "registry.example.com/"))}


def test_the_shipped_example_validates_and_diffs_with_no_variable(fn, monorepo, env, tmp_path):
    # The reproduction, as the workflow runs it: `cd "$app"`, validate, diff.
    app = monorepo / "apps" / "train"
    _git(monorepo, "checkout", "-q", "--", ".", env=env)
    trainjob = app / "trainjob.yaml"
    trainjob.write_text(trainjob.read_text().replace("numNodes: 2", "numNodes: 3"))
    assert "numNodes: 3" in trainjob.read_text()
    _git(monorepo, "commit", "-q", "-am", "v3", env=env)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    run_env = {**env, "TMPDIR": str(scratch)}
    done = subprocess.run([fn, "validate", "."], cwd=app, capture_output=True, text=True, env=run_env)
    assert done.returncode == 0, done.stderr
    for fmt in ("markdown", "json"):
        done = subprocess.run([fn, "diff", "HEAD~1", "HEAD", "--format", fmt], cwd=app, capture_output=True,
                              text=True, env=run_env)
        assert done.returncode == 1, done.stderr
        assert done.stderr.splitlines() == ["expand-trainjobs: changes"]
        assert str(scratch) not in done.stdout
    [job] = json.loads(done.stdout)["trainJobs"]
    paths = {f["path"]: (f["old"], f["new"]) for o in job["objects"] for f in o["fields"]}
    assert paths["spec.replicatedJobs.node.template.spec.parallelism"] == (2, 3)


def test_each_revision_reads_the_shared_runtime_at_that_revision(monorepo, env):
    text, lines, code = modes.diff_command("HEAD~1", "HEAD", "json", str(monorepo / "apps" / "train"), env)
    assert code == 1, lines
    images = _images(json.loads(text))
    assert "registry.example.com/torch:committed" in images
    assert "registry.example.com/torch:not-committed" not in images
    assert lines == ["expand-trainjobs: changes"]
    # The shared runtime, read from runtimeDirs and not among the app's items, is listed as changed.
    assert json.loads(text)["runtimes"] == [{"change": "changed", "runtime": "ClusterTrainingRuntime team-torch",
                                             "trainJobs": 1, "trainJobsChanged": ["mnist"]}]


def test_no_change_between_revisions_whatever_the_working_tree_holds(monorepo, env):
    text, lines, code = modes.diff_command("HEAD", "HEAD", "json", str(monorepo / "apps" / "train"), env)
    assert code == 0, (lines, text)


def test_the_working_tree_against_a_revision(monorepo, env):
    # `diff HEAD .`: the working tree's uncommitted image against the commit's.
    text, lines, code = modes.diff_command("HEAD", ".", "json", str(monorepo / "apps" / "train"), env)
    assert code == 1, lines
    assert "registry.example.com/torch:not-committed" in _images(json.loads(text))


def test_only_what_render_reads_is_written(monorepo, env, tmp_path, monkeypatch):
    from kpt_fn import gitrev

    (monorepo / "platform" / "other").mkdir()
    (monorepo / "platform" / "other" / "big.yaml").write_text("a: 1\n")
    (monorepo / "docs.yaml").write_text("a: 1\n")
    _git(monorepo, "add", "-A", env=env)
    _git(monorepo, "commit", "-q", "-m", "v3", env=env)
    written = []
    real = gitrev.Checkout._write

    def spy(self, plan):
        real(self, plan)
        written.extend(path for _, path in plan.files)

    monkeypatch.setattr(gitrev.Checkout, "_write", spy)
    _, lines, code = modes.diff_command("HEAD", "HEAD", "json", str(monorepo / "apps" / "train"), env)
    assert code == 0, lines
    assert sorted(set(written)) == ["apps/train/expand-trainjobs.yaml", "apps/train/trainjob.yaml",
                                    "platform/runtimes/team-torch.yaml"]


def test_a_root_outside_the_repository_is_read_as_it_is_now_and_said(monorepo, env, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**env, sources.EXTRA_ROOTS_ENV: os.pathsep.join([str(monorepo / "platform"), str(elsewhere)])}
    _, lines, code = modes.diff_command("HEAD~1", "HEAD", "json", str(monorepo / "apps" / "train"), env)
    assert code == 1, lines
    assert lines[1:] == [f"HEAD~1: extra root {elsewhere} is outside the repository: read as it is now, not at HEAD~1",
                         f"HEAD: extra root {elsewhere} is outside the repository: read as it is now, not at HEAD"]


def test_outside_git_the_app_directory_stays_the_root(tmp_path, env):
    # Two directories, no repository: `../../platform/runtimes` is outside each app directory.
    for side in ("old", "new"):
        shutil.copytree(EXAMPLE, tmp_path / side)
    env = {**env, "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    _, lines, code = modes.diff_command(str(tmp_path / "old" / "apps" / "train"), str(tmp_path / "new" / "apps" / "train"),
                                        "json", str(tmp_path), env)
    assert code == 2 and "outside the app directory" in "\n".join(lines), lines
