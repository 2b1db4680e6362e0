"""bench/validation.py: the validation throughput command runs, on objects that are valid (a benchmark of
failing checks would measure the wrong path). No figure is asserted: speed is measured with bench/."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from kpt_fn import upstream
from kpt_fn import validation

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench import validation as bench  # noqa: E402


def test_it_runs_and_prints_a_rate_per_check(capsys):
    assert bench.main(["0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("first call (load schemas, compile CEL): ")
    assert [line.split(":")[0] for line in lines[1:]] == [
        "JobSet check_object + check_jobset_webhook", "JobSet check_object", "TrainJob with runtimePatches check_object"]
    assert all(line.endswith("/s") for line in lines[1:])


def test_its_objects_are_valid():
    jobset = yaml.safe_load((bench.FIXTURES / "jobset_torchtune.yaml").read_text())
    trainjob = yaml.safe_load((bench.FIXTURES / "trainjob_runtimepatches.yaml").read_text())
    assert validation.check_object(jobset, upstream.bundle("v2.3.0")) + validation.check_jobset_webhook(jobset, upstream.bundle("v2.3.0")) == []
    assert validation.check_object(trainjob, upstream.bundle("v2.3.0")) == []
