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
