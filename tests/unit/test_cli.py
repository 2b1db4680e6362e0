"""kpt_fn.cli: the front door: the forms clients run on every build go straight to their mode with
stderr held until stdout is complete; anything else goes through the click group; the console script
exits with the mode's status."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kpt_fn import cli

CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: b\n"


def test_a_plain_form_runs_its_mode_and_states_the_outcome_first(tmp_path, monkeypatch, capsys):
    (tmp_path / "cm.yaml").write_text(CONFIGMAP)
    monkeypatch.setattr(sys, "argv", ["expand-trainjobs", "render", str(tmp_path)])
    monkeypatch.delenv("_EXPAND_TRAINJOBS_COMPLETE", raising=False)
    with pytest.raises(SystemExit) as done:
        cli.main()
    out, err = capsys.readouterr()
    assert done.value.code == 0
    assert "name: cm" in out
    assert err.startswith("expand-trainjobs: ok")
    assert not isinstance(sys.stderr, cli.modes.HeldStderr)  # released


def test_other_forms_go_through_click(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["expand-trainjobs", "--version"])
    with pytest.raises(SystemExit) as done:
        cli.main()
    assert done.value.code == 0
    assert "expand-trainjobs" in capsys.readouterr().out


def test_the_console_script_exits_with_the_status():
    # run() ends the process without the interpreter's teardown: only a process of its own can show it.
    done = subprocess.run([sys.executable, "-m", "kpt_fn", "no-such-command", "--x"], capture_output=True, timeout=120)
    assert done.returncode == 2 and b"no-such-command" in done.stderr
