"""The shipped monorepo example (examples/monorepo: several teams' apps, shared runtimes, per-app
policies, both profiles, both Trainer releases, a kpt package and a kustomization) checked the way CI
checks it: the shipped workflow's `run:` steps as GitHub's runner runs them (tests/support/github_workflow.py)
with APPS listing the apps and with APPS empty (--find-apps), on a push and on a pull request (its diff
step compares each app between the base and the change, the shared runtime read at each revision),
and the pre-commit hooks as pre-commit runs them; `report` of several apps, and `render`, `validate`
and `report` agreeing on each app's namespace. And the two mistakes CI must catch when every app is checked in one run (issue 32): team-b over
its own GPU limit, and a Kueue queue name with a typo.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from support import github_workflow as gw
from support import pre_commit
from support import shipped_examples as ex

EXAMPLE = ex.EXAMPLES / "monorepo"
APPS = ["apps/team-a/llm-finetune", "apps/team-a/mnist", "apps/team-b/eval", "apps/team-b/llm-finetune",
        "apps/team-c/vision", "apps/team-d/speech"]
KPT_PACKAGE = "apps/team-a/mnist"
# The workflow's settings as the platform team sets them: every app found (APPS empty), or listed.
FOUND = {"APPS": "", "KPT_PACKAGES": KPT_PACKAGE}
LISTED = {"APPS": " ".join(APPS), "KPT_PACKAGES": KPT_PACKAGE}
STEPS_ON_A_PUSH = ["actions/checkout", "actions/setup-python", "Install expand-trainjobs", "Validate",
                   "Upload the findings to code scanning", "Committed kpt output is current", "Fail on validation errors"]
STEPS_ON_A_PULL_REQUEST = [*STEPS_ON_A_PUSH[:-1], "What the change does to the rendered objects", STEPS_ON_A_PUSH[-1]]


def monorepo(tmp_path: Path) -> Path:
    """The example as a clone of the platform repository: its files committed on main."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo, ignore=shutil.ignore_patterns(".expected"))
    gw.git(repo, "init", "-q")
    gw.git(repo, "add", "-A")
    gw.git(repo, "commit", "-qm", "platform repository")
    return repo


def edit(repo: Path, rel: str, old: str, new: str) -> None:
    path = repo / rel
    assert old in path.read_text(), (rel, old)
    path.write_text(path.read_text().replace(old, new))


# team-b's guardrail is 4 GPUs per TrainJob; two nodes of 4 GPUs are 8.
OVER_THE_LIMIT = ("apps/team-b/llm-finetune/trainjob.yaml", "numNodes: 1", "numNodes: 2")
QUEUE_TYPO = ("apps/team-c/vision/trainjob.yaml", "queue-name: gpu-queue", "queue-name: gpu-queu")


@pytest.fixture()
def stubs(tmp_path):
    return gw.stubs(tmp_path / "bin")


@pytest.mark.parametrize("settings", [FOUND, LISTED], ids=["apps-found", "apps-listed"])
def test_the_workflow_passes_on_the_monorepo(tmp_path, stubs, settings):
    repo = monorepo(tmp_path)
    runner = gw.Runner(repo, stubs, "push", "", settings)
    steps = runner.run(gw.workflow())
    assert [(name, code) for name, code, _ in steps] == [(name, 0) for name in STEPS_ON_A_PUSH], steps
    # the apps the diff step loops over: every app, whether found or listed
    assert runner.outputs["validate"] == {"apps": " ".join(APPS), "status": "0"}
    sarif = json.loads((repo / "expand-trainjobs.sarif").read_text())
    assert [r["level"] for r in sarif["runs"][0]["results"]] == ["note"]  # Kueue's queue, said (kueue/queue-name)
    by_name = {name: out for name, _, out in steps}
    assert "::error" not in by_name["Validate"] and "::warning" not in by_name["Validate"]
    assert f"the generated output of {KPT_PACKAGE} is current" in by_name["Committed kpt output is current"]


