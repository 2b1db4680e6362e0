"""kpt_fn.cli.modes: each mode run to its exit: stdout written in full before stderr, whose first line
states the outcome; internal errors and a missing working directory as one clear line."""

from __future__ import annotations

import sys

import pytest

from kpt_fn.cli import modes
from kpt_fn.results import Summary


def finished(capsys, *args, **kwargs):
    with pytest.raises(SystemExit) as done:
        modes.finish(*args, **kwargs)
    out, err = capsys.readouterr()
    return out, err, done.value.code


def test_finish_writes_stdout_then_stderr_and_exits(capsys):
    assert finished(capsys, "a: 1\n", [Summary(True, "fine"), "  detail"], 0) == (
        "a: 1\n", "expand-trainjobs: ok: fine\n  detail\n", 0)


def test_finish_writes_pieces_in_order(capsys):
    assert finished(capsys, iter(["a", "b", "c"]), [], 0)[:1] == ("abc",)


def test_a_piece_that_fails_midway_fails_the_run_and_says_so_first(capsys):
    def pieces():
        yield "a: 1\n"
        raise KeyError("x")

    out, err, code = finished(capsys, pieces(), [Summary(True, "rendered")], 0)
    assert out == "a: 1\n" and code == 1
    first, second = err.splitlines()[:2]
    assert first == "expand-trainjobs: FAILED: internal error while writing the output: KeyError: 'x'"
    assert second == "  (the run itself: rendered)"  # the run's own "ok" demoted under it


def test_stderr_lines_cannot_forge_a_line(capsys):
    err = finished(capsys, "", ["expand-trainjobs: FAILED: x\nexpand-trainjobs: ok"], 1)[1]
    assert err == "expand-trainjobs: FAILED: x\\nexpand-trainjobs: ok\n"


def test_held_stderr_is_written_after_the_summary(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stderr", modes.HeldStderr(sys.stderr))
    print("a library's warning", file=sys.stderr)
    err = finished(capsys, "", [Summary(True, "fine")], 0)[1]
    assert err == "expand-trainjobs: ok: fine\na library's warning\n"
    assert modes.release_stderr() == ""  # released already


def test_guarded_turns_a_crash_into_one_line_and_a_status(capsys, monkeypatch):
    monkeypatch.delenv("EXPAND_TRAINJOBS_DEBUG", raising=False)

    def crash():
        raise ValueError("boom")

    with pytest.raises(SystemExit) as done:
        modes.guarded(crash, failed_code=2)
    out, err = capsys.readouterr()
    assert (out, done.value.code) == ("", 2)
    assert err.splitlines()[0] == "expand-trainjobs: FAILED: internal error: ValueError: boom"
    assert "to see the traceback" in err.splitlines()[1]


def test_guarded_cannot_run_is_the_users_message(capsys):
    def nowhere():
        raise modes.CannotRun("the working directory cannot be read")

    with pytest.raises(SystemExit) as done:
        modes.guarded(nowhere)
    assert done.value.code == 1
    assert capsys.readouterr().err == "expand-trainjobs: FAILED: the working directory cannot be read\n"


def test_guarded_finishes_what_the_mode_returns(capsys):
    with pytest.raises(SystemExit) as done:
        modes.guarded(lambda: ("out\n", [Summary(True, "x")], 0))
    assert done.value.code == 0 and capsys.readouterr().out == "out\n"


def test_working_directory_that_was_deleted(tmp_path, monkeypatch):
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    with pytest.raises(modes.CannotRun, match="was it deleted"):
        modes.working_directory()
