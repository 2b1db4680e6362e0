"""kpt_fn.gitrev: what render reads at a git revision, read from git's objects exactly as committed,
with nothing of the caller's git configuration running, and the repository's links judged as Argo
CD's repo-server judges them (the hostile repositories are in
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
    tree = gitrev.read_tree(where, commit, "HEAD", 10_000)
    assert [tree.kind(p) for p in ("apps/train", "", "apps/train/job.yaml", "apps/other")] == ["tree", "tree", "blob", None]


def test_an_ambiguous_name_is_an_error(repo):
    root, app = repo
    git(root, "tag", "v1")
    git(root, "branch", "v1")
    with pytest.raises(gitrev.RevisionError, match="ambiguous"):
        gitrev.resolve(gitrev.repository(str(app), ENV), "v1")


def _commit(root):
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "next")


def _checkout(app, dest, rev="HEAD", max_bytes=10_000, **kw) -> gitrev.Checkout:
    where = gitrev.repository(str(app), ENV)
    commit = gitrev.resolve(where, rev) or rev
    tree = gitrev.read_tree(where, commit, rev, max_bytes)
    os.makedirs(dest, exist_ok=True)
    return gitrev.Checkout(where, tree, str(dest), max_bytes, **kw)


def _found(dest) -> list:
    return sorted(str(p.relative_to(dest)) for p in dest.rglob("*"))


def test_the_app_directory_is_written_as_render_walks_it(repo, tmp_path):
    root, app = repo
    dest = tmp_path / "out"
    (app / "job.yaml").write_text("changed in the working tree\n")  # the commit's bytes, not the checkout's
    assert _checkout(app, dest).materialise("apps/train") == "tree"
    # What the walk reads: YAML names (the marker and kustomize files too), links; not below hidden
    # names (a link or a configured path that reaches one writes it on its own), no other file.
    assert _found(dest) == ["apps", "apps/train", "apps/train/job.yaml", "apps/train/kustomization.yaml",
                            "apps/train/link.yaml", "apps/train/sub", "apps/train/sub/rt.yml"]
    assert (dest / "apps/train/job.yaml").read_text() == "kind: TrainJob\n"
    assert os.readlink(dest / "apps/train/link.yaml") == "job.yaml"


def test_a_configured_path_is_written_when_the_reader_asks(repo, tmp_path):
    root, app = repo
    (root / "platform" / "runtimes").mkdir(parents=True)
    (root / "platform" / "runtimes" / "rt.yaml").write_text("kind: ClusterTrainingRuntime\n")
    (root / "platform" / "README.md").write_text("not read\n")
    _commit(root)
    dest = tmp_path / "out"
    checkout = _checkout(app, dest)
    checkout.materialise("apps/train")
    assert not (dest / "platform").exists()  # nothing render does not read
    checkout.prepare(str(dest / "platform" / "runtimes"))
    assert (dest / "platform/runtimes/rt.yaml").read_text() == "kind: ClusterTrainingRuntime\n"
    checkout.prepare(str(dest / "apps/train/.hidden"))  # a hidden directory named by the config
    assert (dest / "apps/train/.hidden/x.yaml").exists()
    checkout.prepare(str(dest / "apps/train/notes.txt"))  # a file named by the config: whatever its name
    assert (dest / "apps/train/notes.txt").exists()
    checkout.prepare(str(tmp_path / "elsewhere"))  # not in the repository: nothing
    assert checkout.materialise("apps/none") is None


def test_the_size_limit_counts_every_request(repo, tmp_path):
    root, app = repo
    with pytest.raises(gitrev.RevisionError, match="more than the 10 bytes"):
        _checkout(app, tmp_path / "a", max_bytes=10).materialise("apps/train")
    checkout = _checkout(app, tmp_path / "b", max_bytes=60)
    checkout.materialise("apps/train/job.yaml")
    with pytest.raises(gitrev.RevisionError, match="the files render reads hold more than 60 bytes"):
        checkout.materialise("apps/train")


def test_follow_resolves_through_the_trees_links_as_the_kernel_does():
    links = {"a": "sub/deep", "b": "a/..", "loop": "loop", "ok": "a/x.yaml", "hidden": ".h/job.txt",
             "d/l": "../x", "dot": "."}
    assert gitrev.follow(links, "ok") == ("sub/deep/x.yaml", ["ok", "a"])
    assert gitrev.follow(links, "b")[0] == "sub"  # `..` after a link: the link's target's parent
    assert gitrev.follow(links, "hidden")[0] == ".h/job.txt"
    assert gitrev.follow(links, "d/l")[0] == "x"
    assert gitrev.follow(links, "a/y/z")[0] == "sub/deep/y/z"  # a path through a link
    assert gitrev.follow(links, "loop")[0] is None  # ELOOP: left to the reader, as in a checkout
    for leaves in ({"up": ".."}, {"abs": "/etc"}, {"dot": ".", "out": "dot/.."}):
        with pytest.raises(gitrev._Escape):
            gitrev.follow(leaves, next(iter(leaves)) if len(leaves) == 1 else "out")


@pytest.mark.parametrize("path, target, refused", [
    ("l", "/etc/passwd", True),       # absolute: refused, wherever it points
    ("l", "..", True),
    ("a/l", "../x", False),
    ("a/l", "../../x", True),
    ("a/l", "../a/../../x", True),    # each step is judged, not only where it ends
    ("l", "a/../b", False),
    ("l", "dot/..", False),           # lexical: a chain through another link is not seen (follow sees it)
    ("l", "./././x", False),
])
def test_out_of_bounds_as_argo_cds_check(path, target, refused):
    assert gitrev.out_of_bounds(path, target) is refused


def test_a_link_out_of_the_repository_anywhere_refuses_the_revision(repo, tmp_path):
    root, app = repo
    (root / "docs").mkdir()
    os.symlink("../../outside.yaml", root / "docs" / "out")  # outside the app directory, and hidden from it
    _commit(root)
    with pytest.raises(gitrev.RevisionError, match=r"HEAD:docs/out is a symbolic link to '../../outside.yaml', "
                                                   r"which leads out of the repository: Argo CD refuses"):
        _checkout(app, tmp_path / "out")
    assert not (tmp_path / "out").exists()  # refused before anything is written


def test_a_link_inside_the_repository_is_followed_wherever_it_leads(repo, tmp_path):
    root, app = repo
    (root / "platform" / ".h").mkdir(parents=True)
    (root / "platform" / ".h" / "job.txt").write_text("kind: TrainJob\n")
    (root / "platform" / "shared").mkdir()
    (root / "platform" / "shared" / "rt.yaml").write_text("kind: ClusterTrainingRuntime\n")
    os.symlink("../../platform/.h/job.txt", app / "hidden.yaml")  # a file of any name below a hidden directory
    os.symlink("../../platform/shared", app / "shared")           # a directory elsewhere in the repository
    os.symlink("../../platform/.h/job.txt", app / "notes")        # a file the walk does not read: not written
    _commit(root)
    dest = tmp_path / "out"
    _checkout(app, dest).materialise("apps/train")
    assert (dest / "apps/train/hidden.yaml").read_text() == "kind: TrainJob\n"
    assert (dest / "apps/train/shared/rt.yaml").read_text() == "kind: ClusterTrainingRuntime\n"
    assert os.path.islink(dest / "apps/train/notes")
    assert sorted(p.name for p in (dest / "platform" / ".h").iterdir()) == ["job.txt"]  # once, for hidden.yaml


def test_a_chain_of_links_out_of_the_repository_is_an_error(repo, tmp_path):
    root, app = repo
    os.symlink(".", root / "dot")
    os.symlink("../../dot/..", app / "up")  # lexically inside; the kernel resolves it above the root
    _commit(root)
    with pytest.raises(gitrev.RevisionError, match="HEAD:apps/train/up leads out of the repository through the link dot"):
        _checkout(app, tmp_path / "out").materialise("apps/train")


def test_the_app_directory_as_a_link_is_followed_as_argo_cd_follows_it(repo, tmp_path):
    root, app = repo
    (root / "apps" / "other").mkdir()
    (root / "apps" / "other" / "job.yaml").write_text("kind: Other\n")
    _commit(root)
    where = gitrev.repository(str(app), ENV)
    import shutil
    shutil.rmtree(app)
    os.symlink("other", app)
    _commit(root)
    dest = tmp_path / "out"
    tree = gitrev.read_tree(where, gitrev.resolve(where, "HEAD"), "HEAD", 10_000)
    assert gitrev.Checkout(where, tree, str(dest), 10_000).materialise("apps/train") == "tree"
    assert (dest / "apps/train/job.yaml").read_text() == "kind: Other\n"  # through the link, as a checkout
    # The working directory reached through the link (the shell's $PWD names it): refused.
    with pytest.raises(gitrev.RevisionError, match="reached through apps/train, a symbolic link in the repository"):
        gitrev.repository(str(root / "apps" / "other"), {**ENV, "PWD": str(app)})
    # A link above the repository (e.g. /home to /var/home) is no concern.
    outer = tmp_path / "outer-link"
    os.symlink(str(root), outer)
    assert gitrev.repository(str(root / "apps" / "other"), {**ENV, "PWD": str(outer / "apps" / "other")}).prefix == "apps/other"


def test_limits_are_checked_before_anything_is_written(repo, tmp_path):
    root, app = repo
    for i in range(30):
        (app / f"f{i}.yaml").write_text("a: 1\n")
    _commit(root)
    with pytest.raises(gitrev.RevisionError, match="more than 20 entries") as caught:
        _checkout(app, tmp_path / "out", max_entries=20).materialise("apps/train")
    assert str(tmp_path) not in str(caught.value) and _found(tmp_path / "out") == []
    where = gitrev.repository(str(app), ENV)
    with pytest.raises(gitrev.RevisionError, match="the repository holds more than 20 entries"):
        gitrev.read_tree(where, gitrev.resolve(where, "HEAD"), "HEAD", 10_000, max_entries=20)


def test_a_name_longer_than_the_file_system_allows(repo, tmp_path):
    root, app = repo
    empty = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=root, input=b"a: 1\n", check=True,
                           capture_output=True, env=gitrev.git_env(ENV)).stdout.decode().strip()
    name = "n" * 300 + ".yaml"
    tree = subprocess.run(["git", "mktree"], cwd=root, input=f"100644 blob {empty}\t{name}\n".encode(), check=True,
                          capture_output=True, env=gitrev.git_env(ENV)).stdout.decode().strip()
    where = gitrev.repository(str(root), ENV)
    with pytest.raises(gitrev.RevisionError, match="300 bytes long|305 bytes long") as caught:
        gitrev.read_tree(where, tree, "T", 10_000)
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
        gitrev.read_tree(where, oid, "T", 10_000)


def test_an_old_file_mode_is_a_file_as_a_checkout_writes_it(repo, tmp_path):
    # 100664 (group-writable, from git before 2005) is written as a plain file by a checkout.
    root, app = repo
    oid = _raw_tree(root, [("100664", "job.yaml", b"kind: TrainJob\n")])
    where = gitrev.repository(str(root), ENV)
    gitrev.Checkout(where, gitrev.read_tree(where, oid, "T", 10_000), str(tmp_path), 10_000).materialise("")
    assert (tmp_path / "job.yaml").read_text() == "kind: TrainJob\n"


def _submodule(root, path):
    git(root, "update-index", "--add", "--cacheinfo", f"160000,{git(root, 'rev-parse', 'HEAD')},{path}")
    git(root, "commit", "-q", "-m", "submodule")


def test_a_submodule_render_reads_is_refused_where_argo_cd_checks_it_out(repo, tmp_path):
    root, app = repo
    (root / ".gitmodules").write_text('[submodule "v"]\n\tpath = apps/train/vendored\n\turl = https://example.com/v\n')
    git(root, "add", ".gitmodules")
    _submodule(root, "apps/train/vendored")
    with pytest.raises(gitrev.RevisionError, match="HEAD:apps/train/vendored is a git submodule that render reads"):
        _checkout(app, tmp_path / "out").materialise("apps/train")


def test_a_submodule_render_does_not_read_is_no_concern(repo, tmp_path):
    root, app = repo
    (root / ".gitmodules").write_text('[submodule "v"]\n\tpath = apps/train/.hidden/v\n\turl = https://example.com/v\n')
    git(root, "add", ".gitmodules")
    _submodule(root, "apps/train/.hidden/v")
    _checkout(app, tmp_path / "out").materialise("apps/train")  # the walk never enters .hidden
    with pytest.raises(gitrev.RevisionError, match="is a git submodule that render reads"):
        _checkout(app, tmp_path / "out2").materialise("apps/train/.hidden/v/runtimes")  # a configured path into it


def test_a_submodule_without_gitmodules_is_an_empty_directory(repo, tmp_path):
    # Argo CD initialises submodules only when .gitmodules exists (client.go:793): git's checkout leaves
    # a gitlink an empty directory.
    root, app = repo
    _submodule(root, "apps/train/vendored")
    dest = tmp_path / "out"
    _checkout(app, dest).materialise("apps/train")
    assert (dest / "apps/train/vendored").is_dir() and _found(dest / "apps/train/vendored") == []
