"""KRM mode run in-process as the console script runs it (kpt_fn.cli.modes.krm_mode: stdin in, stdout and
stderr out, an exit status), for the campaigns that make it fail at a chosen point."""

from __future__ import annotations

import io
import sys

import pytest

from kpt_fn.cli import modes


def run(monkeypatch, data: bytes) -> tuple[str, str, int]:
    """(stdout, stderr, exit status) of KRM mode on `data`, without the debug tracebacks."""
    monkeypatch.delenv(modes.DEBUG_ENV, raising=False)
    stdout, stderr = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(sys, "stderr", stderr)
    with pytest.raises(SystemExit) as done:
        modes.krm_mode()
    return stdout.getvalue(), stderr.getvalue(), done.value.code


def identities(items: list) -> list:
    """(kind, namespace, name) of each item, in order."""
    return [(i["kind"], i["metadata"].get("namespace"), i["metadata"]["name"]) for i in items]
