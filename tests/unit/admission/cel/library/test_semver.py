import pytest

from kpt_fn.admission.cel.library import semver

from unit.admission.cel.library.evalcase import evaluate, failure


@pytest.mark.parametrize("text, expected", [
    ("semver('1.2.3').major()", 1), ("semver('1.2.3').minor()", 2), ("semver('1.2.3').patch()", 3),
    ("semver('1.2.3').isLessThan(semver('1.10.0'))", True), ("semver('1.0.0-alpha').isLessThan(semver('1.0.0'))", True),
    ("semver('1.0.0-alpha.1').isLessThan(semver('1.0.0-alpha.beta'))", True),
    ("semver('1.0.0-2').isLessThan(semver('1.0.0-10'))", True), ("semver('1.0.0+a') == semver('1.0.0+b')", True),
    ("semver('2.0.0').compareTo(semver('1.9.9'))", 1), ("isSemver('1.2')", False), ("isSemver('v1.2', true)", True),
    ("semver('v01.02', true) == semver('1.2.0')", True), ("isSemver('1.2.3-01')", False),
])
def test_semver(text, expected):
    assert evaluate(text) == expected


def test_errors():
    assert failure("semver('1.2')") == "No Major.Minor.Patch elements found"
    assert failure("semver('01.2.3')") == 'Major number must not contain leading zeroes "01"'
    assert failure("semver('1.2-a', true)") == "short version cannot contain PreRelease/Build meta data"
    assert semver.parse("1.2.3-rc.1+build.5").cel_string() == "1.2.3-rc.1+build.5"