@pytest.mark.parametrize("settings", [FOUND, LISTED], ids=["apps-found", "apps-listed"])
def test_team_b_over_its_gpu_limit_fails_the_run_of_every_app(tmp_path, stubs, settings):
    """The original bug: checked together, no app's config was read and CI went green."""
    repo = monorepo(tmp_path)
    edit(repo, *OVER_THE_LIMIT)
    steps = gw.Runner(repo, stubs, "push", "", settings).run(gw.workflow())
    by_name = {name: (code, out) for name, code, out in steps}
    code, out = by_name["Validate"]
    assert code == 0  # the step records the status; the last step fails the job
    errors = [line for line in out.splitlines() if line.startswith("::error")]
    assert len(errors) == 1, out
    assert errors[0].startswith("::error file=apps/team-b/llm-finetune/trainjob.yaml,line=")
    assert "title=policy/max-gpus-per-trainjob::TrainJob team-b/llm-finetune:" in errors[0] and "more than 4" in errors[0]
    # the annotations' summary line is the run's, as on stderr
    assert "\nexpand-trainjobs: FAILED: 1 of 6 app(s) failed (apps/team-b/llm-finetune)\n" in out
    sarif = json.loads((repo / "expand-trainjobs.sarif").read_text())
    failed = [r for r in sarif["runs"][0]["results"] if r["level"] == "error"]
    assert [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in failed] == ["apps/team-b/llm-finetune/trainjob.yaml"]
    assert steps[-1][0] == "Fail on validation errors" and steps[-1][1] != 0
    # team-a's TrainJob of the same name and 16 GPUs is within team-a's own limit
    assert "TrainJob team-a/llm-finetune" not in out


def test_a_typo_in_a_kueue_queue_name_fails_with_the_closest_name(tmp_path, stubs):
    repo = monorepo(tmp_path)
    edit(repo, *QUEUE_TYPO)
    steps = gw.Runner(repo, stubs, "push", "", FOUND).run(gw.workflow())
    out = {name: out for name, _, out in steps}["Validate"]
    (error,) = [line for line in out.splitlines() if line.startswith("::error")]
    assert error.startswith("::error file=apps/team-c/vision/trainjob.yaml,line=6,col=5,title=")
    assert "LocalQueue 'gpu-queu' (from label kueue.x-k8s.io/queue-name) is none of the LocalQueues of namespace team-c" in error
    assert "did you mean 'gpu-queue'?" in error
    assert steps[-1][1] != 0


def test_stale_kpt_output_fails_the_check_generated_step(tmp_path, stubs):
    repo = monorepo(tmp_path)
    edit(repo, "apps/team-a/mnist/trainjob.yaml", "numNodes: 1", "numNodes: 2")  # not rendered again
    steps = gw.Runner(repo, stubs, "push", "", FOUND).run(gw.workflow())
    name, code, out = steps[-1]
    assert name == "Committed kpt output is current" and code == 1
    assert "mnist.generated.yaml: JobSet team-a/mnist is stale" in out


def test_no_app_found_fails_the_validate_step_and_says_so(tmp_path, stubs):
    repo = tmp_path / "repo"
    gw.write(repo, {"README.md": "no apps yet\n"})
    gw.git(repo, "init", "-q")
    steps = gw.Runner(repo, stubs, "push", "", {"APPS": ""}).run(gw.workflow())
    name, code, out = steps[-1]
    assert (name, code) == ("Validate", 1)
    assert "found no app under ." in out


# --- a pull request: diff per app between the base and the change ------------------------------------


def pull_request(tmp_path: Path, *edits: tuple) -> Path:
    """The example on main (also as origin/main, as the checkout with fetch-depth 0 has it), and a
    branch `change` with `edits` committed."""
    repo = monorepo(tmp_path)
    gw.git(repo, "update-ref", "refs/remotes/origin/main", "HEAD")
    gw.git(repo, "checkout", "-qb", "change")
    for e in edits:
        edit(repo, *e)
    gw.git(repo, "commit", "-qam", "change")
    return repo


