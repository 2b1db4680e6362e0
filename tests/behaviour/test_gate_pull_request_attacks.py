"""The gate against a pull request that changes the gate itself (issue 32 point 1, issue 33): the shipped
workflow's steps run as GitHub's runner runs them (tests/support/github_workflow.py) on the shipped
monorepo example, after a hostile change, and after valid, unusual ones that must pass."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from support import github_workflow as gw
from support import shipped_examples as ex

FOUND = {"APPS": "", "KPT_PACKAGES": "apps/team-a/mnist"}  # every app found, as tests/behaviour/test_monorepo.py

HIDDEN_APP = "apps/team-b/llm-finetune"


def monorepo(tmp_path):
    """examples/monorepo committed as the platform repository's main branch."""
    repo = tmp_path / "repo"
    shutil.copytree(ex.EXAMPLES / "monorepo", repo, ignore=shutil.ignore_patterns(".expected"))
    gw.git(repo, "init", "-q")
    gw.git(repo, "add", "-A")
    gw.git(repo, "commit", "-qm", "platform repository")
    return repo


@pytest.fixture()
def stubs(tmp_path):
    return gw.stubs(tmp_path / "bin")


def _validate(repo, stubs, settings=FOUND):
    steps = gw.Runner(repo, stubs, "push", "", settings).run(gw.workflow())
    return steps, {name: out for name, _, out in steps}["Validate"]


@pytest.mark.parametrize("hide", ["delete", "rename", "hidden-directory"])
def test_an_app_hidden_from_find_apps_fails_the_workflow(tmp_path, stubs, hide):
    repo = monorepo(tmp_path)
    config = repo / HIDDEN_APP / "expand-trainjobs.yaml"
    job = f"{HIDDEN_APP}/trainjob.yaml"
    if hide == "delete":
        config.unlink()
    elif hide == "rename":
        config.rename(config.with_name("expand-trainjobs.yaml.bak"))
    else:
        os.rename(repo / HIDDEN_APP, repo / "apps/team-b/.llm-finetune")
        job = "apps/team-b/.llm-finetune/trainjob.yaml"
    steps, out = _validate(repo, stubs)
    assert "found 5 app(s)" in out
    errors = [line for line in out.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and errors[0].startswith(f"::error file={job},line=") and "title=apps/trainjob-in-no-app" in errors[0], out
    sarif = json.loads((repo / "expand-trainjobs.sarif").read_text())
    failed = [r for r in sarif["runs"][0]["results"] if r["level"] == "error"]
    assert [r["ruleId"] for r in failed] == ["apps/trainjob-in-no-app"]
    assert steps[-1][0] == "Fail on validation errors" and steps[-1][1] != 0


def test_a_stated_directory_of_plain_trainjobs_passes_and_is_said(tmp_path, stubs):
    repo = monorepo(tmp_path)
    gw.write(repo, {"clusters/lab/trainjob.yaml": (repo / HIDDEN_APP / "trainjob.yaml").read_text(),
                    ".expand-trainjobs-unchecked.yaml":
                        "unchecked:\n- path: clusters/lab\n  reason: applied by the lab cluster's own Trainer controller\n"})
    steps, out = _validate(repo, stubs)
    assert steps[-1][1] == 0, out
    assert "stated unchecked in .expand-trainjobs-unchecked.yaml (applied by the lab cluster's own Trainer controller)" in out


# --- a guardrail relaxed in the same pull request --------------------------------------------------------

TEAM_B_CONFIG = f"{HIDDEN_APP}/expand-trainjobs.yaml"
VAP = """apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: at-most-8-gpus
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [trainer.kubeflow.org]
      apiVersions: ["*"]
      operations: [CREATE]
      resources: [trainjobs]
  validations:
  - expression: "true"
"""


def _commit(repo, message):
    gw.git(repo, "add", "-A")
    gw.git(repo, "commit", "-qm", message)


def _diff(repo, *extra):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "kpt_fn", "diff", "HEAD~1", "HEAD", *extra], cwd=repo / HIDDEN_APP,
                          capture_output=True, text=True, check=False)


def _edit(repo, rel, old, new):
    path = repo / rel
    assert old in path.read_text(), (rel, old)
    path.write_text(path.read_text().replace(old, new))


@pytest.fixture()
def with_policies(tmp_path):
    """The monorepo with team-b's app judged by a shared admission policy in platform/policies."""
    repo = monorepo(tmp_path)
    gw.write(repo, {"platform/policies/gpus.yaml": VAP})
    _edit(repo, TEAM_B_CONFIG, "  runtimeDirs:", "  policyDirs: [../../../platform/policies]\n  runtimeDirs:")
    _commit(repo, "team-b judged by the platform's admission policy")
    return repo


