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


@pytest.mark.parametrize("resource, field, expected", [
    ({"kind": "TrainJob", "namespace": "", "name": "a"}, "spec", "TrainJob a: spec: bad"),
    ({"kind": "TrainJob", "namespace": "", "name": "a"}, "", "TrainJob a: bad"),
    ({"kind": ""}, "spec", "spec: bad"),
    ({"kind": ""}, "", "bad"),
])
def test_headline(resource, field, expected):
    assert findings.headline({"resource": resource, "field": field, "message": "bad"}) == expected


def _outcome(results, origins=(), summary="expand-trainjobs: FAILED: 1 error(s)"):
    return SimpleNamespace(results=results, rendered=[SimpleNamespace(origin=o, namespace="") for o in origins], summary=summary)


def test_collect(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "job.yaml").write_text(APP)
    trainjob = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                "metadata": {"name": "a", "namespace": "ns", "annotations": {PATH: "job.yaml", INDEX: "0"}}}
    ref = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "namespace": "ns", "name": "a"}
    results = [
        Result("numNodes must be positive (in job.yaml)", ERROR, ref, "spec.trainer.numNodes", "job.yaml", 0, "r/one"),
        Result("no file", WARNING, None, "", "", 0, "r/two"),
    ]
    # Files are named relative to where the command ran, whatever app directory was rendered.
    report = findings.collect(_outcome(results, [trainjob]), str(tmp_path / "app"), str(tmp_path))
    assert report["summary"] == "expand-trainjobs: FAILED: 1 error(s)"
    assert (report["errors"], report["warnings"]) == (1, 1)
    assert report["trainJobs"] == [{"name": "a", "namespace": "ns", "file": "app/job.yaml", "line": 1, "findings": [0]}]
    first, second = report["findings"]
    assert first == {"rule": "r/one", "severity": ERROR, "message": "numNodes must be positive", "resource": ref,
                     "field": "spec.trainer.numNodes", "file": "app/job.yaml", "line": 8, "count": 1}
    assert second["resource"] == {"apiVersion": "", "kind": "", "namespace": "", "name": ""}
    assert (second["file"], second["line"]) == ("", None)


def test_collect_caps_each_kind_and_counts_the_rest(tmp_path):
    # Alike but for the name of the object each is about.
    many = [Result(f"TrainJob tj{i} is late", WARNING, {"kind": "TrainJob", "name": f"tj{i}"}, rule="r/many")
            for i in range(findings.PER_KIND + 7)]
    report = findings.collect(_outcome(many, summary="ok"), str(tmp_path), str(tmp_path))
    assert len(report["findings"]) == findings.PER_KIND + 1
    assert report["findings"][-1]["count"] == 7
    assert report["warnings"] == findings.PER_KIND + 7  # counted, not made