# The platform team changes the shared runtime: every app that reads it renders other objects.
SHARED_RUNTIME_CHANGE = ("platform/runtimes/torch-gpu.yaml", "value: WARN", "value: INFO")


def test_a_pull_request_on_the_shared_runtime_comments_every_app_it_changes(tmp_path, stubs):
    repo = pull_request(tmp_path, SHARED_RUNTIME_CHANGE)
    steps = gw.Runner(repo, stubs, "pull_request", "main", FOUND).run(gw.workflow())
    assert [(name, code) for name, code, _ in steps] == [(name, 0) for name in STEPS_ON_A_PULL_REQUEST], steps
    log = (tmp_path / "stub.log").read_text()
    assert "gh pr comment 7 --body-file diff.md" in log
    changed = sorted(line[4:] for line in log.splitlines() if line.startswith("### "))
    # the apps on the shared runtime; the kpt package and the kustomization use the built-in runtime
    assert changed == ["apps/team-a/llm-finetune", "apps/team-b/llm-finetune", "apps/team-c/vision", "apps/team-d/speech"]
    assert "NCCL_DEBUG" in log and str(tmp_path) not in log


def test_a_pull_request_of_one_team_comments_only_its_app(tmp_path, stubs):
    repo = pull_request(tmp_path, ("apps/team-d/speech/trainjob.yaml", "gpu: 2", "gpu: 1"))
    steps = gw.Runner(repo, stubs, "pull_request", "main", LISTED).run(gw.workflow())
    assert [(name, code) for name, code, _ in steps] == [(name, 0) for name in STEPS_ON_A_PULL_REQUEST], steps
    log = (tmp_path / "stub.log").read_text()
    assert [line for line in log.splitlines() if line.startswith("### ")] == ["### apps/team-d/speech"]


# --- report, render and validate: several apps, each by its own config ------------------------------

# (app, namespace, TrainJob) of every TrainJob of the example: each in its own app's namespace
TRAINJOBS = [("apps/team-a/llm-finetune", "team-a", "llm-finetune"), ("apps/team-a/mnist", "team-a", "mnist"),
             ("apps/team-b/eval", "team-b", "llm-eval"), ("apps/team-b/llm-finetune", "team-b", "llm-finetune"),
             ("apps/team-c/vision", "team-c", "vit-pretrain"), ("apps/team-d/speech", "team-d", "whisper-finetune")]


def cli(repo: Path, *args: str) -> subprocess.CompletedProcess:
    """The console script in the repository's top level, with nothing of Argo CD's or ours in the environment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "EXPAND_TRAINJOBS_"))}
    return subprocess.run([str(gw.FUNCTION), *args], cwd=repo, env=env, capture_output=True, text=True, timeout=300)


def test_render_validate_and_report_agree_on_each_apps_namespace(tmp_path):
    repo = monorepo(tmp_path)
    rendered = []
    for app in APPS:
        done = cli(repo, "render", app)
        assert done.returncode == 0, done.stderr
        rendered += [(app, d["metadata"]["namespace"], d["metadata"]["name"])
                     for d in yaml.safe_load_all(done.stdout) if d and d["kind"] == "JobSet"]
    validated = json.loads(cli(repo, "validate", "--find-apps", "--format", "json").stdout)
    reported = cli(repo, "report", "--find-apps", "--format", "json")
    assert reported.returncode == 0, reported.stderr
    report = json.loads(reported.stdout)
    assert sorted(rendered) == TRAINJOBS
    assert sorted((t["app"], t["namespace"], t["name"]) for t in validated["trainJobs"]) == TRAINJOBS
    assert sorted((t["app"], t["namespace"], t["name"]) for t in report["trainJobs"]) == TRAINJOBS
    assert report["apps"] == validated["apps"] == APPS
    # per namespace: team-a's two apps share its quota
    assert {ns: t["trainJobs"] for ns, t in report["namespaces"].items()} == {"team-a": 2, "team-b": 2, "team-c": 1, "team-d": 1}
    assert report["namespaces"]["team-c"]["gpus"] == 8 and report["namespaces"]["team-c"]["memory"] == "128Gi"


def test_the_whole_repository_read_as_one_app_says_whose_configs_it_ignores(tmp_path):
    """A bare `validate` at the top level reads every app's files as one app with no config: it warns
    that the apps' configs do not apply and points at --find-apps (the trap of issue 32)."""
    repo = monorepo(tmp_path)
    done = cli(repo, "validate")
    assert done.stderr.splitlines()[1].startswith(
        "expand-trainjobs: warning: 6 app(s) below this directory have their own expand-trainjobs.yaml (apps/team-a/llm-finetune, "
        "apps/team-a/mnist, apps/team-b/eval and 3 more): ")
    assert "`--find-apps` checks each app by its own config" in done.stderr


