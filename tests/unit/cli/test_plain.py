"""kpt_fn.cli.plain: the plain modes over files: the app directory, Argo CD's parameters and its trim of
the output's last line break, the functionConfig file (what `render` makes of an app is tested with
the modules it runs: tests/unit/test_sources.py, test_argocd.py, test_output.py)."""

from __future__ import annotations

import json
import os

import pytest

from kpt_fn.cli import plain
from kpt_fn.problems import ERROR


def test_app_dir(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "f.yaml").write_text("")
    assert plain.app_dir(["app"], str(tmp_path)) == (os.path.join(str(tmp_path), "app"), ["."])  # DIR: rendered as the app
    assert plain.app_dir(["app/"], str(tmp_path))[0] == os.path.join(str(tmp_path), "app")
    assert plain.app_dir([], str(tmp_path)) == (str(tmp_path), ["."])
    assert plain.app_dir(["f.yaml"], str(tmp_path)) == (str(tmp_path), ["f.yaml"])
    assert plain.app_dir(["app", "f.yaml"], str(tmp_path)) == (str(tmp_path), ["app", "f.yaml"])


@pytest.mark.parametrize("out, end", [
    ("", ""),
    ("a: 1\n", ""),                                       # no block scalar: the trim changes nothing
    ("a: |-\n  x\n", ""),                                 # `|-` strips: the same without the last line break
    ("a: |\n  x\n", plain.END_LINE),                      # `|` keeps one: a comment line protects it
    ("a: |+\n  x\n", plain.END_LINE),
    ("a: 1\n---\nb: |+\n  x\n", plain.END_LINE),          # the last document decides
    ("a: |+\n  x\n---\nb: 1\n", ""),
    ("---\nb: >+\n  x\n", plain.END_LINE),
])
def test_argocd_safe_end(out, end):
    assert plain.argocd_safe_end(out) == end


def test_load_config_file(tmp_path):
    one = tmp_path / "one.yaml"
    one.write_text("kind: ExpandTrainJobs\n")
    assert plain.load_config_file(str(one)) == ({"kind": "ExpandTrainJobs"}, [])
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    assert plain.load_config_file(str(empty)) == (None, [])
    two = tmp_path / "two.yaml"
    two.write_text("kind: A\n---\nkind: B\n")
    fc, [problem] = plain.load_config_file(str(two))
    assert fc is None and problem.message == f"{two}: expected one functionConfig object, found 2"
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: [\n")
    fc, problems = plain.load_config_file(str(bad))
    assert fc is None and problems and problems[0].severity == ERROR


# --- Argo CD parameters ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, message",
    [
        ("{not json", "ARGOCD_APP_PARAMETERS is not valid JSON"),
        ('{"name": "namespace", "string": "x"}', "ARGOCD_APP_PARAMETERS must be a JSON list of parameters, found an object"),
        ('[{"name": "nodeSelector", "map": {"a": "b"}}]', "parameter 'nodeSelector' is a map parameter"),
        ('[{"name": 3, "string": "x"}]', "ARGOCD_APP_PARAMETERS[0] has no name (a non-empty string), found a number"),
        ('["namespace"]', "ARGOCD_APP_PARAMETERS[0] must be an object with a name, found a string"),
        ('[{"name": "namespace", "string": 5}]', "parameter 'namespace': string must be a string, found a number"),
        ('[{"name": "runtimeDirs", "array": [1]}]', "parameter 'runtimeDirs': array must be a list of strings"),
    ],
)
def test_malformed_argocd_parameters_are_errors(raw, message):
    fc, problems = plain.config_from_argocd_env({"ARGOCD_APP_PARAMETERS": raw})
    assert [p.severity for p in problems] == [ERROR]
    assert problems[0].message.startswith(message), problems[0].message


