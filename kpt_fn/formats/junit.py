"""`--format junit`: JUnit XML, one test case per TrainJob (and one per other file with findings).

A TrainJob's case fails with its errors (each a <failure>, its text the finding's one line,
`path:line:col: severity: message [rule-id]`: kpt_fn.formats.text), warnings go to its <system-out>; a file
with findings that belong to no TrainJob (a runtime, the config) is a case of its own. Texts are
escaped by ElementTree and their control characters, which XML 1.0 cannot carry, are written as
escapes first (kpt_fn.results.escape).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from kpt_fn.formats.text import line as _line
from kpt_fn.results import escape


def _case(suite, name: str, classname: str, findings: list) -> None:
    case = ET.SubElement(suite, "testcase", name=escape(name), classname=escape(classname))
    errors = [f for f in findings if f["severity"] == "error"]
    for f in errors:
        failure = ET.SubElement(case, "failure", type=escape(f["rule"] or "error"), message=escape(f["message"]))
        failure.text = _line(f)
    rest = [f for f in findings if f["severity"] != "error"]
    if rest:
        ET.SubElement(case, "system-out").text = "\n".join(_line(f) for f in rest)


def write(report: dict, rules: list) -> str:
    findings = report["findings"]
    owned = set()
    cases = []
    for tj in report["trainJobs"]:
        mine = [findings[i] for i in tj["findings"]]
        owned.update(tj["findings"])
        name = f"TrainJob {tj['namespace'] + '/' if tj['namespace'] else ''}{tj['name']}"
        cases.append((name, tj["file"] or "expand-trainjobs", mine))
    others: dict = {}
    for i, f in enumerate(findings):
        if i not in owned:
            others.setdefault(f["file"] or "(no file)", []).append(f)
    for file, mine in others.items():
        cases.append((f"inputs {file}", file, mine))
    failures = sum(1 for _, _, mine in cases if any(f["severity"] == "error" for f in mine))
    suites = ET.Element("testsuites", name="expand-trainjobs", tests=str(len(cases)), failures=str(failures))
    suite = ET.SubElement(suites, "testsuite", name="expand-trainjobs validate", tests=str(len(cases)),
                          failures=str(failures), errors="0", skipped="0")
    for name, classname, mine in cases:
        _case(suite, name, classname, mine)
    ET.SubElement(suite, "system-out").text = escape(report["summary"])
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
