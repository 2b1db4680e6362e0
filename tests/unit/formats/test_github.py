"""kpt_fn.formats.github: one workflow command per finding, escaped as the Actions toolkit escapes."""

from __future__ import annotations

import pytest

from kpt_fn.formats import github
from unit.formats.report import NONE, RULES, finding, report


@pytest.mark.parametrize("found, line", [
    (finding(), "::error file=app/job.yaml,line=3,col=5,title=k8s/x::TrainJob ns/a: spec: bad"),
    (finding("warning", line=None), "::warning file=app/job.yaml,title=k8s/x::TrainJob ns/a: spec: bad"),
    (finding("info", rule="", file="", resource=NONE, field=""), "::notice::bad"),
    # A newline cannot start a second command; ':' and ',' cannot end a property.
    (finding(message="50%\r\n::error::forged"), "::error file=app/job.yaml,line=3,col=5,title=k8s/x::TrainJob ns/a: spec: 50%25%0D%0A::error::forged"),
    (finding(file="a,b:c.yaml", line=1), "::error file=a%2Cb%3Ac.yaml,line=1,col=5,title=k8s/x::TrainJob ns/a: spec: bad"),
])
def test_one_annotation_per_finding(found, line):
    assert github.write(report(found), RULES).splitlines() == [line, "expand-trainjobs: FAILED: 1 error(s)"]


def test_no_findings_is_the_summary_alone():
    assert github.write({**report(), "summary": "ok\nforged"}, RULES) == "ok%0Aforged\n"
