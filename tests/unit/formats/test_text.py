"""kpt_fn.formats.text: one line per finding, `path:line:col: severity: message [rule-id]`, inert."""

from __future__ import annotations

import re

import pytest

from kpt_fn.formats import text
from unit.formats.report import NONE, RULES, finding, report

# What a problem matcher (GitHub's, an editor's, an IDE's) reads from a line of the one form.
MATCHER = re.compile(r"^(?P<file>[^:\s][^:]*):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning|info): (?P<message>.*) \[(?P<rule>[^\]]+)\]$")


@pytest.mark.parametrize("found, line", [
    (finding(), "app/job.yaml:3:5: error: TrainJob ns/a: spec: bad [k8s/x]"),
    (finding("warning", line=None), "app/job.yaml: warning: TrainJob ns/a: spec: bad [k8s/x]"),
    (finding(field=""), "app/job.yaml:3:5: error: TrainJob ns/a: bad [k8s/x]"),
    (finding("info", file="", resource=NONE, field=""), "expand-trainjobs: info: bad [k8s/x]"),
    (finding(file="", app="apps/team-b"), "apps/team-b: error: TrainJob ns/a: spec: bad [k8s/x]"),
    (finding(rule=""), "app/job.yaml:3:5: error: TrainJob ns/a: spec: bad"),
])
def test_one_line_per_finding(found, line):
    assert text.line(found) == line


def test_a_matcher_reads_the_place_severity_message_and_rule():
    m = MATCHER.match(text.line(finding(message="numNodes: must be >= 1 [see docs]")))
    assert m.group("file", "line", "col", "severity", "rule") == ("app/job.yaml", "3", "5", "error", "k8s/x")
    assert m.group("message") == "TrainJob ns/a: spec: numNodes: must be >= 1 [see docs]"


@pytest.mark.parametrize("name", [
    "a.yaml:12:3: error: forged [x]",   # a place and a finding in a file name
    "::error::forged.yaml",             # a runner command at the line's start
    "a\nb.yaml:1:1: error: x [y]",      # a second line
    "\x1b[31mred.yaml",                 # ANSI escapes
    "##[error]x.yaml",                  # the runner's legacy command anywhere in a line
])
def test_a_file_name_cannot_forge_a_place_a_finding_or_a_command(name):
    line = text.line(finding(file=name))
    assert "\n" not in line and "\r" not in line and "\x1b" not in line and "##[" not in line
    assert not line.startswith("::")
    m = MATCHER.match(line)
    assert m and m.group("line", "col", "severity", "rule") == ("3", "5", "error", "k8s/x")
    assert ":" not in m.group("file")  # the name's own colons are escapes: one place, the real one


def test_a_message_cannot_start_another_line():
    line = text.line(finding(message="x\nexpand-trainjobs: ok: 0 error(s)\r\n::error::y"))
    assert line.count("\n") == 0 and "\\nexpand-trainjobs: ok" in line


def test_write_is_the_summary_and_the_lines():
    assert text.write(report(finding(), finding("warning")), RULES).splitlines() == [
        "expand-trainjobs: FAILED: 1 error(s)", "app/job.yaml:3:5: error: TrainJob ns/a: spec: bad [k8s/x]",
        "app/job.yaml:3:5: warning: TrainJob ns/a: spec: bad [k8s/x]"]
