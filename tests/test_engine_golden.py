"""Golden tests of the expansion engine: the cases under fixtures/engine/.

Case layout, markers and the update path (UPDATE_GOLDEN=1) are those of tests/golden_engine.py,
shared with tests/test_engine2_golden.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import golden_engine
from golden_engine import load_all  # noqa: F401 (used by other tests)
from shipped import SHIPPED_DIR, shipped_runtimes  # noqa: F401 (re-exported for other tests)

CASES_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "engine"
CASES = golden_engine.case_dirs(CASES_DIR)


def load_case(case: Path):
    """(case.yaml, TrainJob, runtime, EngineOptions) of a case directory."""
    c = golden_engine.Case(case)
    return c.meta, c.trainjob, c.runtime, c.options


def test_enough_cases():
    assert len(CASES) >= 40


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_golden(case: Path):
    golden_engine.check_golden(case)


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_golden_is_deterministic(case: Path):
    golden_engine.check_deterministic(case)


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_golden_outputs_match_crd_schemas(case: Path):
    golden_engine.check_outputs_valid(case)


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_golden_inputs_match_crd_schemas(case: Path):
    golden_engine.check_inputs_valid(case)
