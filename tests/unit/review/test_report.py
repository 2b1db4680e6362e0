"""kpt_fn.review.report (and the diff beside it) through the commands: `expand-trainjobs report` and
`diff` on a fixture repository at two revisions made here: a runtime image bump affecting three
TrainJobs, one numNodes change, one new TrainJob (fixtures/review/).

Golden files: fixtures/review/*.md|json. To refresh them after an intended change, run with
EXPAND_TRAINJOBS_UPDATE_GOLDEN=1: the files are rewritten and the test FAILS, so that an update never
passes unseen; review the diff of the files and run again."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess

from support import golden_text
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
FIXTURE = ROOT / "fixtures" / "review"


def _git(repo, *args):
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    assert shutil.which("git"), "git is needed on PATH"
    repo = tmp_path_factory.mktemp("review") / "repo"
    shutil.copytree(FIXTURE / "repo", repo)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "v1")
    runtime = repo / "runtime.yaml"
    runtime.write_text(runtime.read_text().replace("torch:2.7.0", "torch:2.8.0"))
    mnist = repo / "jobs" / "mnist.yaml"
    mnist.write_text(mnist.read_text().replace("numNodes: 1", "numNodes: 2"))
    (repo / "jobs" / "llama.yaml").write_text((repo / "jobs" / "bert.yaml").read_text().replace("name: bert", "name: llama"))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "v2")
    return repo


def _golden(name: str, text: str):
    golden_text.check(FIXTURE / name, text)


def _run(fn, cwd, *args):
    return subprocess.run([fn, *args], cwd=cwd, capture_output=True, text=True)


@pytest.mark.parametrize("fmt, name", [("markdown", "report.md"), ("json", "report.json")])
def test_report(repo, fn, fmt, name):
    done = _run(fn, repo, "report", "--format", fmt)
    assert done.returncode == 0, done.stderr
    _golden(name, done.stdout)


@pytest.mark.parametrize("fmt, name", [("markdown", "diff.md"), ("json", "diff.json")])
def test_diff_between_revisions(repo, fn, fmt, name):
    done = _run(fn, repo, "diff", "HEAD~1", "HEAD", "--format", fmt)
    assert done.returncode == 1, done.stderr  # like diff(1): changes
    assert done.stderr.splitlines()[0] == "expand-trainjobs: changes"
    _golden(name, done.stdout)


def test_diff_facts(repo, fn):
    data = json.loads(_run(fn, repo, "diff", "HEAD~1", "HEAD", "--format", "json").stdout)
    assert data["summary"] == {"added": 1, "removed": 0, "changed": 4, "failed": 0, "refused": 4}
    [rt] = data["runtimes"]
    assert rt["runtime"] == "TrainingRuntime ml/torch-team" and rt["trainJobs"] == 4
    assert rt["trainJobsChanged"] == ["ml/bert", "ml/gpt", "ml/resnet"]
    mnist = next(j for j in data["trainJobs"] if j["trainJob"] == "research/mnist")
    paths = {f["path"] for o in mnist["objects"] for f in o.get("fields", ())}
    assert "spec.replicatedJobs.node.template.spec.parallelism" in paths


def test_no_change_is_exit_0(repo, fn):
    done = _run(fn, repo, "diff", "HEAD", ".")
    assert done.returncode == 0 and "No rendered object changes." in done.stdout


def test_directories_and_errors(repo, fn, tmp_path):
    done = _run(fn, tmp_path, "diff", str(repo), str(repo))
    assert done.returncode == 0
    done = _run(fn, repo, "diff", "no-such-rev", "HEAD")
    assert done.returncode == 2 and "neither a directory nor a git revision" in done.stderr
    broken = tmp_path / "broken"
    shutil.copytree(repo, broken, ignore=shutil.ignore_patterns(".git"))
    (broken / "runtime.yaml").unlink()
    done = _run(fn, tmp_path, "diff", str(repo), str(broken))
    assert done.returncode == 2 and "does not render" in done.stderr.splitlines()[0]
