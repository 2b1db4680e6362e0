import pytest

from kpt_fn.admission import cel


@pytest.mark.parametrize("text, expected", [
    # cel-go v0.26.0 cel/library.go's examples of the optional library
    ("[1, 2, 3].first().value()", 1), ("[].first().hasValue()", False), ("[1, 2, 3].last().value()", 3),
    ("optional.unwrap([optional.of(1), optional.none()])", [1]), ("[optional.of(42), optional.none()].unwrapOpt()", [42]),
    ("{'k': {'s': 'v'}}.?k.optFlatMap(k, k.?s).value()", "v"), ("{'k': {}}.?k.optFlatMap(k, k.?s).hasValue()", False),
])
def test_optional_library(text, expected):
    assert cel.compile(text, {}).evaluate({}) == expected
