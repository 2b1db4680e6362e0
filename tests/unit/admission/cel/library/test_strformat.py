import math

import pytest

from kpt_fn.admission.cel.library import strformat

from unit.admission.cel.library.evalcase import evaluate, failure


@pytest.mark.parametrize("text, expected", [
    # cel-go v0.26.0 ext/strings.go's documented examples of format
    ("'this is a string: %s\\nand an integer: %d'.format(['str', 42])", "this is a string: str\nand an integer: 42"),
    ("'a double substituted with %%s: %s'.format([64.2])", "a double substituted with %s: 64.2"),
    ("'string type: %s'.format([type('a')])", "string type: string"),
    ("'duration: %s'.format([duration('1h45m47s')])", "duration: 6347s"),
    ("'%f'.format([3.14])", "3.140000"), ("'5 in binary: %b'.format([5])", "5 in binary: 101"),
    ("'26 in hex: %x'.format([26])", "26 in hex: 1a"), ("'26 in hex (uppercase): %X'.format([26])", "26 in hex (uppercase): 1A"),
    ("'30 in octal: %o'.format([30])", "30 in octal: 36"),
    ("'a map inside a list: %s'.format([[1, 2, 3, {'a': 'x', 'b': 'y', 'c': 'z'}]])",
     'a map inside a list: [1, 2, 3, {"a":"x", "b":"y", "c":"z"}]'),
    ("'true bool: %s - false bool: %s\\nbinary bool: %b'.format([true, false, true])",
     "true bool: true - false bool: false\nbinary bool: 1"),
    ("'%.2f'.format([1234.5])", "1,234.50"), ("'%x'.format(['Hi'])", "4869"), ("'%s'.format([null])", "null"),
    ("'timestamp: %s'.format([timestamp('2023-02-03T23:31:20+00:00')])", "timestamp: 2023-02-03T23:31:20Z"),
])
def test_documented_examples(text, expected):
    assert evaluate(text) == expected


@pytest.mark.parametrize("text, message", [
    ("'%d %d'.format([1])", "index 1 out of range"),
    ("'%d'.format(['a'])", "error during formatting: decimal clause can only be used on integers, was given string"),
    ("'%z'.format([1])", 'could not parse formatting clause: unrecognized formatting clause "z"'),
    ("'%e'.format([1.0])", "error during formatting: the scientific clause (%e) prints with golang.org/x/text's locale notation, which this offline evaluation does not emulate"),
])
def test_errors(text, message):
    assert failure(text) == message


def test_helpers():
    assert strformat._go_quote('a"\n\x01') == '"a\\"\\n\\x01"'
    assert strformat._fixed(math.inf, 2) == "∞"
    assert strformat._clause_for(1.5) == "1.500000"
