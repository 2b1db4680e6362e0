"""kpt_fn.formats.sarif: SARIF 2.1.0 as GitHub code scanning reads it (the schema check is in
tests/behaviour/test_validate_formats.py)."""

from __future__ import annotations

import json

from kpt_fn.formats import sarif
from unit.formats.report import NONE, RULES, finding, report


def run_of(rep):
    doc = json.loads(sarif.write(rep, RULES))
    assert (doc["$schema"], doc["version"]) == (sarif.SCHEMA, "2.1.0")
    [run] = doc["runs"]
    assert run["invocations"] == [{"executionSuccessful": True}]
    return run


def test_rules_are_the_catalogue_entries_the_findings_name_once_each():
    run = run_of(report(finding(), finding(line=9), finding(rule="other/y")))
    known, unknown = run["tool"]["driver"]["rules"]
    assert known == {"id": "k8s/x", "name": "k8s-x", "shortDescription": {"text": "What x checks"},
                     "help": {"text": "What x checks (rule family k8s; `expand-trainjobs rules` lists every rule)"},
                     "properties": {"family": "k8s", "appliesTo": "JobSet"}}
    assert (unknown["shortDescription"]["text"], unknown["properties"]) == ("other/y", {"family": "other", "appliesTo": ""})
    assert [r["ruleIndex"] for r in run["results"]] == [0, 0, 1]


def test_a_result():
    [result] = run_of(report(finding("warning")))["results"]
    assert result == {
        "level": "warning", "message": {"text": "TrainJob ns/a: spec: bad"}, "ruleId": "k8s/x", "ruleIndex": 0,
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": "app/job.yaml", "uriBaseId": "%SRCROOT%"},
                                            "region": {"startLine": 3, "startColumn": 5}}}],
        "properties": {"resource": finding()["resource"], "field": "spec"},
    }


def test_a_result_of_one_of_several_apps_names_its_app():
    [result] = run_of(report(finding(app="apps/team-b")))["results"]
    assert result["properties"]["app"] == "apps/team-b"
    [result] = run_of(report(finding()))["results"]
    assert "app" not in result["properties"]


def test_a_bare_result_has_a_level_and_a_message_only():
    [result] = run_of(report(finding("info", rule="", resource=NONE, field="", file="", line=None)))["results"]
    assert result == {"level": "note", "message": {"text": "bad"}}
    [result] = run_of(report(finding(line=None)))["results"]
    assert "region" not in result["locations"][0]["physicalLocation"]
