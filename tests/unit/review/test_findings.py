"""kpt_fn.review.findings: a run's findings as plain data for `validate --format`."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from kpt_fn.review import findings
from kpt_fn.resource import INDEX, PATH
from kpt_fn.problems import ERROR, WARNING
from kpt_fn.results import Result

APP = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: a
  namespace: ns
spec:
  trainer:
    numNodes: 0
"""


@pytest.mark.parametrize("ref, expected", [
    ({}, ""),
    ({"kind": "", "name": "x"}, ""),
    ({"kind": "TrainJob", "namespace": "ns", "name": "a"}, "TrainJob ns/a"),
    ({"kind": "ClusterTrainingRuntime", "namespace": "", "name": "rt"}, "ClusterTrainingRuntime rt"),
])
def test_who(ref, expected):
    assert findings.who(ref) == expected


def _outcome(results, origins=(), summary="expand-trainjobs: FAILED: 1 error(s)"):
    return SimpleNamespace(results=results, final_results=results, summary=summary,
                           rendered=[SimpleNamespace(origin=o, namespace="") for o in origins])


def test_collect(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "job.yaml").write_text(APP)
    trainjob = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                "metadata": {"name": "a", "namespace": "ns", "annotations": {PATH: "job.yaml", INDEX: "0"}}}
    ref = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "namespace": "ns", "name": "a"}
    results = [
        Result("numNodes must be positive", ERROR, ref, "spec.trainer.numNodes", "job.yaml", 0, "r/one"),
        Result("no file", WARNING, None, "", "", 0, "r/two"),
    ]
    # Files are named relative to where the command ran, whatever app directory was rendered.
    report = findings.collect(_outcome(results, [trainjob]), str(tmp_path / "app"), str(tmp_path))
    assert report["summary"] == "expand-trainjobs: FAILED: 1 error(s)"
    assert (report["errors"], report["warnings"]) == (1, 1)
    assert report["trainJobs"] == [{"name": "a", "namespace": "ns", "file": "app/job.yaml", "line": 1, "findings": [0]}]
    first, second = report["findings"]
    assert first == {"rule": "r/one", "severity": ERROR, "message": "numNodes must be positive", "resource": ref,
                     "object": "TrainJob ns/a", "app": "", "field": "spec.trainer.numNodes", "file": "app/job.yaml",
                     "line": 8, "column": 5, "count": 1, "waiver": None}
    assert tuple(first) == findings.FIELDS and tuple(second) == findings.FIELDS  # one record shape, every key
    assert second["resource"] == {"apiVersion": "", "kind": "", "namespace": "", "name": ""} and second["object"] == ""
    assert (second["file"], second["line"], second["column"]) == ("", None, None)


def test_one_record_for_every_view(tmp_path):
    (tmp_path / "job.yaml").write_text(APP)
    trainjob = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                "metadata": {"name": "a", "namespace": "ns", "annotations": {PATH: "job.yaml", INDEX: "0",
                                                                              "waive.expand-trainjobs.kpt.dev/max-nodes": " PLAT-1 "}}}
    ref = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "namespace": "ns", "name": "a"}
    waived = Result("waived: too many nodes", WARNING, ref, "spec.trainer.numNodes", "job.yaml", 0, "policy/max-nodes")
    outcome = _outcome([waived], [trainjob])
    outcome.rendered[0].results = [waived]
    reported = findings.collect(outcome, str(tmp_path), str(tmp_path))["findings"]  # locates the lines
    shown = findings.shown(outcome, str(tmp_path), str(tmp_path.parent), app=tmp_path.name)
    per_job, general = findings.findings(outcome, str(tmp_path))
    for found in (shown, reported, per_job[id(outcome.rendered[0])]):
        [f] = found
        assert tuple(f) == findings.FIELDS
        assert f["waiver"] == {"annotation": "waive.expand-trainjobs.kpt.dev/max-nodes", "reason": "PLAT-1"}
        assert (f["line"], f["column"]) == (8, 5)
    assert shown[0]["file"] == f"{tmp_path.name}/job.yaml" and shown[0]["app"] == tmp_path.name
    assert reported[0]["file"] == "job.yaml" and general == []


def test_stderr_shows_errors_warnings_and_what_must_exist_capped_per_kind():
    from kpt_fn.engine import secrets
    from kpt_fn.results import LINES_PER_KIND

    same = [Result("the same warning", WARNING)] * 1_000_000
    shown = findings.shown(_outcome(same + [Result("i", "info"), Result("s", "info", rule=secrets.RULE_MPI_REFERENCE)]))
    assert len(shown) == LINES_PER_KIND + 2
    assert shown[LINES_PER_KIND]["message"] == "... and 999990 more like this (warning: the same warning)"
    assert shown[LINES_PER_KIND]["count"] == 999990 and shown[-1]["message"] == "s"


def test_collect_caps_each_kind_and_counts_the_rest(tmp_path):
    # Alike but for the name of the object each is about.
    many = [Result(f"TrainJob tj{i} is late", WARNING, {"kind": "TrainJob", "name": f"tj{i}"}, rule="r/many")
            for i in range(findings.PER_KIND + 7)]
    report = findings.collect(_outcome(many, summary="ok"), str(tmp_path), str(tmp_path))
    assert len(report["findings"]) == findings.PER_KIND + 1
    assert report["findings"][-1]["count"] == 7
    assert report["warnings"] == findings.PER_KIND + 7  # counted, not made
