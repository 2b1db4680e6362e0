import math

import pytest

from kpt_fn.admission.cel import operators, runtime
from kpt_fn.admission.cel.values import EvalError, UInt


class _Run:
    cost = 0

    def charge(self, n):
        self.cost += n


@pytest.mark.parametrize("name, a, b, expected", [
    ("_+_", 1, 2, 3), ("_+_", UInt(1), UInt(2), UInt(3)), ("_-_", 1.5, 0.5, 1.0), ("_*_", 3, -2, -6),
    ("_/_", -7, 2, -3), ("_/_", UInt(7), UInt(2), UInt(3)), ("_%_", -7, 2, -1), ("_/_", -1.0, 0.0, -math.inf),
    ("_==_", 1, 1.0, True), ("_!=_", "a", "b", True), ("_<_", 1, UInt(2), True), ("_>=_", "b", "a", True),
    ("@in", 2, [1, 2], True), ("@in", "k", {"k": 1}, True), ("_<_", math.nan, 1.0, False),
])
def test_operators(name, a, b, expected):
    result = operators.OPERATORS[name](_Run(), a, b)
    assert result == expected and type(result) is type(expected)


@pytest.mark.parametrize("name, a, b, message", [
    ("_+_", 1, 1.0, "no such overload: _+_"), ("_-_", "a", "b", "no such overload: _-_"),
    ("_*_", 2**62, 4, "integer overflow"), ("_%_", 1.0, 2.0, "no such overload: _%_"),
    ("@in", 1, 1, "no such overload: @in"), ("_/_", 1, 0, "division by zero"),
])
def test_operator_errors(name, a, b, message):
    with pytest.raises(EvalError) as info:
        operators.OPERATORS[name](_Run(), a, b)
    assert info.value.message == message


def test_string_costs():
    r = _Run()
    operators.add(r, "a" * 100, "b" * 100)
    assert r.cost == 20 - 1  # the evaluator adds the call's 1
    assert runtime.MAX_LIST_SIZE > 0
