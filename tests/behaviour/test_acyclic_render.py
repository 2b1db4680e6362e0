"""A render leaves no reference cycles behind: the command line runs with the cyclic garbage collector
off (kpt_fn.cli.main), so whatever only that collector could free would stay until the process ends,
and a run of 20,000 TrainJobs would grow by each one's leftovers. Reference counting frees acyclic
data as soon as it is let go; these tests hold every golden case's expansion (both releases, the
error paths among them) and the whole function over every fixture to leaving none."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from kpt_fn import function, yamlio
from support import golden_engine
from support.door import run_with

REPO = Path(__file__).resolve().parents[2]
CASES = golden_engine.release_cases("v2.3.0") + golden_engine.release_cases("v2.2.1")
KUEUE = {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "spec": {"profile": "kueue"}}


def _cyclic_garbage(work) -> list:
    """The objects only the cyclic collector frees once `work()` has run (its first run, which may
    import modules and so create classes, is not counted)."""
    work()
    enabled = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            work()
            gc.collect()
            found = [f"{type(o).__name__}: {o!r}"[:120] for o in gc.garbage]
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.collect()
    finally:
        if enabled:
            gc.enable()
    return found


def _expansions_leave_no_cycles(cases: list) -> None:
    loaded = [golden_engine.Case(c) for c in cases]
    assert loaded

    def work():
        for case in loaded:
            golden_engine.render(case)

    found = _cyclic_garbage(work)
    assert not found, f"{len(found)} objects in cycles, among them: {found[:8]}"


def test_expansions_leave_no_cycles():
    _expansions_leave_no_cycles([c for c in CASES if not golden_engine.uses_upstream(c)])


@pytest.mark.upstream
def test_expansions_of_shipped_runtimes_leave_no_cycles():
    _expansions_leave_no_cycles([c for c in CASES if golden_engine.uses_upstream(c)])


def _fixture_item_lists() -> list:
    out = []
    for path in sorted((REPO / "fixtures").rglob("*.yaml")):
        try:
            items = [i for i in yamlio.load_all(path.read_bytes()) if isinstance(i, dict)]
        except Exception:  # noqa: BLE001 - unreadable fixtures are other tests' matter
            continue
        if any(i.get("kind") == "TrainJob" for i in items):
            out.append((path, items))
    return out


def test_the_function_leaves_no_cycles_over_every_fixture():
    lists = _fixture_item_lists()
    assert len(lists) > 100

    def work():
        for path, items in lists:
            for config in ({}, KUEUE):
                run_with(items, config, function.Door(base_dir=str(path.parent)))

    found = _cyclic_garbage(work)
    assert not found, f"{len(found)} objects in cycles, among them: {found[:8]}"
