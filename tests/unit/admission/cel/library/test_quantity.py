import pytest

from unit.admission.cel.library.evalcase import evaluate, failure


@pytest.mark.parametrize("text, expected", [
    ("quantity('1Gi') == quantity('1024Mi')", True), ("quantity('500m').isLessThan(quantity('1'))", True),
    ("quantity('2').isGreaterThan(quantity('1500m'))", True), ("quantity('1').compareTo(quantity('1000m'))", 0),
    ("quantity('-1').sign()", -1), ("quantity('1.5').asApproximateFloat()", 1.5), ("quantity('2k').asInteger()", 2000),
    ("quantity('1500m').isInteger()", False), ("quantity('1').add(quantity('500m')) == quantity('1.5')", True),
    ("quantity('1').add(2) == quantity('3')", True), ("quantity('1').sub(quantity('1')).sign()", 0),
    ("isQuantity('1Gi')", True), ("isQuantity('1GB')", False),
    ("[quantity('2'), quantity('1')].max() == quantity('2')", True),
])
def test_quantities(text, expected):
    assert evaluate(text) == expected


def test_errors():
    assert failure("quantity('1GB')") == \
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    # the API server declares no string() of a quantity
    assert "found no matching overload for 'string'" in failure("string(quantity('1'))")
    assert failure("quantity('1500m').asInteger()") == "cannot convert value to integer"
