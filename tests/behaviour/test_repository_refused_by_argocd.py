"""`validate` and `render` in a git working tree say what Argo CD's repo-server would refuse about the
whole repository: a link anywhere in it that is absolute or leads out of it refuses every app ("repository
contains out-of-bounds symlinks", argo-cd v3.5.1 reposerver/repository/repository.go:478-492), so CI must
not say ok. Outside git, under the Argo CD sidecar (the repo-server judged the checkout before) and on
the kpt route (no Argo CD) nothing changes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import tiny_app

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is needed on PATH")

EXE = [sys.executable, "-m", "kpt_fn"]
RULE = "argocd/out-of-bounds-symlink"


def _app(root: Path) -> Path:
    app = root / "apps" / "a"
    app.mkdir(parents=True)
    (app / "runtime.yaml").write_text(tiny_app.RUNTIME)
    (app / "trainjob.yaml").write_text(tiny_app.trainjob())
    (app / "expand-trainjobs.yaml").write_text("apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nspec:\n  namespace: ml\n")
    return app


def _repository(tmp_path: Path, links: dict) -> Path:
    repo = tmp_path / "repo"
    _app(repo)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for name, target in links.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, repo / name)
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    return repo


def _run(cwd: Path, *args: str, env=None) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "EXPAND_TRAINJOBS_", "GIT_"))}
    base["PYTHONPATH"] = str(Path(__file__).parents[2])
    return subprocess.run([*EXE, *args], cwd=cwd, env={**base, **(env or {})}, capture_output=True, text=True,
                          timeout=300)


def test_validate_and_render_name_each_link_argocd_refuses(tmp_path):
    repo = _repository(tmp_path, {"docs/abs": "/etc/passwd", ".github/up": "../../x", "apps/a/ok.yaml": "trainjob.yaml"})
    text = _run(repo, "validate", "apps/a")
    assert text.returncode == 1
    lines = text.stderr.splitlines()
    assert lines[0] == "expand-trainjobs: FAILED: 2 error(s), 0 warning(s); validated 1 TrainJob(s)"
    assert lines[1].startswith(".github/up:1:1: error: .github/up is a symbolic link to '../../x', which leads out of the repository")
    assert lines[2].startswith("docs/abs:1:1: error: docs/abs is a symbolic link to '/etc/passwd'")  # named from the working directory
    github = _run(repo, "validate", "--format", "github", "apps/a")
    assert f"::error file=docs/abs,line=1,col=1,title={RULE}::docs/abs is a symbolic link" in github.stdout
    report = json.loads(_run(repo, "validate", "--format", "json", "apps/a").stdout)
    assert [(f["rule"], f["file"], f["line"]) for f in report["findings"]] == [
        (RULE, ".github/up", 1), (RULE, "docs/abs", 1)]
    render = _run(repo / "apps" / "a", "render")
    assert render.returncode == 1 and render.stdout == "" and "\n../../docs/abs:1:1: error: " in render.stderr


def test_every_app_of_the_repository_is_refused(tmp_path):
    repo = _repository(tmp_path, {"platform/abs": "/etc"})
    shutil.copytree(repo / "apps" / "a", repo / "apps" / "b")
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    done = _run(repo, "validate", "--find-apps")
    assert done.returncode == 1
    assert done.stderr.splitlines()[0] == "expand-trainjobs: FAILED: 2 of 2 app(s) failed (apps/a, apps/b)"


def test_controls_pass(tmp_path):
    """Links inside the repository (siblings, up and back in, a hidden directory), a link in .git and an
    untracked link (in no commit) are no concern."""
    repo = _repository(tmp_path, {"apps/a/also.yaml": "trainjob.yaml", "apps/a/shared": "../../platform",
                                  "platform/.cache/x": "../../apps", "top": "."})
    (repo / "platform").mkdir(exist_ok=True)
    os.symlink("/etc/passwd", repo / ".git" / "abs")
    os.symlink("/etc/passwd", repo / "untracked")
    for args in (("validate", "apps/a"), ("validate", "--find-apps"), ("render", "apps/a")):
        done = _run(repo, *args)
        assert done.returncode == 0, (args, done.stderr)


def test_outside_git_and_under_the_sidecar_nothing_changes(tmp_path):
    plain = tmp_path / "plain"
    _app(plain)
    os.symlink("/etc/passwd", plain / "abs")
    assert _run(plain, "validate", "apps/a").returncode == 0
    repo = _repository(tmp_path, {"docs/abs": "/etc/passwd"})
    # Under the sidecar the repo-server has judged the checkout already (and an operator's
    # --allow-oob-symlinks permits such links): the plugin renders.
    sidecar = _run(repo / "apps" / "a", "render", env={"ARGOCD_APP_SOURCE_PATH": "apps/a"})
    assert sidecar.returncode == 0, sidecar.stderr
    assert "kind: JobSet" in sidecar.stdout


def _commit(repo: Path, message: str, add: bool = True) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com"}
    if add:
        subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "-m", message], check=True, env=env)


def test_a_gitlink_missing_from_gitmodules_stops_validate_render_and_diff(tmp_path):
    """Argo CD's checkout runs `git submodule update --init --recursive` when .gitmodules exists, and git
    stops at a gitlink it gives no url for: every app of the repository fails, far from the app."""
    repo = _repository(tmp_path, {})
    (repo / ".gitmodules").write_text('[submodule "lib"]\n\tpath = vendor/lib\n\turl = https://example.com/lib.git\n')
    _commit(repo, "base")
    oid = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    for path in ("vendor/lib", "vendor/orphan"):
        subprocess.run(["git", "-C", str(repo), "update-index", "--add", "--cacheinfo", f"160000,{oid},{path}"], check=True)
    _commit(repo, "orphan gitlink", add=False)  # no directory in the working tree: `add -A` would drop them
    done = _run(repo, "validate", "--format", "github", "apps/a")
    assert done.returncode == 1
    assert ("::error file=.gitmodules,line=1,col=1,title=argocd/submodule-without-url::vendor/orphan is a git submodule "
            "(a gitlink) that .gitmodules gives no url for") in done.stdout
    assert "vendor/lib " not in done.stdout
    assert _run(repo / "apps" / "a", "render").returncode == 1
    diff = _run(repo / "apps" / "a", "diff", "HEAD~1", "HEAD")
    assert diff.returncode == 2
    assert "HEAD:vendor/orphan is a git submodule (a gitlink) that .gitmodules gives no url for" in diff.stderr
    assert "there is nothing to compare" in diff.stderr


def test_diff_names_a_path_that_is_not_utf8_once_escaped(tmp_path):
    repo = _repository(tmp_path, {})
    _commit(repo, "base")
    os.symlink("/etc/passwd", os.path.join(os.fsencode(repo), b"docs-\xff"))
    _commit(repo, "link")
    diff = _run(repo / "apps" / "a", "diff", "HEAD~1", "HEAD")
    assert diff.returncode == 2
    assert "HEAD:docs-\\xff is a symbolic link to '/etc/passwd'" in diff.stderr and "\\\\" not in diff.stderr
    validate = _run(repo, "validate", "apps/a")
    assert ": error: docs-\\xff is a symbolic link to '/etc/passwd'" in validate.stderr
