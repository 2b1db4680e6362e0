"""The benchmark harness runs: the generator is deterministic and realistic, and a quick in-process
measurement produces the report. No timing is asserted (numbers depend on the machine)."""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench import generate, run  # noqa: E402
from support.door import run_with


def test_generator_is_deterministic_and_covers_the_runtimes():
    rl = generate.generate(120)
    assert generate.to_yaml(rl) == generate.to_yaml(generate.generate(120))
    items = rl["items"]
    jobs = [i for i in items if i["kind"] == "TrainJob"]
    assert len(jobs) == 120
    used = Counter(j["spec"]["runtimeRef"]["name"] for j in jobs)
    assert len(used) >= 8  # shipped and custom runtimes alike
    assert set(generate.SHIPPED_WEIGHTS) <= set(generate.shipped_runtimes())
    kinds = Counter(i["kind"] for i in items)
    assert kinds["ClusterTrainingRuntime"] == 2 and kinds["TrainingRuntime"] == 2 * kinds["Namespace"]
    policies = {next(iter(i["spec"].get("podGroupPolicy", {"none": 0}))) for i in items if i["kind"].endswith("TrainingRuntime")}
    assert {"coscheduling", "volcano"} <= policies
    assert any("runtimePatches" in j["spec"] for j in jobs)
    assert any("resourcesPerNode" in j["spec"]["trainer"] for j in jobs)
    for item in items:
        ann = item["metadata"]["annotations"]
        assert ann["internal.config.kubernetes.io/path"] == ann["config.kubernetes.io/path"]
    # What kpt would send: the bytes read back as the same ResourceList.
    assert yaml.load(generate.to_yaml(rl), Loader=yaml.SafeLoader) == rl


def test_quick_in_process_measurement_writes_the_report(tmp_path):
    out = tmp_path / "report.json"
    report = run.run([3, 6], repeat=1, out=out, subprocess_runs=False)
    assert json.loads(out.read_text())["sizes"][0]["n"] == 3
    row = report["sizes"][1]
    assert row["floor_s"] > 0 and row["in_process_s"] > 0 and row["floor_ratio"] > 0
    assert row["output_bytes"] > 0
    assert report["growth"] and report["growth"][0]["from"] == 3
    assert "floor_ratio" in report["targets"]
    assert "fn/floor" in run.format_table(report)


def test_argocd_app_is_the_repository_without_kpt_annotations(tmp_path):
    rl = generate.generate(4)
    paths = generate.write_app(rl, str(tmp_path))
    docs = [d for p in paths for d in yaml.safe_load_all((tmp_path / p).read_text())]
    assert len(docs) == len(rl["items"]) - 1  # everything but the Kptfile
    assert sum(d["kind"] == "TrainJob" for d in docs) == 4
    assert not any("config.kubernetes.io" in k or "config.k8s.io" in k
                   for d in docs for k in (d["metadata"].get("annotations") or {}))


def test_typical_policy_uses_known_settings():
    from kpt_fn import config

    known = set(config.POLICY_SETTINGS)
    assert {k.removeprefix("policy.") for k in run.TYPICAL_POLICY} <= known


def test_image_like_install_refuses_an_interpreter_of_another_abi(tmp_path):
    # The install borrows this interpreter's dependencies (C extensions built for its X.Y), so an
    # interpreter of another version is refused before anything is made.
    other = tmp_path / "python-other"
    other.write_text("#!/bin/sh\necho '{\"executable\": \"/x\", \"version\": \"2.7.18\", \"base\": \"/x\", \"config_args\": \"\"}'\n")
    other.chmod(0o755)
    with pytest.raises(SystemExit, match="is Python 2.7"):
        run.image_like_install(str(tmp_path / "work"), python=str(other))
    assert not (tmp_path / "work" / "image-venv").exists()


def test_children_run_on_the_function_interpreter(tmp_path, monkeypatch):
    # Floors, in-process runs and `python -c pass` use the interpreter the function runs on, so a
    # ratio compares code, not interpreters.
    assert run.function_python() == sys.executable
    venv_bin = tmp_path / "image-venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "python").symlink_to(sys.executable)
    monkeypatch.setattr(run, "_COMMAND", [str(venv_bin / "expand-trainjobs")])
    assert run.function_python() == str(venv_bin / "python")
    assert run._interpreter(run.function_python())["version"] == platform.python_version()


def test_app_floor_writes_back_every_object_of_the_app(tmp_path):
    # The Argo CD app's process floor reads every YAML file of the app and writes what it read.
    rl = generate.generate(3)
    generate.write_app(rl, str(tmp_path))
    done = subprocess.run([sys.executable, "-c", run._APP_FLOOR], cwd=tmp_path, capture_output=True, check=True)
    docs = list(yaml.safe_load_all(done.stdout))
    assert len(docs) == len(rl["items"]) - 1  # everything but the Kptfile
    assert sum(d["kind"] == "TrainJob" for d in docs) == 3


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not on PATH")
def test_argocd_row_pairs_render_kustomize_and_the_floor(tmp_path):
    (row,) = run.measure_argocd([1], 1, str(tmp_path), clock="wall")
    assert row["render_exit_code"] == 0
    wall = row["wall"]
    assert wall["ratio_median"] > 0 and wall["floor_ratio_median"] > 0 and wall["floor_vs_kustomize"] > 0


def test_the_admission_comparison_policies_are_met_by_the_generated_repository():
    """Both sides of bench.run's admission comparison render the same objects: the dozen policies
    read without a problem and no Deny policy refuses the generated repository."""
    from kpt_fn.admission import inputs

    policies = run.admission_items()
    found, problems = inputs.gather(policies)
    assert len(found.policies) == 12 and not problems
    rl = generate.generate(10)
    outcome = run_with(policies + rl["items"], rl["functionConfig"])
    assert [r.message for r in outcome.results if r.rule.startswith("admission/") and r.severity == "error"] == []


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind not installed (bench.instructions needs it)")
def test_instruction_counts_do_not_depend_on_the_machine_s_load(tmp_path):
    from bench import instructions

    first = instructions.count([sys.executable, "-c", "pass"])
    again = instructions.count([sys.executable, "-c", "pass"])
    assert first > 1_000_000 and abs(first - again) / first < 0.02
    loads = instructions.workloads(str(tmp_path))
    assert list(loads) == ["python -c pass", "KRM, 1 TrainJob (start-up)", "render, Argo CD app of 1",
                           "render, Argo CD app of 10"]
