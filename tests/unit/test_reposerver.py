"""kpt_fn.reposerver: the links of a git working tree's index judged as Argo CD's repo-server judges a
checkout (argo-cd v3.5.1 util/app/path/path.go:50-107): refusals naming each link, and controls that
must pass (links inside the repository, to siblings, in .git, untracked, none at all)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from kpt_fn import gitrev, reposerver

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is needed on PATH")

MAX = 1 << 20


def _repo(tmp_path, links: dict, files=("apps/a/job.yaml",), add=True):
    repo = tmp_path / "repo"
    (repo / "apps" / "a").mkdir(parents=True)
    for name in files:
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text("a: 1\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for name, target in links.items():
        path = os.path.join(os.fsencode(repo), os.fsencode(name))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.symlink(os.fsencode(target), path)
    if add:
        subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, env={**os.environ, "HOME": str(tmp_path)})
    return repo


def _refused(repo, root=None):
    return reposerver.refusals(str(repo), str(root or repo / "apps" / "a"), {"PATH": os.environ["PATH"]}, MAX)


HOSTILE = [
    ("docs/abs", "/etc/passwd"),
    (".hidden/up", "../../outside"),  # hidden directories too: Argo CD skips only .git
    ("up", ".."),
    ("apps/a/deep", "../../../x"),
    ("apps/a/in-and-out", "jobs/../../../../x"),  # each step joined lexically, as Argo CD does
    ("dev", "/dev/zero"),  # never opened: a link's line is never looked for in what it leads to
]


@pytest.mark.parametrize(("link", "target"), HOSTILE)
def test_a_link_out_of_the_repository_is_an_error_naming_it(tmp_path, link, target):
    repo = _repo(tmp_path, {link: target})
    [r] = _refused(repo)
    assert r.severity == "error" and r.rule == reposerver.OUT_OF_BOUNDS_RULE
    assert r.message.startswith(f"{link} is a symbolic link to '{target}', which leads out of the repository: ")
    assert "repository contains out-of-bounds symlinks" in r.message and "path.go:50-107" in r.message
    assert r.file == os.path.relpath(repo / link, repo / "apps" / "a") and r.lineno == 1


CONTROLS = [
    {},  # no link at all
    {"apps/a/also.yaml": "job.yaml"},  # a sibling
    {"apps/a/shared": "../../platform"},  # up and back into the repository
    {"top": "."},
    {"apps/a/loop": "."},  # a loop is the reader's business, not Argo CD's check
    {"dangling": "missing/file"},  # dangling but inside: Argo CD judges the text, not what exists
    {"apps/a/.hidden/x": "../job.yaml"},
    {"weird name\n##[x]": "apps/a/job.yaml"},
]


@pytest.mark.parametrize("links", CONTROLS)
def test_links_that_stay_inside_the_repository_pass(tmp_path, links):
    assert _refused(_repo(tmp_path, links, files=("apps/a/job.yaml", "platform/rt.yaml"))) == []


def test_a_link_in_git_s_own_directory_and_an_untracked_link_are_not_judged(tmp_path):
    """Argo CD skips .git (repository.go:479 passes it as a skip path) and checks out commits: a link
    the index does not hold is in no commit."""
    repo = _repo(tmp_path, {})
    os.symlink("/etc/passwd", repo / ".git" / "abs")
    os.symlink("/etc/passwd", repo / "untracked")
    assert _refused(repo) == []


def test_the_index_is_judged_not_the_working_tree(tmp_path):
    repo = _repo(tmp_path, {"l": "/etc/passwd"})
    os.remove(repo / "l")
    os.symlink("inside", repo / "l")  # fixed in the working tree, not yet staged: the commit would hold /etc/passwd
    assert [r.file for r in _refused(repo)] == ["../../l"]


def test_every_link_is_named_and_many_are_counted(tmp_path):
    links = {f"l{i:03d}": "/x" for i in range(reposerver.MAX_NAMED + 3)}
    refused = _refused(_repo(tmp_path, links))
    assert [r.file for r in refused[:-1]] == [f"../../l{i:03d}" for i in range(reposerver.MAX_NAMED)]
    assert refused[-1].message == "3 more symbolic link(s) leading out of the repository not shown"


def test_a_link_name_that_is_not_utf8_is_named_once_escaped(tmp_path):
    [r] = _refused(_repo(tmp_path, {os.fsdecode(b"bad-\xff"): "/x"}))
    assert r.message.startswith("bad-\\xff is a symbolic link to '/x'") and r.file == "" and r.lineno == 0


def test_no_repository_git_knows_is_no_concern(tmp_path):
    (tmp_path / "repo" / ".git").mkdir(parents=True)  # found as a top level, but git knows no repository
    (tmp_path / "repo" / "apps" / "a").mkdir(parents=True)
    assert _refused(tmp_path / "repo") == []


def test_git_that_cannot_run_is_a_warning(tmp_path):
    repo = _repo(tmp_path, {"l": "/x"})
    [r] = reposerver.refusals(str(repo), str(repo), {"PATH": str(tmp_path / "nothing")}, MAX)
    assert r.severity == "warning" and r.rule == reposerver.UNCHECKED_RULE and "git is not installed" in r.message


def test_the_judgement_is_the_one_diff_makes():
    """One function judges both (gitrev.refused_links): the index here, each revision's tree in diff."""
    targets = dict(HOSTILE) | {"apps/a/also.yaml": "job.yaml", "top": "."}
    assert gitrev.refused_links(targets) == sorted(HOSTILE)