def test_argocd_parameters_null_and_well_formed():
    assert plain.config_from_argocd_env({"ARGOCD_APP_PARAMETERS": "null"}) == (None, [])
    fc, problems = plain.config_from_argocd_env(
        {"ARGOCD_APP_PARAMETERS": json.dumps([{"name": "namespace", "string": "ml"}, {"name": "runtimeDirs", "array": ["a", "b"]}])}
    )
    assert problems == [] and fc["data"] == {"namespace": "ml", "runtimeDirs": "a,b"}


def _fixture_dirs():
    from pathlib import Path

    root = Path(__file__).resolve().parents[3] / "fixtures"
    return sorted(str(d) for base in ("examples", "bad", "lifecycle", "kueue", "k8s", "numbers") for d in (root / base).glob("*")
                  if d.is_dir() and any(d.rglob("*.yaml")))


def test_a_whole_object_result_has_the_line_composing_would_find():
    """expand numbers the results about whole objects from the read (sources.Reader.document_lines);
    kpt_fn.lines, composing each file again, finds the same lines."""
    from kpt_fn import lines

    numbered = 0
    for directory in _fixture_dirs():
        outcome = plain.expand(["."], directory, {}, mode="validate")
        whole = [r for r in outcome.results if r.file and not r.field]
        known = [r.lineno for r in whole]
        for r in whole:
            r.lineno = 0
        lines.locate(whole, directory)
        assert known == [r.lineno for r in whole], directory
        numbered += sum(1 for n in known if n)
    assert numbered >= 3  # MPI and Flux references, duplicates, runtimes nothing uses, ...


# --- an app that holds no TrainJob (issue 34, point 1) ---------------------------------------------


def test_a_configured_app_without_trainjobs_renders_nothing_and_says_so(tmp_path):
    # Its last TrainJob removed from Git: the marker file says this is an app, so empty output is its
    # result (exit 0), not a failure; stderr's second line says why.
    (tmp_path / "expand-trainjobs.yaml").write_text("")
    (tmp_path / "notes.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n"
        '    config.kubernetes.io/local-config: "true"\n'
    )
    stdout, lines, code = plain.render([], str(tmp_path), {})
    assert (stdout, code) == ("", 0)
    assert lines == ["expand-trainjobs: ok: 0 error(s), 0 warning(s); rendered 0 of 0 TrainJob(s) into 0 object(s)",
                     plain.EMPTY_RENDER]


def test_every_kind_of_configuration_allows_an_empty_render(tmp_path):
    (tmp_path / "cfg.yaml").write_text("apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nmetadata:\n  name: x\n")
    assert plain.render([], str(tmp_path), {}, config="cfg.yaml")[2] == 0
    params = {"ARGOCD_APP_PARAMETERS": '[{"name": "namespace", "string": "ml"}]'}
    assert plain.render([], str(tmp_path), params)[2] == 0
    assert plain.render([], str(tmp_path), {"PARAM_NAMESPACE": "ml"})[2] == 0


def test_nothing_found_without_a_configuration_still_fails(tmp_path):
    # No marker, no YAML: a mistyped directory must not reach a client that prunes.
    stdout, lines, code = plain.render([], str(tmp_path), {})
    assert (stdout, code) == ("", 1)
    assert lines[1] == f"expand-trainjobs: error: {plain.NOTHING_TO_APPLY} [output/nothing-to-apply]"
    stdout, lines, code = plain.render(["no-such-app"], str(tmp_path), {})
    assert code == 1 and "no-such-app: no such file or directory" in lines[1]


def test_a_kustomize_generator_without_trainjobs_generates_nothing(tmp_path):
    (tmp_path / "expander.yaml").write_text("apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nmetadata:\n  name: x\n"
                                            "spec:\n  trainJobs: []\n")
    stdout, lines, code = plain.kustomize_plugin(str(tmp_path / "expander.yaml"), b"", {}, str(tmp_path))
    assert (stdout, code, lines[1]) == ("", 0, plain.EMPTY_RENDER)
