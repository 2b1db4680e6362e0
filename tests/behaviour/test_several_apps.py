"""Several teams' apps in one git repository, checked the way CI and pre-commit check them (the
console script, several paths or --find-apps): each app judged by its own expand-trainjobs.yaml,
runtimes shared in platform/runtimes reachable because the git top level is the root (issue 32)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

EXE = [sys.executable, "-m", "kpt_fn"]
RUNTIME = Path(__file__).parents[2] / "examples" / "argocd-app" / "platform" / "runtimes" / "team-torch.yaml"


def _config(namespace: str, extra: str = "") -> str:
    return (f"apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nspec:\n  namespace: {namespace}\n"
            f"  runtimeDirs: [../../platform/runtimes]\n{extra}")


TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: llm-finetune
spec:
  runtimeRef:
    name: team-torch
  trainer:
    numNodes: 2
    resourcesPerNode:
      limits:
        nvidia.com/gpu: 4
"""


def _repository(tmp_path: Path) -> Path:
    repo = tmp_path / "platform-repo"
    files = {
        "platform/runtimes/team-torch.yaml": RUNTIME.read_text(),
        "apps/team-a/expand-trainjobs.yaml": _config("team-a"),
        "apps/team-a/trainjob.yaml": TRAINJOB,
        # team-b's guardrail: 2 GPUs per TrainJob; its TrainJob (same name, other namespace) asks for 8
        "apps/team-b/expand-trainjobs.yaml": _config("team-b", "  policy:\n    maxGPUsPerTrainJob: 2\n"),
        "apps/team-b/trainjob.yaml": TRAINJOB,
        "README.md": "platform repository\n",
    }
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    (repo / ".git").mkdir()  # the top level of a working tree, as git finds it
    return repo


def _run(repo: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "EXPAND_TRAINJOBS_"))}
    env["PYTHONPATH"] = str(Path(__file__).parents[2])
    return subprocess.run([*EXE, *args], cwd=repo, env=env, capture_output=True, text=True, timeout=300)


def test_each_app_is_judged_by_its_own_config(tmp_path):
    repo = _repository(tmp_path)
    alone = _run(repo, "validate", "apps/team-b")
    together = _run(repo, "validate", "apps/team-a", "apps/team-b")
    assert alone.returncode == 1 and "more than 2" in alone.stderr
    # the guardrail violation fails the two-app run too, named with its app and repository path
    assert together.returncode == 1, together.stderr
    lines = together.stderr.splitlines()
    assert lines[0] == "expand-trainjobs: FAILED: 1 of 2 app(s) failed (apps/team-b)"
    assert "  app apps/team-a: ok: 0 error(s), 0 warning(s); validated 1 TrainJob(s)" in lines
    assert any(line.startswith("apps/team-b/trainjob.yaml:12:9: error: TrainJob team-b/llm-finetune: ")
               for line in lines)
    # the same name in two apps and namespaces is not "defined more than once"; the shared runtime is found
    assert "more than once" not in together.stderr and "outside" not in together.stderr


def test_find_apps_says_which_it_found_and_fails_on_the_violation(tmp_path):
    repo = _repository(tmp_path)
    done = _run(repo, "validate", "--find-apps")
    assert done.returncode == 1
    assert done.stderr.splitlines()[1] == "  [info] found 2 app(s) under .: apps/team-a, apps/team-b"


def test_several_apps_render_each_in_its_namespace(tmp_path):
    repo = _repository(tmp_path)
    (repo / "apps/team-b/expand-trainjobs.yaml").write_text(_config("team-b"))  # no guardrail: both render
    done = _run(repo, "render", "apps/team-a", "apps/team-b")
    assert done.returncode == 0, done.stderr
    import yaml

    docs = [d for d in yaml.safe_load_all(done.stdout) if d]
    assert sorted((d["kind"], d["metadata"].get("namespace")) for d in docs) == [("JobSet", "team-a"), ("JobSet", "team-b")]


def test_machine_formats_merge_the_apps_findings(tmp_path):
    repo = _repository(tmp_path)
    done = _run(repo, "validate", "--format", "json", "apps/team-a", "apps/team-b")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["apps"] == ["apps/team-a", "apps/team-b"]
    assert [(f["app"], f["file"]) for f in report["findings"] if f["severity"] == "error"] == [("apps/team-b", "apps/team-b/trainjob.yaml")]
    # every output names the namespace render uses (point 3): each app's, from its own config
    assert [(t["app"], t["namespace"]) for t in report["trainJobs"]] == [("apps/team-a", "team-a"), ("apps/team-b", "team-b")]
    assert [f["resource"]["namespace"] for f in report["findings"] if f["severity"] == "error"] == ["team-b"]
    sarif = json.loads(_run(repo, "validate", "--format", "sarif", "apps/team-a", "apps/team-b").stdout)
    assert [(r["properties"]["app"], r["properties"]["resource"]["namespace"])
            for r in sarif["runs"][0]["results"] if r["level"] == "error"] == [("apps/team-b", "team-b")]


def test_report_totals_per_namespace_use_the_apps_namespace(tmp_path):
    repo = _repository(tmp_path)
    done = _run(repo, "report", "--format", "json", "apps/team-b")
    assert list(json.loads(done.stdout)["namespaces"]) == ["team-b"]