def test_report_of_several_apps_judges_each_by_its_own_config(tmp_path):
    repo = monorepo(tmp_path)
    edit(repo, *OVER_THE_LIMIT)
    done = cli(repo, "report", "--format", "json", "apps/team-a/llm-finetune", "apps/team-b/llm-finetune")
    assert done.returncode == 1
    assert done.stderr.splitlines()[0] == "expand-trainjobs: FAILED: 1 of 2 app(s) failed (apps/team-b/llm-finetune)"
    assert "\napps/team-b/llm-finetune/trainjob.yaml:14:" in done.stderr
    report = json.loads(done.stdout)
    by_app = {t["app"]: t for t in report["trainJobs"]}
    assert by_app["apps/team-a/llm-finetune"]["status"] == "rendered" and by_app["apps/team-a/llm-finetune"]["gpus"] == 16
    team_b = by_app["apps/team-b/llm-finetune"]
    assert team_b["status"] == "failed" and team_b["namespace"] == "team-b"
    assert [(f["rule"], f["file"], f["line"], f["app"]) for f in team_b["findings"]] == [
        ("policy/max-gpus-per-trainjob", "apps/team-b/llm-finetune/trainjob.yaml", 14, "apps/team-b/llm-finetune")]
    markdown = cli(repo, "report", "apps/team-a/llm-finetune", "apps/team-b/llm-finetune").stdout
    assert "<b>team-b/llm-finetune</b> (app apps/team-b/llm-finetune) (not rendered: it has errors)" in markdown


# --- pre-commit --------------------------------------------------------------------------------------


def test_pre_commit_hooks_on_the_monorepo(tmp_path):
    """Both hooks from this checkout as pre-commit installs them: validate with --find-apps and with the
    apps listed, check-generated on the kpt package; then team-b over its limit fails the commit,
    named with its app and file."""
    hooks, rev = pre_commit.hook_repository(tmp_path)
    repo = monorepo(tmp_path)
    config = {"repos": [{"repo": str(hooks), "rev": rev, "hooks": [
        {"id": "expand-trainjobs-validate", "args": ["--find-apps"]},
        {"id": "expand-trainjobs-validate", "args": APPS},
        {"id": "expand-trainjobs-generated-current", "args": [KPT_PACKAGE]},
    ]}]}
    gw.write(repo, {".pre-commit-config.yaml": yaml.safe_dump(config)})
    gw.git(repo, "add", "-A")
    ok = pre_commit.run(repo, tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.count("Passed") == 3, ok.stdout
    assert "found 6 app(s) under ." not in ok.stdout  # pre-commit shows a passing hook's output only in verbose mode

    edit(repo, *OVER_THE_LIMIT)
    gw.git(repo, "add", "-A")
    bad = pre_commit.run(repo, tmp_path)
    assert bad.returncode == 1
    assert bad.stdout.count("Failed") == 2 and bad.stdout.count("Passed") == 1, bad.stdout
    assert bad.stdout.count("FAILED: 1 of 6 app(s) failed (apps/team-b/llm-finetune)") == 2
    assert "\napps/team-b/llm-finetune/trainjob.yaml:" in bad.stdout
    assert ": error: TrainJob team-b/llm-finetune: " in bad.stdout
