"""kpt_fn.formats.junit: one test case per TrainJob (and per other file with findings)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from kpt_fn.formats import junit
from unit.formats.report import NONE, RULES, finding, report


def parse(rep):
    out = junit.write(rep, RULES)
    assert out.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    return ET.fromstring(out.split("\n", 1)[1])


def test_a_trainjob_fails_with_its_errors_and_keeps_its_warnings():
    rep = report(finding(), finding("warning", message="careful"), finding(file="rt.yaml", resource=NONE, field=""),
                 trainjobs=[{"name": "a", "namespace": "ns", "file": "app/job.yaml", "line": 1, "findings": [0, 1]}])
    suites = parse(rep)
    assert (suites.get("tests"), suites.get("failures")) == ("2", "2")
    tj, other = suites.find("testsuite").findall("testcase")
    assert (tj.get("name"), tj.get("classname")) == ("TrainJob ns/a", "app/job.yaml")
    [failure] = tj.findall("failure")
    assert (failure.get("type"), failure.get("message")) == ("k8s/x", "bad")
    assert failure.text == "app/job.yaml:3:5: error: TrainJob ns/a: spec: bad [k8s/x]"
    assert tj.find("system-out").text == "app/job.yaml:3:5: warning: TrainJob ns/a: spec: careful [k8s/x]"
    assert (other.get("name"), other.get("classname")) == ("inputs rt.yaml", "rt.yaml")
    assert suites.find("testsuite").find("system-out").text == "expand-trainjobs: FAILED: 1 error(s)"


def test_a_clean_trainjob_passes_and_a_finding_without_file_has_its_own_case():
    rep = report(finding("warning", file="", line=None, rule=""),
                 trainjobs=[{"name": "a", "namespace": "", "file": "", "line": None, "findings": []}])
    suites = parse(rep)
    assert suites.get("failures") == "0"
    tj, other = suites.find("testsuite").findall("testcase")
    assert (tj.get("name"), tj.get("classname"), tj.find("failure")) == ("TrainJob a", "expand-trainjobs", None)
    assert other.get("name") == "inputs (no file)"
    assert other.find("system-out").text == "expand-trainjobs: warning: TrainJob ns/a: spec: bad"


def test_control_characters_are_escapes_not_xml_errors():
    suites = parse(report(finding(message="a\x1b[31mb\x00")))
    [case] = suites.find("testsuite").findall("testcase")
    assert case.find("failure").get("message") == "a\\x1b[31mb\\0"
