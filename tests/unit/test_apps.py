"""kpt_fn.apps: which paths are apps, where a repository's apps are, and the merged view of several."""

from kpt_fn import apps
from kpt_fn.results import Summary


def _tree(tmp_path, files: dict):
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def test_each_directory_is_an_app_and_files_stay_one_run(tmp_path):
    _tree(tmp_path, {"a/x.yaml": "", "b/y.yaml": "", "f.yaml": ""})
    assert apps.groups(["a", "b"], str(tmp_path)) == [["a"], ["b"]]
    assert apps.groups(["a", "f.yaml", "-"], str(tmp_path)) == [["a"], ["f.yaml", "-"]]
    # one path, or files only: one run, as before
    assert apps.groups(["a"], str(tmp_path)) == [["a"]]
    assert apps.groups(["f.yaml", "b/y.yaml"], str(tmp_path)) == [["f.yaml", "b/y.yaml"]]
    assert apps.groups(["a", "a"], str(tmp_path)) == [["a"]]


def test_find_apps_by_config_kustomization_or_kptfile(tmp_path):
    _tree(tmp_path, {
        "apps/a/expand-trainjobs.yaml": "",
        "apps/a/nested/expand-trainjobs.yaml": "",  # inside an app: part of it
        "apps/k/kustomization.yaml": "generators: [gen.yaml]\ntransformers: [expand-trainjobs-config.yaml]\n",
        "apps/p/Kptfile": "pipeline:\n  mutators:\n  - exec: expand-trainjobs\n",
        # controls: a kustomization that names the function only in a comment, a hidden directory
        "apps/other/kustomization.yaml": "# expand-trainjobs would go here\nresources: [x.yaml]\n",
        ".git/expand-trainjobs.yaml": "",
        "platform/runtimes/r.yaml": "",
    })
    assert apps.find(".", str(tmp_path)) == ["apps/a", "apps/k", "apps/p"]
    assert apps.find("platform", str(tmp_path)) == []
    assert "apps/a, apps/k" in apps.found_line(["."], apps.find(".", str(tmp_path)))
    assert "[error] found no app under platform" in apps.found_line(["platform"], [])


def test_streams_join_with_a_separator():
    assert apps.join_streams(["a: 1\n", "", "b: 2\n"]) == "a: 1\n---\nb: 2\n"
    assert apps.join_streams(["---\na: 1\n", "---\nb: 2\n"]) == "---\na: 1\n---\nb: 2\n"
    assert apps.join_streams(["", ""]) == ""


def test_merged_lines_name_the_app_on_each_finding_and_fail_when_one_fails():
    # a finding names its place under the app (kpt_fn.formats.text): it stays as it is; a note is prefixed
    lines, code = apps.merge_lines([
        ("apps/a", [Summary(True, "0 error(s)")], 0),
        ("apps/b", [Summary(False, "1 error(s)"), "apps/b/t.yaml:3:5: error: TrainJob x: too many GPUs [policy/x]",
                    "  [info] a note"], 1),
    ])
    assert code == 1
    assert lines[0] == "expand-trainjobs: FAILED: 1 of 2 app(s) failed (apps/b)" and not lines[0].ok
    assert lines[1:] == ["  app apps/a: ok: 0 error(s)", "  app apps/b: FAILED: 1 error(s)",
                         "apps/b/t.yaml:3:5: error: TrainJob x: too many GPUs [policy/x]", "  app apps/b: [info] a note"]
    ok, code = apps.merge_lines([("a", [Summary(True, "fine")], 0)])
    assert ok[0].ok and code == 0


def test_merged_reports_keep_each_apps_findings_and_trainjobs_apart():
    one = {"summary": "s1", "errors": 0, "warnings": 1, "trainJobs": [{"name": "t", "findings": [0]}],
           "findings": [{"rule": "r", "severity": "warning"}]}
    two = {"summary": "s2", "errors": 1, "warnings": 0, "trainJobs": [{"name": "t", "findings": [0]}],
           "findings": [{"rule": "q", "severity": "error"}]}
    merged = apps.merge_reports([("apps/a", one), ("apps/b", two)], Summary(False, "1 of 2 app(s) failed (apps/b)"))
    assert merged["summary"] == "expand-trainjobs: FAILED: 1 of 2 app(s) failed (apps/b)"
    assert merged["errors"] == 1 and merged["warnings"] == 1 and merged["apps"] == ["apps/a", "apps/b"]
    assert [t["findings"] for t in merged["trainJobs"]] == [[0], [1]]
    assert [f["app"] for f in merged["findings"]] == ["apps/a", "apps/b"]
    assert [t["app"] for t in merged["trainJobs"]] == ["apps/a", "apps/b"]


