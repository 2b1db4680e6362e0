"""KRM mode writes the items while it renders (krm.process_pieces' `write`, output.Placement.release):
the bytes are the same as written at the end, earlier output of the function holds everything after it
back, and a failure once part of the output is on stdout says that the output is incomplete."""

from __future__ import annotations

import io
import sys

import pytest

from bench import generate
from kpt_fn import function
from kpt_fn.cli import krm, modes
from kpt_fn.output import MARKER, Placement

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"


def _streamed(data: bytes) -> tuple[str, list, int, list]:
    early: list = []
    pieces, lines, code = krm.process_pieces(data, write=early.append)
    written = "".join(early)
    return written + "".join(pieces), lines, code, early


def _repository(n: int) -> bytes:
    return generate.to_yaml(generate.generate(n, seed=3))


def test_streamed_bytes_are_the_bytes_written_at_the_end():
    data = _repository(30)
    whole, lines, code = krm.process(data)
    streamed, streamed_lines, streamed_code, early = _streamed(data)
    assert streamed == whole and streamed_lines == lines and streamed_code == code
    assert "".join(early).startswith(HEAD + "- ")  # the items went out while rendering


def test_open_ended_scalars_and_config_trainjobs_stream_as_written_at_the_end():
    tj = ("- apiVersion: trainer.kubeflow.org/v1alpha1\n  kind: TrainJob\n  metadata: {{name: {name}, namespace: t}}\n"
          "  spec:\n    runtimeRef: {{name: torch-distributed}}\n")
    note = "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: note, namespace: t}\n  data:\n    text: |+\n      kept\n\n"
    config = ("functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: fc}\n  data:\n"
              "    trainJobs: |\n      - apiVersion: trainer.kubeflow.org/v1alpha1\n        kind: TrainJob\n"
              "        metadata: {name: extra, namespace: t}\n        spec: {runtimeRef: {name: torch-distributed}}\n")
    data = (HEAD + tj.format(name="a") + note + tj.format(name="b") + note.replace("name: note", "name: last")
            + config).encode()
    whole, lines, code = krm.process(data)
    streamed, streamed_lines, streamed_code, early = _streamed(data)
    assert early and streamed == whole and streamed_lines == lines and streamed_code == code


def test_earlier_output_holds_back_everything_after_it():
    own = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "old", "annotations": {MARKER: "a"}}}
    tj = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "a"}}
    other = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}}
    placement = Placement([other, tj, own, {**tj, "metadata": {"name": "b"}}])
    assert placement.release(2) == [other, tj]
    assert placement.release(None) == []  # the earlier output at position 2 may still be replaced
    assert placement.finish([])[:2] == [own, {**tj, "metadata": {"name": "b"}}]


def test_a_failure_after_part_of_the_output_is_written_says_it_is_incomplete(monkeypatch):
    data = _repository(60)  # well over one write's worth of items before the failure
    calls = []

    def failing(self):
        calls.append(1)
        raise RuntimeError("boom")

    monkeypatch.setattr(function.Outcome, "krm_results", failing)
    monkeypatch.delenv("EXPAND_TRAINJOBS_DEBUG", raising=False)
    stdout, stderr = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    monkeypatch.setattr(sys, "stdout", stdout)
    monkeypatch.setattr(sys, "stderr", stderr)
    with pytest.raises(SystemExit) as done:
        modes.krm_mode()
    assert calls and done.value.code == 1
    first = stderr.getvalue().splitlines()[0]
    assert "FAILED: internal error after" in first and "RuntimeError: boom" in first
    assert first.endswith("the output is incomplete")
    assert stdout.getvalue().startswith(HEAD) and "results:" not in stdout.getvalue()
