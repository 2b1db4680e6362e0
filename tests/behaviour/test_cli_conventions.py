"""Command-line conventions users reach for: `render -` / `validate -`, `-n/--namespace`, `--config
FILE`, `-q/--quiet`, `rules --format json`, shell completion, the runtime catalog listing, and a
rendered stream without an empty last document (one test each, through the console script)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from kpt_fn import yamlio
from kpt_fn.cli import plain

TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: mnist
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 2
"""


def _run(fn, *args, stdin: str = "", cwd=None, env=None):
    env = {k: v for k, v in (env or os.environ).items() if not k.startswith(("ARGOCD_", "PARAM_"))}
    return subprocess.run([fn, *args], input=stdin, capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


@pytest.fixture
def app(tmp_path):
    d = tmp_path / "app"
    d.mkdir()
    (d / "trainjob.yaml").write_text(TRAINJOB)
    return d


def test_render_dash_reads_stdin_like_a_file(fn, app, tmp_path):
    from_file = _run(fn, "render", "-n", "team-a", str(app))
    from_stdin = _run(fn, "render", "-n", "team-a", "-", stdin=TRAINJOB, cwd=tmp_path)
    assert from_file.returncode == from_stdin.returncode == 0, from_stdin.stderr
    assert from_stdin.stdout == from_file.stdout and "kind: JobSet" in from_stdin.stdout


def test_validate_dash_reads_stdin(fn, tmp_path):
    bad = _run(fn, "validate", "-", stdin=TRAINJOB.replace("numNodes: 2", "numNodes: two"), cwd=tmp_path)
    assert bad.returncode == 1 and "spec.trainer.numNodes" in bad.stderr and bad.stdout == ""
    assert _run(fn, "validate", "-", stdin=TRAINJOB, cwd=tmp_path).returncode == 0


def test_namespace_option_sets_and_wins_over_the_config(fn, app):
    (app / "expand-trainjobs.yaml").write_text(
        "apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nmetadata:\n  name: x\nspec:\n  namespace: team-a\n")
    assert "namespace: team-a" in _run(fn, "render", str(app)).stdout
    for flag in ("-n", "--namespace"):
        r = _run(fn, "render", flag, "team-b", str(app))
        assert r.returncode == 0 and "namespace: team-b" in r.stdout and "team-a" not in r.stdout


def test_config_option_names_the_function_config(fn, app, tmp_path):
    cfg = tmp_path / "other.yaml"
    cfg.write_text("apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nmetadata:\n  name: x\nspec:\n  namespace: team-c\n")
    r = _run(fn, "render", "--config", str(cfg), str(app))
    assert r.returncode == 0 and "namespace: team-c" in r.stdout
    cfg.write_text(cfg.read_text().replace("namespace: team-c", "namspace: team-c"))
    r = _run(fn, "validate", "--config", str(cfg), str(app))
    assert r.returncode == 1 and "did you mean 'namespace'?" in r.stderr and "other.yaml:6" in r.stderr


def test_quiet_is_silent_on_success_only(fn, app):
    ok = _run(fn, "render", "-q", "-n", "team-a", str(app))
    assert ok.returncode == 0 and ok.stderr == "" and "kind: JobSet" in ok.stdout
    (app / "trainjob.yaml").write_text(TRAINJOB.replace("numNodes: 2", "numNodes: two"))
    failed = _run(fn, "render", "--quiet", str(app))
    assert failed.returncode == 1 and "FAILED" in failed.stderr


def test_rules_as_json(fn):
    r = _run(fn, "rules", "--format", "json")
    assert r.returncode == 0
    rules = json.loads(r.stdout)
    assert rules == yamlio.load(_run(fn, "rules", "--format", "yaml").stdout)
    assert {"id", "family", "applies_to", "description"} <= set(rules[0])
    assert any(x["id"] == "admitted/num-nodes-zero" for x in rules)


def test_runtimes_lists_the_built_in_catalog(fn):
    r = _run(fn, "runtimes")
    assert r.returncode == 0 and "torch-distributed" in r.stdout and "deepspeed-distributed" in r.stdout


def test_runtimes_for_machines_as_json_and_yaml(fn):
    # issue 32 point 7: `-o json|yaml` for machines; the JSON is the v1 List `kubectl get -o json` prints
    listing = json.loads(_run(fn, "runtimes", "-o", "json").stdout)
    assert listing["kind"] == "List" and listing["items"] == yamlio.load_all(_run(fn, "runtimes", "-o", "yaml").stdout)
    assert "torch-distributed" in {rt["metadata"]["name"] for rt in listing["items"]}


def test_shell_completion_script(fn):
    # docs/clients.md: eval "$(_EXPAND_TRAINJOBS_COMPLETE=bash_source expand-trainjobs)"
    r = _run(fn, env={**os.environ, "_EXPAND_TRAINJOBS_COMPLETE": "bash_source"})
    assert r.returncode == 0 and "complete " in r.stdout and "_EXPAND_TRAINJOBS_COMPLETE" in r.stdout
    words = _run(fn, env={**os.environ, "_EXPAND_TRAINJOBS_COMPLETE": "bash_complete", "COMP_WORDS": "expand-trainjobs re",
                          "COMP_CWORD": "1"}).stdout
    assert "render" in words and "report" in words


def test_render_ends_without_an_empty_document(fn, app):
    out = _run(fn, "render", "-n", "team-a", str(app)).stdout
    assert out.endswith("\n") and not out.rstrip("\n").endswith("---")
    assert None not in yamlio.load_all(out)


@pytest.mark.parametrize("last, needs_end", [
    ("data:\n  script: |\n    run\n", True),  # Argo CD's trim would take the script's line break
    ("data:\n  script: |-\n    run\n", False),
    ("data:\n  a: b\n", False),
    ("data:\n  a: '|'\n", False),
])
def test_argocd_trim_is_absorbed_only_where_needed(last, needs_end):
    out = "---\napiVersion: v1\nkind: ConfigMap\n" + last
    end = plain.argocd_safe_end(out)
    assert (end == plain.END_LINE) == needs_end
    trimmed = (out + end).removesuffix("\n")  # what Argo CD parses
    assert yamlio.load_all(trimmed) == yamlio.load_all(out)
