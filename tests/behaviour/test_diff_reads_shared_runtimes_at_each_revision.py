"""`diff OLD NEW` of an app whose runtimes live outside it (a monorepo's platform/runtimes, permitted
with EXPAND_TRAINJOBS_EXTRA_ROOTS): each side reads the shared runtimes at its own revision. Reading
them from today's working tree would show no change for a runtime edited between OLD and NEW, and
would show one nobody committed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from kpt_fn import sources
from kpt_fn.review import sides
from kpt_fn.cli import modes

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is needed on PATH")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "argocd-app"


def _git(repo, *args, env):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


@pytest.fixture
def env(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    return {**os.environ, "HOME": str(home), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
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


def test_each_revision_reads_the_shared_runtime_at_that_revision(monorepo, env):
    env = {**env, sources.EXTRA_ROOTS_ENV: str(monorepo / "platform")}
    text, lines, code = modes.diff_command("HEAD~1", "HEAD", "json", str(monorepo / "apps" / "train"), env)
    assert code == 1, lines
    images = _images(json.loads(text))
    assert "registry.example.com/torch:committed" in images
    assert "registry.example.com/torch:not-committed" not in images
    assert lines == ["expand-trainjobs: changes"]


def test_no_change_between_revisions_whatever_the_working_tree_holds(monorepo, env):
    env = {**env, sources.EXTRA_ROOTS_ENV: str(monorepo / "platform")}
    text, lines, code = modes.diff_command("HEAD", "HEAD", "json", str(monorepo / "apps" / "train"), env)
    assert code == 0, (lines, text)


def test_a_root_outside_the_repository_is_read_as_it_is_now_and_said(monorepo, env, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**env, sources.EXTRA_ROOTS_ENV: os.pathsep.join([str(monorepo / "platform"), str(elsewhere)])}
    _, lines, code = modes.diff_command("HEAD~1", "HEAD", "json", str(monorepo / "apps" / "train"), env)
    assert code == 1, lines
    assert lines[1:] == [f"HEAD~1: extra root {elsewhere} is outside the repository: read as it is now, not at HEAD~1",
                         f"HEAD: extra root {elsewhere} is outside the repository: read as it is now, not at HEAD"]


def test_a_root_missing_at_a_revision_is_an_empty_directory(monorepo, env):
    (monorepo / "platform" / "later").mkdir()
    env = {**env, sources.EXTRA_ROOTS_ENV: os.pathsep.join([str(monorepo / "platform"), str(monorepo / "platform" / "later"),
                                                             str(monorepo / "other")])}
    (monorepo / "other").mkdir()
    _, lines, code = modes.diff_command("HEAD~1", "HEAD", "json", str(monorepo / "apps" / "train"), env)
    assert code == 1, lines


@pytest.mark.parametrize("prefixes, expected", [
    (["apps/train", "platform"], ["platform", "apps/train"]),
    (["apps/train", ""], [""]),
    (["apps/train", "apps"], ["apps"]),
    (["apps/.hidden/train", "apps"], ["apps", "apps/.hidden/train"]),
    (["apps/train", "apps/train"], ["apps/train"]),
    (["app", "apps/x"], ["app", "apps/x"]),
])
def test_outermost_directories_are_extracted_once(prefixes, expected):
    assert sorted(sides._outermost(prefixes)) == sorted(expected)
