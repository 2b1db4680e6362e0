import math

import pytest

from kpt_fn.admission.cel import stdlib
from kpt_fn.admission.cel.runtime import NONE, Optional
from kpt_fn.admission.cel.values import EvalError, UInt


@pytest.mark.parametrize("f, text", [
    (1.0, "1"), (1.5, "1.5"), (1e20, "100000000000000000000"), (1e21, "1e+21"), (1e-5, "1e-05"),
    (0.0001, "0.0001"), (123456.0, "123456"), (-2.5, "-2.5"), (math.inf, "+Inf"), (math.nan, "NaN"),
    (1.25e-7, "1.25e-07"), (-0.0, "-0"),
])
def test_go_float_text(f, text):
    # strconv.FormatFloat(f, 'g', -1, 64) as Go prints it
    assert stdlib.go_float_text(f) == text


@pytest.mark.parametrize("fn, arg, expected", [
    (stdlib.to_int, "-12", -12), (stdlib.to_int, 2.9, 2), (stdlib.to_int, -2.9, -2), (stdlib.to_int, UInt(3), 3),
    (stdlib.to_uint, 3, UInt(3)), (stdlib.to_uint, "7", UInt(7)), (stdlib.to_double, "1.5", 1.5),
    (stdlib.to_double, 2, 2.0), (stdlib.to_string, True, "true"), (stdlib.to_string, b"ab", "ab"),
    (stdlib.to_bytes, "é", "é".encode()), (stdlib.to_bool, "TRUE", True), (stdlib.to_bool, "f", False),
])
def test_conversions(fn, arg, expected):
    assert fn(arg) == expected


@pytest.mark.parametrize("fn, arg, message", [
    (stdlib.to_int, "1.5", 'strconv.ParseInt: parsing "1.5": invalid syntax'),
    (stdlib.to_int, 1e19, "integer overflow"), (stdlib.to_int, UInt(2**63), "integer overflow"),
    (stdlib.to_uint, -1, "unsigned integer overflow"), (stdlib.to_string, b"\xff", "invalid UTF-8"),
    (stdlib.to_bool, "yes", "type conversion error from 'string' to 'bool'"),
    (stdlib.to_double, "x", 'strconv.ParseFloat: parsing "x": invalid syntax'),
])
def test_conversion_errors(fn, arg, message):
    with pytest.raises(EvalError) as info:
        fn(arg)
    assert message in info.value.message


def test_optional_functions():
    assert stdlib._opt_of_non_zero(0) is NONE and stdlib._opt_of_non_zero([1]).present
    assert stdlib._or_value(NONE, 3) == 3 and stdlib._or_value(Optional(1, True), 3) == 1
    with pytest.raises(EvalError):
        stdlib._has_value(1)


def test_string_predicates_refuse_other_types():
    assert stdlib._contains("abc", "b") and stdlib._starts("abc", "a") and stdlib._ends("abc", "c")
    with pytest.raises(EvalError):
        stdlib._contains("abc", 1)
    assert stdlib._contains_cost(["a" * 100, "b" * 20], True) == 10 * 2
    assert stdlib._string_cost(["a" * 55], True) == 6
    assert stdlib.type_of(1).name == "int" and stdlib._dyn(1) == 1 and stdlib._size("ab") == 2
    assert stdlib._opt_none() is NONE and stdlib._value(stdlib._opt_of(1)) == 1
    assert stdlib._or(NONE, stdlib._opt_of(2)).value == 2
