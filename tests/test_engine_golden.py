"""Golden tests of the expansion engine, one directory per case under fixtures/engine/.

A case directory holds:
    case.yaml      source: the upstream v2.3.0 test the case is derived from (or "semantics §x")
                   runtime: shipped:<name>   (optional; otherwise runtime.yaml is used)
                   options: {...}            (optional EngineOptions fields; admission defaults to true)
                   legacy: true              (optional: convert both inputs with kpt_fn.legacy first; the
                                             conversion's problems come first in problems.yaml)
    trainjob.yaml  the TrainJob as a user writes it (not defaulted)
    runtime.yaml   the TrainingRuntime / ClusterTrainingRuntime (not defaulted)
    expected.yaml  every expected object, full YAML, in emit order (list order significant)
    problems.yaml  (optional) the expected problems: [{severity, path, message}]

UPDATE_GOLDEN=1 rewrites expected.yaml / problems.yaml from the engine output. Rewritten files must
be read against the upstream test they came from before committing; they are not trusted blindly.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path

import pytest
import yaml

from shipped import SHIPPED_DIR, shipped_runtimes  # noqa: F401 (re-exported for other tests)

from kpt_fn.engine import EngineOptions, expand

ROOT = Path(__file__).resolve().parent.parent
CASES_DIR = ROOT / "fixtures" / "engine"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"



def load_yaml(path: Path):
    with open(path) as f:
        return yaml.safe_load(f)


def load_all(path: Path) -> list:
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def case_dirs() -> list[Path]:
    if not CASES_DIR.is_dir():
        return []
    return sorted(p for p in CASES_DIR.iterdir() if (p / "case.yaml").is_file())


def load_case(case: Path):
    meta = load_yaml(case / "case.yaml") or {}
    trainjob = load_yaml(case / "trainjob.yaml")
    ref = meta.get("runtime")
    if ref and ref.startswith("shipped:"):
        runtime = shipped_runtimes()[ref.split(":", 1)[1]]
    else:
        runtime = load_yaml(case / "runtime.yaml")
    # Cases run the admission checks inside expand unless they say otherwise.
    opts = {"admission": True, **(meta.get("options") or {})}
    if "knownPriorityClasses" in opts:
        opts["knownPriorityClasses"] = tuple(opts["knownPriorityClasses"])
    options = EngineOptions(**opts)
    return meta, trainjob, runtime, options


def problem_dicts(problems) -> list[dict]:
    return [{"severity": p.severity, "path": p.path, "message": p.message} for p in problems]


def shared_subtrees(obj) -> list[str]:
    """Paths of dicts/lists that occur more than once in `obj` (a YAML dumper would emit aliases)."""
    seen: dict[int, str] = {}
    dups: list[str] = []

    def walk(v, path):
        if isinstance(v, (dict, list)):
            if id(v) in seen:
                dups.append(f"{path} (also at {seen[id(v)]})")
                return
            seen[id(v)] = path
            items = v.items() if isinstance(v, dict) else enumerate(v)
            for k, x in items:
                walk(x, f"{path}.{k}")

    walk(obj, "")
    return dups


def dump_all(docs) -> str:
    return yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=False, width=120)


@pytest.mark.parametrize("case", case_dirs(), ids=lambda p: p.name)
def test_golden(case: Path):
    meta, trainjob, runtime, options = load_case(case)
    assert meta.get("source"), "every case names the upstream test or section it comes from"
    before = copy.deepcopy((trainjob, runtime))
    conversion = []
    if meta.get("legacy"):
        from kpt_fn import legacy

        converted_tj, tj_problems = legacy.convert_trainjob(trainjob)
        converted_rt, rt_problems = legacy.convert_runtime(runtime)
        conversion = rt_problems + tj_problems
        result = expand(converted_tj, converted_rt, options)
    else:
        result = expand(trainjob, runtime, options)
    assert (trainjob, runtime) == before, "neither the conversion nor the engine may mutate their inputs"
    assert shared_subtrees(result.objects) == []
    problems = problem_dicts(conversion + result.problems)
    expected_path = case / "expected.yaml"
    problems_path = case / "problems.yaml"
    if UPDATE:
        expected_path.write_text(dump_all(result.objects) if result.objects else "")
        if problems:
            problems_path.write_text(yaml.safe_dump(problems, sort_keys=False, width=200))
        elif problems_path.exists():
            problems_path.unlink()
        return
    expected = load_all(expected_path) if expected_path.exists() else []
    expected_problems = load_yaml(problems_path) if problems_path.exists() else []
    assert problems == (expected_problems or [])
    assert result.objects == expected


def test_enough_cases():
    assert len(case_dirs()) >= 40


@pytest.mark.parametrize("case", case_dirs(), ids=lambda p: p.name)
def test_golden_outputs_pass_schema_validation(case: Path):
    try:
        from kpt_fn.validation import check_object
    except ImportError:
        pytest.skip("kpt_fn.validation.check_object not available")
    path = case / "expected.yaml"
    for obj in load_all(path) if path.exists() else []:
        errors = [p for p in check_object(obj) if p.severity == "error"]
        assert errors == [], (obj["kind"], errors)
