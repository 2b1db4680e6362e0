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
    # Hidden directories too: a link or a configured path can reach them, as in a checkout.
    assert found == [".hidden", ".hidden/x.yaml", "job.yaml", "kustomization.yaml", "link.yaml", "sub", "sub/rt.yml"]
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


def _commit(root):
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "next")


def _extract(app, dest, **kw):
    where = gitrev.repository(str(app), ENV)
    return gitrev.extract(where, gitrev.resolve(where, "HEAD"), "HEAD", str(dest), kw.pop("max_bytes", 10_000), **kw)


def test_resolve_link_follows_the_trees_links_and_stops_at_the_edge():
    links = {"a": "sub/deep", "b": "a/..", "loop": "loop", "up": "..", "abs": "/etc", "ok": "a/x.yaml",
             "dot": ".", "out": "dot/..", "hidden": ".h/job.txt"}
    assert gitrev.resolve_link(links, "ok") == "sub/deep/x.yaml"
    assert gitrev.resolve_link(links, "b") == "sub"  # `..` after a link: the link's target's parent
    assert gitrev.resolve_link(links, "hidden") == ".h/job.txt"
    for leaves in ("up", "abs", "loop", "out"):
        assert gitrev.resolve_link(links, leaves) is None, leaves
    assert gitrev.resolve_link({"d/l": "../x"}, "d/l") == "x"


def test_a_link_to_a_file_of_any_name_brings_its_target(repo, tmp_path):
    root, app = repo
    (app / ".h").mkdir()
    (app / ".h" / "job.txt").write_text("kind: TrainJob\n")
    os.symlink(".h/job.txt", app / "hidden.yaml")
    _commit(root)
    dest = _extract(app, tmp_path / "out")
    assert (tmp_path / "out" / "hidden.yaml").read_text() == "kind: TrainJob\n"
    assert dest == str(tmp_path / "out")


def test_a_hidden_link_out_of_the_app_directory_is_an_error_too(repo, tmp_path):
    root, app = repo
    os.symlink("../../../elsewhere", app / ".hidden" / "out")
    _commit(root)
    with pytest.raises(gitrev.RevisionError, match=r"HEAD:apps/train/.hidden/out is a symbolic link to '../../../elsewhere'"):
        _extract(app, tmp_path / "out")
    assert not (tmp_path / "out").exists()  # refused before anything is written


def test_limits_are_checked_while_the_tree_is_listed(repo, tmp_path):
    root, app = repo
    for i in range(30):
        (app / f"f{i}.yaml").write_text("a: 1\n")
    _commit(root)
    with pytest.raises(gitrev.RevisionError, match="more than 20 entries") as caught:
        _extract(app, tmp_path / "out", max_entries=20)
    assert str(tmp_path) not in str(caught.value) and not (tmp_path / "out").exists()


def test_a_name_longer_than_the_file_system_allows(repo, tmp_path):
    root, app = repo
    empty = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=root, input=b"a: 1\n", check=True,
                           capture_output=True, env=gitrev.git_env(ENV)).stdout.decode().strip()
    name = "n" * 300 + ".yaml"
    tree = subprocess.run(["git", "mktree"], cwd=root, input=f"100644 blob {empty}\t{name}\n".encode(), check=True,
                          capture_output=True, env=gitrev.git_env(ENV)).stdout.decode().strip()
    where = gitrev.repository(str(root), ENV)
    with pytest.raises(gitrev.RevisionError, match="300 bytes long|305 bytes long") as caught:
        gitrev.extract(where, tree, "T", str(tmp_path / "out"), 10_000, prefix="")
    assert str(tmp_path) not in str(caught.value)


def _raw_tree(root, entries: list) -> str:
    """A tree object written by hand, as an attacker would (git mktree refuses what these tests need):
    [(mode, name, blob text)]; its id."""
    import hashlib
    import zlib

    body = b""
    for mode, name, text in entries:
        blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=root, input=text, check=True,
                              capture_output=True, env=gitrev.git_env(ENV)).stdout.decode().strip()
        body += f"{mode} {name}".encode() + b"\0" + bytes.fromhex(blob)
    raw = b"tree %d\0" % len(body) + body
    oid = hashlib.sha1(raw).hexdigest()
    objdir = root / ".git" / "objects" / oid[:2]
    objdir.mkdir(exist_ok=True)
    (objdir / oid[2:]).write_bytes(zlib.compress(raw))
    return oid


def test_a_tree_with_a_duplicate_entry(repo, tmp_path):
    root, app = repo
    oid = _raw_tree(root, [("100644", "job.yaml", b"a: 1\n")] * 2)
    where = gitrev.repository(str(root), ENV)
    with pytest.raises(gitrev.RevisionError, match="holds 'job.yaml' twice"):
        gitrev.extract(where, oid, "T", str(tmp_path / "out"), 10_000, prefix="")


def test_an_old_file_mode_is_a_file_as_a_checkout_writes_it(repo, tmp_path):
    # 100664 (group-writable, from git before 2005) is written as a plain file by a checkout.
    root, app = repo
    oid = _raw_tree(root, [("100664", "job.yaml", b"kind: TrainJob\n")])
    where = gitrev.repository(str(root), ENV)
    gitrev.extract(where, oid, "T", str(tmp_path / "out"), 10_000, prefix="")
    assert (tmp_path / "out" / "job.yaml").read_text() == "kind: TrainJob\n"


def test_the_app_directory_or_a_parent_as_a_link_or_submodule(repo, tmp_path):
    root, app = repo
    (root / "apps" / "other").mkdir()
    (root / "apps" / "other" / "job.yaml").write_text("kind: Other\n")
    _commit(root)
    where = gitrev.repository(str(app), ENV)
    import shutil
    shutil.rmtree(app)
    os.symlink("other", app)
    _commit(root)
    with pytest.raises(gitrev.RevisionError, match="HEAD: apps/train is a symbolic link there"):
        gitrev.extract(where, gitrev.resolve(where, "HEAD"), "HEAD", str(tmp_path / "out"), 10_000)
    with pytest.raises(gitrev.RevisionError, match="apps/train is a symbolic link there"):
        gitrev.has_directory(where, gitrev.resolve(where, "HEAD"), "apps/train/sub")
    # The working directory reached through the link (the shell's $PWD names it): refused.
    with pytest.raises(gitrev.RevisionError, match="reached through apps/train, a symbolic link in the repository"):
        gitrev.repository(str(root / "apps" / "other"), {**ENV, "PWD": str(app)})
    # A link above the repository (e.g. /home to /var/home) is no concern.
    outer = tmp_path / "outer-link"
    os.symlink(str(root), outer)
    assert gitrev.repository(str(root / "apps" / "other"), {**ENV, "PWD": str(outer / "apps" / "other")}).prefix == "apps/other"


def test_a_submodule_in_the_app_directory_is_an_error(repo, tmp_path):
    root, app = repo
    head = git(root, "rev-parse", "HEAD")
    git(root, "update-index", "--add", "--cacheinfo", f"160000,{head},apps/train/vendored")
    git(root, "commit", "-q", "-m", "submodule")
    with pytest.raises(gitrev.RevisionError, match="apps/train/vendored is a git submodule"):
        _extract(app, tmp_path / "out")