def test_every_relaxed_guardrail_is_shown_first_and_fails_fail_on_guardrails(with_policies):
    repo = with_policies
    _edit(repo, TEAM_B_CONFIG, "maxGPUsPerTrainJob: 4", "maxGPUsPerTrainJob: 64")
    _edit(repo, TEAM_B_CONFIG, "  namespace: team-b", "  namespace: team-b\n  trainerVersion: v2.2.1")
    _edit(repo, f"{HIDDEN_APP}/trainjob.yaml", "  name: llm-finetune\n",
          "  name: llm-finetune\n  annotations:\n    waive.expand-trainjobs.kpt.dev/no-latest-tag: \"@team-b says ok <!-- x -->\"\n")
    _edit(repo, "platform/policies/gpus.yaml", "failurePolicy: Fail", "failurePolicy: Ignore")
    _edit(repo, "platform/runtimes/torch-gpu.yaml", "image: registry.example.com/", "image: registry.example.com/x/")
    _commit(repo, "a pull request that relaxes team-b's guardrails")
    md = _diff(repo)
    assert md.returncode == 1, md.stderr
    head, section, rest = md.stdout.partition("**Guardrails changed by this pull request**")
    assert section and head.startswith("## expand-trainjobs diff") and "<details" not in head
    shown = rest.split("At the new revision")[0]
    assert "- `policy.maxGPUsPerTrainJob`: `4` → `64`" in shown
    assert "- `trainerVersion`: `v2.3.0` → `v2.2.1`" in shown
    assert "- shared runtime `ClusterTrainingRuntime torch-gpu` changed" in shown
    assert "- policyDirs: `ValidatingAdmissionPolicy at-most-8-gpus` changed" in shown
    (waiver,) = [line for line in shown.splitlines() if "waiver" in line]
    assert "`policy/no-latest-tag` added on TrainJob `team-b/llm-finetune`, reason:" in waiver
    assert "\\<\\!-- x --\\>" in waiver and "@team-b" not in waiver  # inert: no comment, no mention
    data = json.loads(_diff(repo, "--format", "json").stdout)["guardrails"]
    assert [o["option"] for o in data["options"]] == ["policy.maxGPUsPerTrainJob", "trainerVersion"]
    assert data["waivers"][0]["new"] == "@team-b says ok <!-- x -->"
    gated = _diff(repo, "--fail-on", "guardrails")
    assert gated.returncode == 1 and "5 guardrail(s) changed" in gated.stderr.splitlines()[0]
    # the terminal's text form: the same, first, on `#` lines
    text = _diff(repo, "--format", "text").stdout.splitlines()
    at = text.index("# guardrails changed by this pull request:")
    assert at == 1 and text[at + 1] == "#   policy.maxGPUsPerTrainJob: 4 -> 64"
    assert "#   waiver of policy/no-latest-tag added on TrainJob team-b/llm-finetune, reason: @team-b says ok <!-- x -->" in text


def test_a_guardrail_alone_is_a_change(with_policies):
    # strict off renders nothing differently: without the guardrails the diff said "No rendered object changes", exit 0
    repo = with_policies
    _edit(repo, TEAM_B_CONFIG, "  namespace: team-b", "  namespace: team-b\n  strict: true")
    _commit(repo, "strict")
    gw.write(repo, {TEAM_B_CONFIG: (repo / TEAM_B_CONFIG).read_text().replace("  strict: true\n", "")})
    _commit(repo, "strict off again")
    out = _diff(repo)
    assert out.returncode == 1 and "- `strict`: `true` → `false`" in out.stdout
    assert "only the guardrails above changed" in out.stdout


def test_a_config_replaced_by_a_link_to_a_laxer_apps_config_shows_what_it_relaxes(with_policies):
    # team-b's config becomes a link to team-a's (16 GPUs, namespace team-a): the app is still found,
    # and judged by the config the link leads to; the guardrails say what that changed
    repo = with_policies
    (repo / TEAM_B_CONFIG).unlink()
    os.symlink("../../team-a/llm-finetune/expand-trainjobs.yaml", repo / TEAM_B_CONFIG)
    _commit(repo, "share team-a's config")
    data = json.loads(_diff(repo, "--format", "json").stdout)["guardrails"]
    got = {o["option"]: (o["old"], o["new"]) for o in data["options"]}
    assert got["policy.maxGPUsPerTrainJob"] == (4, 16) and got["namespace"] == ("team-b", "team-a")
    assert _diff(repo, "--fail-on", "guardrails").returncode == 1


