"""KRM mode writes the items while it renders (krm.process_pieces' `write`, output.Placement.release):
the bytes are the same as written at the end, earlier output of the function holds everything after it
back, and a failure while the function renders, once part of the output is on stdout, still gives every
input item back with the error."""

from __future__ import annotations

import yaml

from bench import generate
from kpt_fn import function
from kpt_fn.cli import krm
from kpt_fn.output import MARKER, Placement

from support import krm_mode

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


def test_a_failure_while_rendering_after_part_of_the_output_is_written_still_gives_every_item_back(monkeypatch):
    data = _repository(60)  # well over one write's worth of items before the failure
    calls = []
    real = Placement.add

    def failing(self, entry, *args, **kwargs):
        calls.append(1)
        if len(calls) == 50:
            raise RuntimeError("boom")
        return real(self, entry, *args, **kwargs)

    monkeypatch.setattr(Placement, "add", failing)
    stdout, stderr, code = krm_mode.run(monkeypatch, data)
    assert len(calls) == 50 and code == 1
    first = stderr.splitlines()[0]
    assert "FAILED: internal error: RuntimeError: boom" in first and "every input item" in first
    out = yaml.safe_load(stdout)
    inputs = krm_mode.identities(yaml.safe_load(data)["items"])
    written = krm_mode.identities(out["items"])
    assert [i for i in written if i in inputs] == inputs  # each input item once, in order
    assert len(written) > len(inputs)  # the first TrainJobs' objects went out before the failure
    assert out["results"] == [{"message": "internal error: RuntimeError: boom", "severity": "error"}]


def test_a_failure_after_the_rendering_with_part_of_the_output_written_still_gives_every_item_back(monkeypatch):
    data = _repository(60)
    calls = []

    def failing(self):
        calls.append(1)
        raise RuntimeError("boom")

    monkeypatch.setattr(function.Outcome, "krm_results", failing)
    stdout, stderr, code = krm_mode.run(monkeypatch, data)
    assert calls and code == 1
    assert "FAILED: internal error: RuntimeError: boom" in stderr.splitlines()[0]
    out = yaml.safe_load(stdout)
    inputs = krm_mode.identities(yaml.safe_load(data)["items"])
    assert [i for i in krm_mode.identities(out["items"]) if i in inputs] == inputs
    assert out["results"][-1]["severity"] == "error"


def test_an_error_in_the_last_trainjob_fails_the_run_with_every_item_written(monkeypatch):
    data = _repository(30)
    last = (b"- apiVersion: trainer.kubeflow.org/v1alpha1\n  kind: TrainJob\n"
            b"  metadata: {name: last, namespace: t}\n  spec: {runtimeRef: {name: missing}}\n")
    bad = data.replace(b"\nfunctionConfig:", b"\n" + last + b"functionConfig:")
    whole, lines, code = krm.process(bad)
    streamed, streamed_lines, streamed_code, early = _streamed(bad)
    assert early and streamed == whole and streamed_lines == lines and streamed_code == code == 1
    out = yaml.safe_load(streamed)
    assert krm_mode.identities(yaml.safe_load(bad)["items"])[-1] in krm_mode.identities(out["items"])
    assert any(r["severity"] == "error" for r in out["results"])
