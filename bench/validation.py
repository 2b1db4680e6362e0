"""Validation throughput on realistic objects: `python -m bench.validation [seconds]` (from the checkout:
it reads fixtures/validation, which the installed package does not hold).

Prints validations per second for check_object (+ check_jobset_webhook for the JobSet), after a
warm-up so schema loading and CEL compilation are excluded, as they happen once per process.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import yaml

from kpt_fn import upstream
from kpt_fn import validation

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "validation"


def _rate(fn, obj, seconds: float) -> float:
    fn(obj)
    n, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(50):
            fn(obj)
        n += 50
        now = time.perf_counter()
        if now >= deadline:
            return n / (now - start)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    seconds = float(argv[0]) if argv else 2.0
    jobset = yaml.safe_load((FIXTURES / "jobset_torchtune.yaml").read_text())
    trainjob = yaml.safe_load((FIXTURES / "trainjob_runtimepatches.yaml").read_text())

    bundle = upstream.bundle(upstream.DEFAULT_RELEASE)
    start = time.perf_counter()
    validation.check_object(jobset, bundle)
    validation.check_object(trainjob, bundle)
    print(f"first call (load schemas, compile CEL): {1000 * (time.perf_counter() - start):.0f} ms")

    def jobset_all(obj):
        return validation.check_object(obj, bundle) + validation.check_jobset_webhook(obj, bundle)

    def check_object(obj):
        return validation.check_object(obj, bundle)

    for label, fn, obj in (
        ("JobSet check_object + check_jobset_webhook", jobset_all, jobset),
        ("JobSet check_object", check_object, jobset),
        ("TrainJob with runtimePatches check_object", check_object, trainjob),
    ):
        print(f"{label}: {_rate(fn, obj, seconds):,.0f}/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