@pytest.mark.parametrize("change", ["comment-and-order", "trainjob-only", "app-runtime-dir-content"])
def test_controls_change_no_guardrail(with_policies, change):
    repo = with_policies
    if change == "comment-and-order":  # the same config, written differently
        text = (repo / TEAM_B_CONFIG).read_text()
        _edit(repo, TEAM_B_CONFIG, "    maxGPUsPerTrainJob: 4\n    allowedImagePrefixes: [registry.example.com/]\n",
              "    allowedImagePrefixes:   # where images may come from\n    - registry.example.com/\n    maxGPUsPerTrainJob: 4\n")
        assert text != (repo / TEAM_B_CONFIG).read_text()
    elif change == "trainjob-only":
        _edit(repo, f"{HIDDEN_APP}/trainjob.yaml", "llama-1b", "llama-3b")
    else:  # a file beside the policies that is no object, and a hidden one render skips
        gw.write(repo, {"platform/policies/README.txt": "the platform's policies\n", "platform/policies/.draft.yaml": VAP.replace("Fail", "Ignore")})
    _commit(repo, "an ordinary change")
    gated = _diff(repo, "--fail-on", "guardrails")
    assert gated.returncode == 0, (gated.stdout, gated.stderr)
    assert "Guardrails changed" not in gated.stdout
    assert json.loads(_diff(repo, "--format", "json").stdout)["guardrails"] == {
        "options": [], "runtimes": [], "policies": [], "waivers": []}


def test_fail_on_guardrails_is_refused_for_an_upgrade_preview(tmp_path):
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "kpt_fn", "diff", "--trainer-version", "v2.2.1..v2.3.0", "--fail-on", "guardrails"],
                         cwd=tmp_path, capture_output=True, text=True, check=False)
    assert out.returncode == 2 and "compares two revisions" in out.stderr


# --- CODEOWNERS: every file that decides what the gate does is the platform team's ------------------------

PLATFORM = "@example-org/ml-platform"


def _pattern(pattern: str):
    """A CODEOWNERS pattern as a regular expression over a path from the repository's top level, by the
    gitignore rules GitHub applies to it (docs.github.com, "About code owners": a leading `/` anchors at
    the top, a trailing `/` or a directory matches everything below it, `**/` any directories, `*` within
    one name; a pattern with no `/` but at its end matches at any depth)."""
    import re

    anchored = pattern.startswith("/") or "/" in pattern.rstrip("/").lstrip("*/")
    body = pattern.strip("/")
    regex = ""
    i = 0
    while i < len(body):
        if body.startswith("**/", i):
            regex, i = regex + "(?:.*/)?", i + 3
        elif body[i] == "*":
            regex, i = regex + "[^/]*", i + 1
        else:
            regex, i = regex + re.escape(body[i]), i + 1
    return re.compile(("^" if anchored else "^(?:.*/)?") + regex + "(?:/.*)?$")


def owners(codeowners: str, path: str) -> list[str]:
    """The owners of `path`: those of the last line whose pattern matches it."""
    found: list[str] = []
    for line in codeowners.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            pattern, *who = line.split()
            if _pattern(pattern).match(path):
                found = who
    return found


def test_the_matcher_follows_githubs_rules():
    rules = "*  @all\n/apps/team-b/ @b\n**/expand-trainjobs.yaml @p\n/docs/*.md @d\nKptfile @k\n"
    assert owners(rules, "README.md") == ["@all"]
    assert owners(rules, "apps/team-b/x/trainjob.yaml") == ["@b"]
    assert owners(rules, "apps/team-b/x/expand-trainjobs.yaml") == ["@p"]  # the last match wins
    assert owners(rules, "expand-trainjobs.yaml") == ["@p"]
    assert owners(rules, "docs/a.md") == ["@d"] and owners(rules, "docs/x/a.md") == ["@all"]
    assert owners(rules, "apps/team-a/mnist/Kptfile") == ["@k"]
    assert owners(rules, "other/apps/team-b/t.yaml") == ["@all"]  # anchored


def test_the_monorepo_codeowners_give_the_gate_to_the_platform_team():
    codeowners = (ex.EXAMPLES / "monorepo" / ".github" / "CODEOWNERS").read_text()
    files = [p.relative_to(ex.EXAMPLES / "monorepo").as_posix() for p in (ex.EXAMPLES / "monorepo").rglob("*")
             if p.is_file() and ".expected" not in p.parts]
    # the files a platform repository holds beside the example's: the workflow, the statement, the hooks
    files += [".github/workflows/expand-trainjobs.yaml", ".expand-trainjobs-unchecked.yaml", ".pre-commit-config.yaml",
              "apps/team-e/new/expand-trainjobs.yaml", "apps/team-b/new/kustomization.yaml"]
    gate = {f for f in files if f.startswith((".github/", "platform/")) or f.rsplit("/", 1)[-1] in (
        "expand-trainjobs.yaml", "kustomization.yaml", "Kptfile", ".expand-trainjobs-unchecked.yaml", ".pre-commit-config.yaml")}
    assert {"platform/runtimes/torch-gpu.yaml", "apps/team-b/llm-finetune/expand-trainjobs.yaml", ".github/CODEOWNERS"} <= gate
    for f in sorted(gate):
        assert owners(codeowners, f) == [PLATFORM], f
    # and each team its own TrainJobs, no one else's
    for f in sorted(set(files) - gate):
        if f.startswith("apps/team-"):
            assert owners(codeowners, f) == [f"@example-org/{f.split('/')[1]}"], f