def test_find_all_searches_the_paths_given_or_the_working_directory(tmp_path):
    _tree(tmp_path, {"apps/a/expand-trainjobs.yaml": "", "apps/b/expand-trainjobs.yaml": "", "x/expand-trainjobs.yaml": ""})
    assert apps.find_all([], str(tmp_path)) == (["."], ["apps/a", "apps/b", "x"])
    assert apps.find_all(["apps", "apps/a"], str(tmp_path)) == (["apps", "apps/a"], ["apps/a", "apps/b"])


def _job(namespace, name, file, gpus, findings=()):
    return {"namespace": namespace, "name": name, "file": file, "pods": {"node": 2}, "gpus": gpus, "cpu": "1",
            "memory": "1Gi", "findings": list(findings)}


def test_merge_review_names_each_app_and_totals_namespaces_over_all_apps():
    error = {"severity": "error", "rule": "policy/max-gpus-per-trainjob", "message": "m", "object": "TrainJob team-b/llm",
             "file": "trainjob.yaml", "line": 12, "field": "spec.trainer.resourcesPerNode"}
    config = {"severity": "warning", "rule": "", "message": "w", "object": "", "file": "expand-trainjobs.yaml", "line": 3, "field": ""}
    runtime = {**config, "file": "../../platform/runtimes/r.yaml"}
    team_a = {"trainJobs": [_job("team-a", "llm", "trainjob.yaml", 16)], "namespaces": {}, "findings": [runtime],
              "errors": 0, "warnings": 1}
    team_b = {"trainJobs": [_job("team-b", "llm", "trainjob.yaml", 8, [error]), _job("team-a", "shared", "/abs/x.yaml", 1)],
              "namespaces": {}, "findings": [config], "errors": 1, "warnings": 1}
    merged = apps.merge_review([("apps/team-a", "apps/team-a", team_a), ("apps/team-b", "apps/team-b", team_b)])
    assert merged["apps"] == ["apps/team-a", "apps/team-b"]
    assert [(j["app"], j["namespace"], j["name"], j["file"]) for j in merged["trainJobs"]] == [
        ("apps/team-a", "team-a", "llm", "apps/team-a/trainjob.yaml"),
        ("apps/team-b", "team-a", "shared", "/abs/x.yaml"),  # an extra root's absolute path stays
        ("apps/team-b", "team-b", "llm", "apps/team-b/trainjob.yaml"),
    ]
    (b,) = [j for j in merged["trainJobs"] if j["namespace"] == "team-b"]
    assert b["findings"] == [{**error, "app": "apps/team-b", "file": "apps/team-b/trainjob.yaml"}]
    assert [(f["app"], f["file"]) for f in merged["findings"]] == [
        ("apps/team-a", "platform/runtimes/r.yaml"), ("apps/team-b", "apps/team-b/expand-trainjobs.yaml")]
    # a namespace two apps deploy into is one quota: its totals count both apps' TrainJobs
    assert merged["namespaces"]["team-a"] == {"trainJobs": 2, "pods": 4, "gpus": 17, "cpu": "2", "memory": "2Gi"}
    assert (merged["errors"], merged["warnings"]) == (1, 2)
    # the inputs are not changed
    assert team_b["trainJobs"][0]["file"] == "trainjob.yaml" and "app" not in error


def test_a_directory_read_as_one_app_warns_of_the_apps_it_holds(tmp_path):
    _tree(tmp_path, {f"apps/{n}/expand-trainjobs.yaml": "" for n in "abcd"} | {"platform/r.yaml": ""})
    (warning,) = apps.configs_below(str(tmp_path))
    assert warning.severity == "warning"
    assert warning.message.startswith("4 app(s) below this directory have their own expand-trainjobs.yaml "
                                      "(apps/a, apps/b, apps/c and 1 more): ")
    assert "`--find-apps`" in warning.message
    # controls: an app (its subdirectories are its own), a directory holding no app
    assert apps.configs_below(str(tmp_path / "apps" / "a")) == []
    assert apps.configs_below(str(tmp_path / "platform")) == []
    _tree(tmp_path, {"expand-trainjobs.yaml": ""})
    assert apps.configs_below(str(tmp_path)) == []
