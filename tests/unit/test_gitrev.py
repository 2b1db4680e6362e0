"""kpt_fn.gitrev: an app's files at a git revision, read from git's objects exactly as committed, with
nothing of the caller's git configuration running (the hostile repositories are in
tests/behaviour/test_review_hostile_repositories.py)."""

from __future__ import annotations

import os
import subprocess

import pytest

from kpt_fn import gitrev

ENV = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/")}


def git(cwd, *args):
    env = {**gitrev.git_env(ENV), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True).stdout.decode().strip()


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    app = root / "apps" / "train"
    (app / "sub").mkdir(parents=True)
    (app / ".hidden").mkdir()
    (app / "job.yaml").write_text("kind: TrainJob\n")
    (app / "sub" / "rt.yml").write_text("kind: ClusterTrainingRuntime\n")
    (app / "kustomization.yaml").write_text("resources: [job.yaml]\n")
    (app / "notes.txt").write_text("not read\n")
    (app / ".hidden" / "x.yaml").write_text("kind: Hidden\n")
    os.symlink("job.yaml", app / "link.yaml")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "one")
    return root, app


def test_git_env_drops_the_callers_git_variables():
    env = gitrev.git_env({"GIT_DIR": "/elsewhere", "GIT_SSH_COMMAND": "evil", "PATH": "/bin"})
    assert "GIT_DIR" not in env and "GIT_SSH_COMMAND" not in env and env["PATH"] == "/bin"
    assert (env["GIT_CONFIG_NOSYSTEM"], env["GIT_CONFIG_GLOBAL"], env["GIT_NO_REPLACE_OBJECTS"]) == ("1", os.devnull, "1")
    assert gitrev.git_env(None)["LC_ALL"] == "C"


def test_outside_a_repository_there_is_none(tmp_path):
    assert gitrev.repository(str(tmp_path), ENV) is None


def test_the_app_directorys_place_and_the_revision(repo):
    root, app = repo
    where = gitrev.repository(str(app), ENV)
    assert where.prefix == "apps/train"
    assert os.path.realpath(where.top) == os.path.realpath(root)
    commit = gitrev.resolve(where, "HEAD")
    assert commit == git(root, "rev-parse", "HEAD")
    assert gitrev.resolve(where, "no-such-branch") is None
    assert gitrev.has_directory(where, commit, "apps/train") and gitrev.has_directory(where, commit, "")
    assert not gitrev.has_directory(where, commit, "apps/train/job.yaml")  # a file, not a directory
    assert not gitrev.has_directory(where, commit, "apps/other")


def test_an_ambiguous_name_is_an_error(repo):
    root, app = repo
    git(root, "tag", "v1")
    git(root, "branch", "v1")
    with pytest.raises(gitrev.RevisionError, match="ambiguous"):
        gitrev.resolve(gitrev.repository(str(app), ENV), "v1")


def test_extract_writes_what_render_reads(repo, tmp_path):
    root, app = repo
    where = gitrev.repository(str(app), ENV)
    dest = tmp_path / "out"
    dest.mkdir()
    (app / "job.yaml").write_text("changed in the working tree\n")  # the commit's bytes, not the checkout's
    assert gitrev.extract(where, gitrev.resolve(where, "HEAD"), "HEAD", str(dest), 10_000) == str(dest)
    found = sorted(str(p.relative_to(dest)) for p in dest.rglob("*"))
    assert found == ["job.yaml", "kustomization.yaml", "link.yaml", "sub", "sub/rt.yml"]
    assert (dest / "job.yaml").read_text() == "kind: TrainJob\n"
    assert os.readlink(dest / "link.yaml") == "job.yaml"


def test_extract_of_another_directory_and_the_size_limit(repo, tmp_path):
    root, app = repo
    where = gitrev.repository(str(app), ENV)
    commit = gitrev.resolve(where, "HEAD")
    with pytest.raises(gitrev.RevisionError, match="more than the 10 bytes"):
        gitrev.extract(where, commit, "HEAD", str(tmp_path / "a"), 10)
    with pytest.raises(gitrev.RevisionError, match="HEAD: the directory apps/none is not in that commit"):
        gitrev.extract(where, commit, "HEAD", str(tmp_path / "b"), 10_000, prefix="apps/none")


def test_a_link_out_of_the_app_directory_is_an_error(repo, tmp_path):
    root, app = repo
    os.symlink("../../outside.yaml", app / "out.yaml")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "two")
    where = gitrev.repository(str(app), ENV)
    with pytest.raises(gitrev.RevisionError, match="outside the app directory"):
        gitrev.extract(where, gitrev.resolve(where, "HEAD"), "HEAD", str(tmp_path / "c"), 10_000)
