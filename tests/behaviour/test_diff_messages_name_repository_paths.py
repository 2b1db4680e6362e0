"""Every failing `diff` of a revision names paths in the repository (`HEAD:path`, `<HEAD>/path`), never
the temporary directory a revision is written into: each case below fails in another place (git's
listing, the link check, the checkout, the reader, the render), and every output of it is scanned
for the scratch directory (TMPDIR), as written and as resolved."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is needed on PATH")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "argocd-app"
CONFIG = "apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nspec:\n{spec}"


def _git(repo, *args, env, stdin=None):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env,
                          input=stdin).stdout.decode().strip()


@pytest.fixture
def env(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "EXPAND_TRAINJOBS_"))}
    return {**env, "HOME": str(home), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}


def _config(repo, spec):
    (repo / "apps/train/expand-trainjobs.yaml").write_text(CONFIG.format(spec=spec))


def _absolute_link_elsewhere(repo, env):
    os.symlink("/etc/hostname", repo / "platform" / "host.yaml")


def _relative_link_out(repo, env):
    (repo / ".github").mkdir()
    os.symlink("../../outside", repo / ".github" / "up")


def _chain_out(repo, env):
    os.symlink(".", repo / "dot")
    os.symlink("../../dot/..", repo / "apps/train/up")


def _missing_runtime_dir(repo, env):
    _config(repo, "  runtimeDirs: [../../platform/gone]\n")


def _missing_file(repo, env):
    _config(repo, "  runtimeDirs: [../../platform/runtimes]\n  files: [../../.stash/missing.yaml]\n")


def _bad_yaml_in_shared_runtimes(repo, env):
    (repo / "platform/runtimes/broken.yaml").write_text("a: [\n")


def _bad_marker(repo, env):
    (repo / "apps/train/expand-trainjobs.yaml").write_text("spec: {runtimeDirs: [\n")


def _submodule_read(repo, env):
    (repo / ".gitmodules").write_text('[submodule "m"]\n\tpath = platform/runtimes/vendor\n\turl = https://e.com/m\n')
    (repo / "platform/runtimes/vendor").mkdir()
    _git(repo, "add", "-A", env=env)
    head = _git(repo, "rev-parse", "HEAD", env=env)
    _git(repo, "update-index", "--add", "--cacheinfo", f"160000,{head},platform/runtimes/vendor", env=env)


def _not_utf8_runtime(repo, env):
    (repo / "platform/runtimes" / os.fsdecode(b"rt-\xff.yaml")).write_text("a: 1\n")


def _too_big(repo, env):
    (repo / "platform/runtimes/huge.yaml").write_text("x: " + "y" * (65 * 1024 * 1024) + "\n")


def _app_gone(repo, env):
    shutil.rmtree(repo / "apps/train")
    (repo / "apps/train").mkdir()  # the working directory stays; the commit has no app directory


def _runtime_dir_is_a_file(repo, env):
    _config(repo, "  runtimeDirs: [../../platform/runtimes/team-torch.yaml]\n")


def _link_loop(repo, env):
    os.symlink("loop.yaml", repo / "apps/train/loop.yaml")


CASES = {  # what each case does, and what the first line of a failing side says
    _absolute_link_elsewhere: "HEAD:platform/host.yaml is a symbolic link to '/etc/hostname', which leads out of the repository",
    _relative_link_out: "HEAD:.github/up is a symbolic link to '../../outside', which leads out of the repository",
    _chain_out: "HEAD:apps/train/up leads out of the repository through the link dot",
    _missing_runtime_dir: "not found: tried <HEAD>/platform/gone (relative to the app directory <HEAD>/apps/train)",
    _missing_file: "not found: tried <HEAD>/.stash/missing.yaml (relative to the app directory <HEAD>/apps/train)",
    _bad_yaml_in_shared_runtimes: "runtimeDirs: ../../platform/runtimes/broken.yaml: line 2",
    _bad_marker: "<HEAD>/apps/train/expand-trainjobs.yaml: line 2",
    _submodule_read: "HEAD:platform/runtimes/vendor is a git submodule that render reads",
    _not_utf8_runtime: "platform/runtimes/rt-",
    _too_big: "HEAD:platform/runtimes/huge.yaml is 68157444 bytes, more than the 67108864 bytes",
    _app_gone: "HEAD: the app directory apps/train is not in that commit",
    _runtime_dir_is_a_file: "runtime directory '../../platform/runtimes/team-torch.yaml' is not a directory",
    _link_loop: "loop.yaml: cannot read: Too many levels of symbolic links",
}


@pytest.mark.parametrize("case", list(CASES), ids=[c.__name__.strip("_") for c in CASES])
def test_a_failing_diff_names_no_temporary_path(fn, case, tmp_path, env):
    why = CASES[case]
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    _git(repo, "init", "-q", "-b", "main", env=env)
    _git(repo, "add", "-A", env=env)
    _git(repo, "commit", "-q", "-m", "v1", env=env)
    case(repo, env)
    _git(repo, "add", "-A", env=env)
    _git(repo, "commit", "-q", "-m", "v2", env=env)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    app = repo / "apps" / "train"
    outputs = []
    for args in (["HEAD~1", "HEAD"], ["HEAD", "HEAD~1"], ["HEAD", "."]):
        for fmt in ("markdown", "json"):
            done = subprocess.run([fn, "diff", *args, "--format", fmt], cwd=app, capture_output=True, text=True,
                                  env={**env, "TMPDIR": str(scratch)})
            outputs.append((args, fmt, done))
    failed = [(a, f, d) for a, f, d in outputs if d.returncode == 2]
    assert failed, [d.stderr for _, _, d in outputs]
    for args, fmt, done in outputs:
        assert done.returncode in (0, 1, 2) and "Traceback" not in done.stderr, done.stderr
        text = done.stdout + done.stderr
        for scratch_name in {str(scratch), os.path.realpath(scratch), "expand-trainjobs-diff-"}:
            assert scratch_name not in text, (args, fmt, text)
    assert list(scratch.iterdir()) == []  # and nothing left behind
    # The first line says what failed, naming the revision.
    for args, fmt, done in failed:
        first = done.stderr.splitlines()[0]
        assert first.startswith("expand-trainjobs: FAILED: "), first
        assert why in done.stderr, done.stderr


def test_the_controls_pass(fn, tmp_path, env):
    # The same repository with unusual but valid content: a link into a hidden directory elsewhere in
    # the repository, a link outside the app directory to the shared runtimes, a submodule render never reads (under a
    # hidden directory, and outside the app's reach), a non-UTF-8 name elsewhere.
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    _git(repo, "init", "-q", "-b", "main", env=env)
    _git(repo, "add", "-A", env=env)
    _git(repo, "commit", "-q", "-m", "v1", env=env)
    (repo / "platform/.shared").mkdir()
    shutil.move(repo / "platform/runtimes/team-torch.yaml", repo / "platform/.shared/team-torch.yaml")
    os.symlink("../.shared/team-torch.yaml", repo / "platform/runtimes/team-torch.yaml")
    os.symlink("../platform/runtimes", repo / "apps/shared")  # a link outside the app directory
    _config(repo, "  runtimeDirs: [../shared]\n")
    (repo / ".gitmodules").write_text('[submodule "m"]\n\tpath = .vendor/m\n\turl = https://e.com/m\n')
    (repo / ".vendor/m").mkdir(parents=True)
    (repo / "docs").mkdir()
    (repo / "docs" / os.fsdecode(b"notes-\xff.md")).write_text("elsewhere\n")
    _git(repo, "add", "-A", env=env)
    head = _git(repo, "rev-parse", "HEAD", env=env)
    _git(repo, "update-index", "--add", "--cacheinfo", f"160000,{head},.vendor/m", env=env)
    _git(repo, "commit", "-q", "-m", "v2", env=env)
    done = subprocess.run([fn, "diff", "HEAD~1", "HEAD", "--format", "json"], cwd=repo / "apps/train",
                          capture_output=True, text=True, env=env)
    # the same runtime, reached another way: no object changes; the config's runtimeDirs did change, a
    # guardrail diff shows on its own (kpt_fn/review/guardrails.py)
    data = json.loads(done.stdout)
    assert (data["trainJobs"], data["runtimes"]) == ([], []), done.stdout
    assert [o["option"] for o in data["guardrails"]["options"]] == ["runtimeDirs"]
    assert done.returncode == 1 and done.stderr.splitlines() == ["expand-trainjobs: changes"]