# --- submodules: what stops Argo CD's `git submodule update --init --recursive` -------------------------

def _with_gitlinks(tmp_path, gitlinks: list, gitmodules: str | None):
    """A repository whose index holds `gitlinks` (each at a commit of a real repository beside it, so
    that git itself can be asked) and, when given, a .gitmodules of that text."""
    sub = tmp_path / "sub"
    env = {**os.environ, "HOME": str(tmp_path), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", "init", "-q", str(sub)], check=True, env=env)
    subprocess.run(["git", "-C", str(sub), "commit", "-q", "--allow-empty", "-m", "x"], check=True, env=env)
    oid = subprocess.run(["git", "-C", str(sub), "rev-parse", "HEAD"], check=True, capture_output=True,
                         text=True).stdout.strip()
    repo = _repo(tmp_path, {})
    for path in gitlinks:
        subprocess.run(["git", "-C", str(repo), "update-index", "--add", "--cacheinfo", f"160000,{oid},{path}"],
                       check=True, env=env)
    if gitmodules is not None:
        (repo / ".gitmodules").write_text(gitmodules.replace("SUB", str(sub)))
        subprocess.run(["git", "-C", str(repo), "add", ".gitmodules"], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "-m", "c"], check=True, env=env)
    return repo, env


def _git_updates(repo, env) -> bool:
    """The oracle: git's own `submodule update --init --recursive`, run as Argo CD runs it after a
    checkout that holds a .gitmodules (local urls allowed, for the test)."""
    if not (repo / ".gitmodules").exists():
        return True  # Argo CD runs nothing then
    done = subprocess.run(["git", "-c", "protocol.file.allow=always", "-C", str(repo), "submodule", "update", "--init",
                           "--recursive"], capture_output=True, env=env)
    return done.returncode == 0


SUBMODULE_CASES = [
    # (gitlinks, .gitmodules, refused paths)
    (["lib"], None, []),  # no .gitmodules: nothing initialises it, the checkout leaves it empty
    (["lib"], '[submodule "lib"]\n\tpath = lib\n\turl = SUB\n', []),
    (["lib"], '[submodule "Lib.v2"]\n\tpath = lib\n\turl = SUB\n', []),  # a name with a dot and capitals
    (["a b"], '[submodule "x"]\n\tpath = "a b"\n\turl = SUB\n', []),
    ([], '[submodule "ghost"]\n\tpath = ghost\n\turl = SUB\n', []),  # an entry with no gitlink
    (["lib", "orphan"], '[submodule "lib"]\n\tpath = lib\n\turl = SUB\n', ["orphan"]),
    (["lib"], '[submodule "lib"]\n\tpath = lib\n', ["lib"]),  # a path without a url
    (["lib"], '[submodule "../x"]\n\tpath = lib\n\turl = SUB\n', ["lib"]),  # a name git ignores
    (["lib"], "", ["lib"]),  # an empty .gitmodules
    ([], '[submodule "a"\n\tpath = a\n', [".gitmodules"]),  # git cannot parse it: fails with no gitlink too
]


@pytest.mark.parametrize(("gitlinks", "gitmodules", "refused"), SUBMODULE_CASES)
def test_submodules_are_judged_as_git_submodule_update_judges_them(tmp_path, gitlinks, gitmodules, refused):
    repo, env = _with_gitlinks(tmp_path, gitlinks, gitmodules)
    results = reposerver.refusals(str(repo), str(repo / "apps" / "a"), {"PATH": os.environ["PATH"]}, MAX)
    assert [r.rule for r in results] == [reposerver.SUBMODULE_RULE] * len(refused)
    for path, r in zip(refused, results):
        assert r.message.startswith(f"{path} ") and r.file == "../../.gitmodules" and r.lineno == 1
        assert "util/git/client.go:763-768, 793-797" in r.message
    assert _git_updates(repo, env) == (not refused)
