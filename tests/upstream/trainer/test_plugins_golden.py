"""Golden tests of the expansion engine, every case of every release, through the one harness (tests/support/golden_engine.py):

- fixtures/golden/v2.3.0/<plugin or area>/<case>/: the runtime framework, JobSet, PlainML, Torch, torchtune,
  coscheduling, Volcano, MPI, JAX, XGBoost, Flux and the initializer flows, each ported from an upstream
  v2.3.0 test or a worked example derived from the upstream sources (its case.yaml names which;
  fixtures/golden/v2.3.0/README.md lists the deliberate differences from upstream's expectations).

Case layout, markers and the update path (UPDATE_GOLDEN=1) are those of tests/support/golden_engine.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support import golden_engine

# fixtures/golden/v2.2.1/: the differences of Trainer v2.2.1, each from v2.2.1's own tests.
CASES = golden_engine.release_cases("v2.3.0") + golden_engine.release_cases("v2.2.1")

# Upstream's integration test puts the launcher (which dependsOn node) before node; its envtest runs
# no JobSet webhook, a real cluster would reject the JobSet. Ported as is, so the finding is pinned.
KNOWN_JOBSET_WEBHOOK_ERRORS = {
    "mpi-openmpi-integration": [
        ("spec.replicatedJobs[2].dependsOn[0].name", "replicatedJob: launcher cannot depend on replicatedJob: node"),
    ],
}


def load_case(case: Path):
    """(case.yaml, TrainJob, runtime, EngineOptions) of a case directory."""
    c = golden_engine.Case(case)
    return c.meta, c.trainjob, c.runtime, c.options


def test_enough_cases():
    assert len(golden_engine.release_cases("v2.3.0")) >= 60


def _id(case: Path) -> str:
    return f"{case.parent.parent.name}/{case.parent.name}/{case.name}"


PARAMS = golden_engine.params(CASES, _id)


@pytest.mark.parametrize("case", PARAMS)
def test_golden(case: Path):
    golden_engine.check_golden(case)


@pytest.mark.parametrize("case", PARAMS)
def test_golden_is_deterministic(case: Path):
    golden_engine.check_deterministic(case)


@pytest.mark.parametrize("case", PARAMS)
def test_golden_outputs_match_crd_schemas(case: Path):
    golden_engine.check_outputs_valid(case, KNOWN_JOBSET_WEBHOOK_ERRORS.get(case.name))


@pytest.mark.parametrize("case", PARAMS)
def test_golden_inputs_match_crd_schemas(case: Path):
    golden_engine.check_inputs_valid(case)


# Shared cases: `releases` in case.yaml lists every Trainer release that renders them the same; the
# tests above check the first, these the others.
SHARED = [pytest.param(case, release, id=f"{_id(case)}@{release}", marks=p.marks)
          for p in PARAMS for case in p.values for release in golden_engine.releases(case)[1:]]


@pytest.mark.parametrize("case, release", SHARED)
def test_shared_case_renders_the_same_under_each_release(case: Path, release: str):
    golden_engine.check_golden(case, release)
    golden_engine.check_inputs_valid(case, release)
    golden_engine.check_outputs_valid(case, KNOWN_JOBSET_WEBHOOK_ERRORS.get(case.name), release)


def test_both_releases_have_cases():
    assert len(SHARED) >= 10
    assert len(golden_engine.release_cases("v2.2.1")) >= 10
