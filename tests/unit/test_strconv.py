"""kpt_fn.strconv: Go's strconv.ParseInt (base 10) and ParseBool, held to Go's own cases.

The cases follow strconv's tests (src/strconv/atoi_test.go parseInt64Tests / parseBaseBitSizeTests,
atob_test.go atobtests) in what they accept and refuse; the long texts are the ones Python alone
would trip on (more than 4,300 digits)."""

from __future__ import annotations

import pytest

from kpt_fn import strconv

SYNTAX, RANGE = strconv.SYNTAX, strconv.RANGE


@pytest.mark.parametrize("text, expected", [
    ("0", (0, "")), ("-0", (0, "")), ("+0", (0, "")), ("1", (1, "")), ("-1", (-1, "")), ("+1", (1, "")),
    ("12345", (12345, "")), ("-12345", (-12345, "")), ("012345", (12345, "")), ("-012345", (-12345, "")),
    ("9223372036854775807", (2**63 - 1, "")), ("-9223372036854775808", (-(2**63), "")),
    ("9223372036854775808", (None, RANGE)), ("-9223372036854775809", (None, RANGE)),
    ("", (None, SYNTAX)), ("+", (None, SYNTAX)), ("-", (None, SYNTAX)), ("++1", (None, SYNTAX)),
    ("+-1", (None, SYNTAX)), ("12345x", (None, SYNTAX)), ("1_000", (None, SYNTAX)), ("0x10", (None, SYNTAX)),
    (" 1", (None, SYNTAX)), ("1 ", (None, SYNTAX)), ("1\n", (None, SYNTAX)), ("\t1", (None, SYNTAX)),
    ("1.0", (None, SYNTAX)), ("1e3", (None, SYNTAX)),
    # digits Python's int() reads and Go's strconv does not
    ("\u00b2", (None, SYNTAX)), ("\uff11\uff12", (None, SYNTAX)), ("\u0967", (None, SYNTAX)),
    # measured, never converted: Python refuses more than 4,300 digits
    ("0" * 5000 + "7", (7, "")), ("-" + "0" * 5000, (0, "")), ("1" * 5000, (None, RANGE)),
    ("-" + "1" * 5000, (None, RANGE)), ("1" * 5000 + "x", (None, SYNTAX)),
])
def test_parse_int_64(text, expected):
    assert strconv.parse_int(text) == expected


@pytest.mark.parametrize("text, bits, expected", [
    ("2147483647", 32, (2**31 - 1, "")), ("2147483648", 32, (None, RANGE)), ("-2147483648", 32, (-(2**31), "")),
    ("-2147483649", 32, (None, RANGE)), ("127", 8, (127, "")), ("128", 8, (None, RANGE)),
])
def test_parse_int_bit_sizes(text, bits, expected):
    assert strconv.parse_int(text, bits) == expected


@pytest.mark.parametrize("text, expected", [
    ("1", True), ("t", True), ("T", True), ("TRUE", True), ("true", True), ("True", True),
    ("0", False), ("f", False), ("F", False), ("FALSE", False), ("false", False), ("False", False),
    ("", None), ("asdf", None), ("tRuE", None), ("yes", None), ("on", None), (" true", None), ("true\n", None),
    ("2", None), (True, None), (1, None),
])
def test_parse_bool(text, expected):
    assert strconv.parse_bool(text) is expected
