"""kpt_fn.formats.report: the review report as a pull-request comment and as JSON."""

from __future__ import annotations

from kpt_fn.formats import report

JOB = {"namespace": "ml", "name": "a", "file": "jobs/a.yaml", "runtime": "ClusterTrainingRuntime/torch", "rendered": True,
       "nodes": 2, "procsPerNode": 4, "pods": {"node": 2}, "gpus": 8, "cpu": "8", "memory": "16Gi",
       "images": ["img:1"], "gang": None, "queue": None, "objects": ["JobSet/a"], "status": "rendered", "findings": []}
DATA = {"trainJobs": [JOB], "namespaces": {"ml": {"trainJobs": 1, "pods": 2, "gpus": 8, "cpu": "8", "memory": "16Gi"}},
        "findings": [], "errors": 0, "warnings": 0}


def test_markdown_counts_first_then_one_section_per_trainjob():
    text = report.markdown(DATA)
    assert text.startswith("## expand-trainjobs report: 1 TrainJob(s), 0 error(s), 0 warning(s)\n\n1 rendered, 0 failed, 0 not rendered.\n")
    assert "<details><summary><b>ml/a</b>: ClusterTrainingRuntime/torch, 2 node(s), 8 GPU(s); 0 error(s), 0 warning(s)" in text


def test_markdown_is_cut_to_the_size_asked_for():
    many = {**DATA, "trainJobs": [{**JOB, "name": f"job-{i}"} for i in range(200)]}
    text = report.markdown(many, max_chars=2000)
    assert len(text) <= 2000 and "more TrainJob(s) not shown" in text


def test_json_is_sorted():
    assert report.to_json({"b": 1, "a": 2}) == '{\n  "a": 2,\n  "b": 1\n}\n'


def test_markdown_of_several_apps_names_the_apps_and_each_trainjobs_app():
    finding = {"severity": "warning", "rule": "", "message": "w", "object": "", "file": "apps/b/expand-trainjobs.yaml",
               "line": 3, "column": 1, "field": "", "app": "apps/b"}
    data = {**DATA, "apps": ["apps/a", "apps/b"], "trainJobs": [{**JOB, "app": "apps/a"}], "findings": [finding], "warnings": 1}
    text = report.markdown(data)
    assert "\n\n2 app(s), each by its own config: `apps/a`, `apps/b`.\n\n" in text
    assert "<b>ml/a</b> (app apps/a): ClusterTrainingRuntime/torch" in text
    assert "| severity | rule | object | file:line:col | field | message | app |" in text
    assert "| `apps/b` |" in text
    # one app's report has no app column
    assert "| app |" not in report.markdown({**DATA, "findings": [{**finding, "app": None}]})
