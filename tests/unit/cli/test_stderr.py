"""kpt_fn.cli.stderr: every mode's stderr is the summary, then the findings shown, in the one form."""

from __future__ import annotations

from support.door import run_with
from kpt_fn.cli import stderr
from kpt_fn.results import LINES_PER_KIND, Summary

TJ = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "a", "namespace": "ml"},
      "spec": {"runtimeRef": {"name": "no-such-runtime"}}}


def test_the_summary_first_then_one_line_per_finding_with_its_rule():
    outcome = run_with([TJ], None)
    lines = stderr.lines(outcome)
    assert isinstance(lines[0], Summary) and lines[0].startswith("expand-trainjobs: FAILED: ")
    assert lines[1:] and all(line.startswith("expand-trainjobs: ") and line.endswith("]") for line in lines[1:])
    assert any(": error: TrainJob ml/a: " in line and "[trainer-webhook/runtime-not-found]" in line for line in lines)


def test_a_finding_from_no_file_names_the_app_of_several():
    lines = stderr.lines(run_with([TJ], None), app="apps/team-b")
    assert all(line.startswith("apps/team-b: ") for line in lines[1:])


def test_many_alike_are_a_few_lines():
    many = [{**TJ, "metadata": {"name": f"t{i}", "namespace": "ml"}} for i in range(3 * LINES_PER_KIND)]
    lines = stderr.lines(run_with(many, None))
    assert len(lines) < 3 * LINES_PER_KIND and any("more like this" in line for line in lines)
