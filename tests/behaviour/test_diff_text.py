"""`diff --format text`, the plain-text form for a terminal (issue 32, point 7): a unified diff per
changed object as `kubectl diff` shows it, coloured only on a terminal without NO_COLOR (or with
`--color always`), the default format when stdout is a terminal and Markdown otherwise, and the exit
status of every other format. The text's inertness is held by tests/unit/formats/test_unified.py."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

import pytest

from support.tiny_app import RUNTIME, trainjob


@pytest.fixture(scope="module")
def sides(tmp_path_factory):
    root = tmp_path_factory.mktemp("sides")
    for side, nodes in (("old", 1), ("new", 2)):
        (root / side).mkdir()
        (root / side / "runtime.yaml").write_text(RUNTIME)
        (root / side / "tj.yaml").write_text(trainjob("mnist", nodes))
    (root / "same").mkdir()
    (root / "same" / "runtime.yaml").write_text(RUNTIME)
    (root / "same" / "tj.yaml").write_text(trainjob("mnist", 1))
    return root


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "EXPAND_TRAINJOBS_")) and k != "NO_COLOR"}
    return {**env, "TERM": "xterm", **extra}


def _run(cwd, *args, **env):
    return subprocess.run([sys.executable, "-m", "kpt_fn", "diff", *args], cwd=cwd, env=_env(**env),
                          capture_output=True, text=True)


def _on_a_terminal(cwd, *args, **env) -> tuple[str, int]:
    """stdout of the command when it is a terminal (a pseudo-terminal), and the exit status."""
    leader, follower = pty.openpty()
    try:
        p = subprocess.Popen([sys.executable, "-m", "kpt_fn", "diff", *args], cwd=cwd, env=_env(**env),
                             stdout=follower, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 1 << 16)
            except OSError:  # the follower closed: EIO on Linux
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks).decode().replace("\r\n", "\n"), p.wait()
    finally:
        os.close(leader)


def test_text_is_a_unified_diff_of_the_changed_objects(sides):
    p = _run(sides, "old", "new", "--format", "text")
    assert p.returncode == 1 and p.stderr.splitlines()[0] == "expand-trainjobs: changes"
    out = p.stdout
    assert "diff -u -N old/jobset.x-k8s.io.v1alpha2.JobSet..mnist new/jobset.x-k8s.io.v1alpha2.JobSet..mnist\n" in out
    assert "--- old/jobset.x-k8s.io.v1alpha2.JobSet..mnist\n+++ new/jobset.x-k8s.io.v1alpha2.JobSet..mnist\n" in out
    assert "-        parallelism: 1\n" in out and "+        parallelism: 2\n" in out
    assert "\x1b" not in out  # not a terminal: no colour


def test_exit_status_as_the_other_formats(sides):
    for fmt in ("text", "markdown", "json"):
        assert _run(sides, "old", "same", "--format", fmt).returncode == 0
        assert _run(sides, "old", "new", "--format", fmt).returncode == 1
        assert _run(sides, "old", "missing", "--format", fmt).returncode == 2
    assert _run(sides, "old", "same", "--format", "text").stdout.endswith("# no rendered object changes\n")


def test_colour_always_never_and_no_color(sides):
    assert "\x1b[32m+" in _run(sides, "old", "new", "--format", "text", "--color", "always").stdout
    assert "\x1b" not in _run(sides, "old", "new", "--format", "text", "--color", "never").stdout


def test_on_a_terminal_text_is_the_default_and_coloured(sides):
    out, code = _on_a_terminal(sides, "old", "new")
    assert code == 1 and "diff -u -N old/" in out and "\x1b[31m-" in out and "\x1b[32m+" in out
    # NO_COLOR (set at all, as kubectl reads it) or a dumb terminal: the text without colour
    for env in ({"NO_COLOR": ""}, {"NO_COLOR": "1"}, {"TERM": "dumb"}):
        out, code = _on_a_terminal(sides, "old", "new", **env)
        assert code == 1 and "diff -u -N old/" in out and "\x1b" not in out, env
    out, _ = _on_a_terminal(sides, "old", "new", "--color", "never")
    assert "\x1b" not in out


def test_elsewhere_markdown_stays_the_default(sides):
    # CI, a pipe, a file: what the workflow and scripts read is unchanged
    assert _run(sides, "old", "new").stdout.startswith("## expand-trainjobs diff:")


def test_the_upgrade_preview_shares_the_text(sides):
    p = _run(sides / "old", "--trainer-version", "v2.2.1..v2.3.0", "--format", "text")
    assert p.returncode in (0, 1), p.stderr
    assert p.stdout.startswith("# upgrading Kubeflow Trainer v2.2.1 -> v2.3.0: ")
