"""Admission scope through a real client (docs/fidelity.md): `kpt fn eval --exec` on a package.

* a TrainJob managed by MultiKueue is still admission-checked: a reserved env var fails the run;
* a runtime labelled trainer.kubeflow.org/webhook-validation=disabled is not checked by the runtime
  webhook rules, and the builders force replicas 1 on its ancestor jobs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from clients import kit

pytestmark = pytest.mark.clients

GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "golden" / "v2.3.0"


def _package(tmp_path: Path, case: str) -> Path:
    pkg = tmp_path / case
    pkg.mkdir()
    (pkg / "Kptfile").write_text(f"apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: {case}\n")
    case_dir = next(GOLDEN.glob(f"*/{case}"))
    shutil.copy(case_dir / "trainjob.yaml", pkg / "trainjob.yaml")
    runtime = (case_dir / "runtime.yaml").read_text()
    if not runtime.startswith("shipped:"):
        (pkg / "runtime.yaml").write_text(runtime)
    return pkg


def test_kpt_fails_a_multikueue_trainjob_with_a_reserved_env(kpt, fn, env, tmp_path):
    pkg = _package(tmp_path, "admission-managed-by-external-still-checked")
    r = kit.run([kpt, "fn", "eval", pkg, "--exec", fn, "-o", "unwrap"], cwd=tmp_path, env=env).failed()
    assert "must not have reserved envs, invalid envs configured: [PET_NNODES]" in r.stdout + r.stderr


def test_kpt_renders_with_a_runtime_whose_webhook_validation_is_disabled(kpt, fn, env, tmp_path):
    pkg = _package(tmp_path, "runtime-webhook-validation-disabled")
    r = kit.run([kpt, "fn", "eval", pkg, "--exec", fn, "-o", "unwrap"], cwd=tmp_path, env=env).ok()
    [jobset] = [o for o in kit.load_stream(r.stdout) if o.get("kind") == "JobSet"]
    assert [(rj["name"], rj["replicas"]) for rj in jobset["spec"]["replicatedJobs"]] == [
        ("dataset-initializer", 1), ("node", 1)]
    # Without the label the runtime webhook rules reject the runtime.
    text = (pkg / "runtime.yaml").read_text().replace("trainer.kubeflow.org/webhook-validation: disabled",
                                                      "example.com/other: x")
    (pkg / "runtime.yaml").write_text(text)
    r = kit.run([kpt, "fn", "eval", pkg, "--exec", fn, "-o", "unwrap"], cwd=tmp_path, env=env).failed()
    assert "always must be 1" in r.stdout + r.stderr
