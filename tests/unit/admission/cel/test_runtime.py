import math

import pytest

from kpt_fn.admission.cel import runtime
from kpt_fn.admission.cel.values import EvalError, Lazy, UInt


@pytest.mark.parametrize("a, b, same", [
    (1, 1.0, True), (1, UInt(1), True), (True, 1, False), ("a", "a", True), ([1, "a"], [1.0, "a"], True),
    ({"a": 1}, {"a": 1.0}, True), ({1: "x"}, {1.0: "x"}, True), (None, None, True), (None, 0, False),
    (math.nan, math.nan, False), (b"a", "a", False), ([1], [1, 2], False),
])
def test_heterogeneous_equality(a, b, same):
    assert runtime.equal(a, b) is same


def test_compare_across_numbers_and_refusing_mixed_types():
    assert runtime.compare(1, 1.5) == -1 and runtime.compare(UInt(2), 1) == 1
    assert runtime.compare(math.nan, 1) == 2
    with pytest.raises(EvalError, match="no such overload"):
        runtime.compare("a", 1)


def test_map_get_matches_numeric_keys_across_types():
    assert runtime.map_get({1: "x"}, UInt(1)) == (True, "x")
    assert runtime.map_get({1: "x"}, 1.5) == (False, None)
    assert runtime.map_get({True: "x"}, 1) == (False, None)


def test_charge_stops_at_the_limit():
    r = runtime.Run({}, 10)
    r.charge(10)
    with pytest.raises(EvalError, match="operation cancelled: actual cost limit exceeded"):
        r.charge(1)


def test_lazy_values_are_computed_once_and_their_errors_kept():
    calls = []

    def thunk():
        calls.append(1)
        raise EvalError("no such key: x")

    lazy = Lazy(thunk)
    cache = {}
    for _ in range(2):
        with pytest.raises(EvalError):
            runtime.resolve(lazy, cache)
    assert calls == [1]


def test_missing_variable():
    with pytest.raises(EvalError, match="no such attribute"):
        runtime.Run({}, 1).variable("object")


def test_type_names_and_sizes():
    assert [runtime.type_name(v) for v in (None, True, 1, UInt(1), 1.0, "", b"", [], {})] == \
        ["null_type", "bool", "int", "uint", "double", "string", "bytes", "list", "map"]
    assert runtime.actual_size("abc") == 3 and runtime.actual_size(1) == 1
    assert runtime.actual_size(runtime.Optional([1, 2], True)) == 2
    with pytest.raises(EvalError):
        runtime.size(1)
    assert runtime.as_bool(True) is True


def test_succeeds():
    def parse(text):
        if text != "ok":
            raise EvalError("bad")
        return text

    assert runtime.succeeds(parse, "ok") is True and runtime.succeeds(parse, "no") is False
    with pytest.raises(EvalError, match="no such overload"):
        runtime.succeeds(runtime.size, 1)
