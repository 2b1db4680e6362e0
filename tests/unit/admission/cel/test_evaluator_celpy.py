"""Property test: the evaluator against cel-python (a test dependency) as the oracle, on random
expressions of the standard subset where the two implementations of the CEL spec agree (integer and
string arithmetic, comparisons, logic with error absorption, ternaries, lists, `in`, `size`, string
predicates and the macros). cel-python type-checks nothing, so both run unchecked here: the
expressions are built well-typed, and where one errors the other must error too."""

from __future__ import annotations

import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kpt_fn.admission.cel import engine, parser
from kpt_fn.admission.cel.evaluator import Compiler
from kpt_fn.admission.cel.runtime import Run, equal
from kpt_fn.admission.cel import environment
from kpt_fn.admission.cel.values import EvalError

celpy = pytest.importorskip("celpy")

_INTS = st.integers(min_value=-(2**63), max_value=2**63 - 1) | st.integers(min_value=-20, max_value=20)
_STRINGS = st.text(alphabet="abcxyz ", max_size=6)


def _int_expr(depth):
    leaf = _INTS.map(str) | st.sampled_from(["size('abc')", "size([1, 2])", "[4, 5, 6][1]"])
    if depth <= 0:
        return leaf
    sub = _int_expr(depth - 1)
    return leaf | st.tuples(sub, st.sampled_from(["+", "-", "*", "/", "%"]), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})") \
        | st.tuples(_bool_expr(depth - 1), sub, sub).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})")


def _str_expr(depth):
    leaf = _STRINGS.map(lambda s: f"'{s}'")
    if depth <= 0:
        return leaf
    sub = _str_expr(depth - 1)
    return leaf | st.tuples(sub, sub).map(lambda t: f"({t[0]} + {t[1]})")


def _bool_expr(depth):
    leaf = st.sampled_from(["true", "false", "(1 / 0 == 1)", "([1][3] == 1)"])
    if depth <= 0:
        return leaf
    sub, ints, strs = _bool_expr(depth - 1), _int_expr(depth - 1), _str_expr(depth - 1)
    logic = st.tuples(sub, st.sampled_from(["&&", "||"]), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})")
    int_compare = st.tuples(ints, st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), ints) \
        .map(lambda t: f"({t[0]} {t[1]} {t[2]})")
    str_compare = st.tuples(strs, st.sampled_from(["<", "==", "!="]), strs).map(lambda t: f"({t[0]} {t[1]} {t[2]})")
    # a literal receiver: cel-python's `+` of two strings returns a plain str without these methods
    predicate = st.tuples(_str_expr(0), st.sampled_from(["contains", "startsWith", "endsWith"]), strs) \
        .map(lambda t: f"{t[0]}.{t[1]}({t[2]})")
    member = st.tuples(ints, st.lists(ints, max_size=3)).map(lambda t: f"({t[0]} in [{', '.join(t[1])}])")
    # exists_one's body never errors here: cel-python raises its error past `||` and `&&`
    # (`true || [0].exists_one(x, 10 / x > 1)` is an error there, true in cel-go and the CEL spec,
    # whose logic absorbs it; here too), where its all and exists return an error value as the spec does.
    macro = (st.tuples(st.lists(ints, max_size=3), st.sampled_from(["all", "exists"]),
                       st.sampled_from(["x > 0", "x % 2 == 0", "10 / x > 1"]))
             | st.tuples(st.lists(ints, max_size=3), st.just("exists_one"), st.sampled_from(["x > 0", "x % 2 == 0"]))) \
        .map(lambda t: f"[{', '.join(t[0])}].{t[1]}(x, {t[2]})")
    return leaf | logic | sub.map(lambda s: f"!{s}") | int_compare | str_compare | predicate | member | macro


def ours(text):
    tree, _ = parser.parse(text)
    fn = Compiler(environment.functions(), frozenset()).compile(tree)
    try:
        return True, fn(Run({}, 10**9))
    except EvalError as exc:
        return False, exc.message


def theirs(text):
    limit = sys.getrecursionlimit()  # cel-python's parser raises it for good; put it back
    env = celpy.Environment()
    try:
        result = env.program(env.compile(text)).evaluate({})
    except celpy.CELEvalError as exc:
        return False, str(exc)
    finally:
        sys.setrecursionlimit(limit)
    if isinstance(result, celpy.CELEvalError):
        return False, str(result)
    return True, result


def _plain(value):
    from celpy import celtypes

    if isinstance(value, (bool, celtypes.BoolType)):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, str):
        return str(value)
    return value


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_bool_expr(3) | _int_expr(3) | _str_expr(2))
def test_agrees_with_cel_python(text):
    ok, value = ours(text)
    their_ok, their_value = theirs(text)
    assert ok == their_ok, (text, value, their_value)
    if ok:
        assert equal(value, _plain(their_value)), (text, value, their_value)


def test_exists_one_errors_are_absorbed_by_logic_as_the_spec_says():
    # What cel-python gets wrong (above), held against the spec's truth tables instead.
    assert ours("(true || [0].exists_one(x, 10 / x > 1))") == (True, True)
    assert ours("(false && [0].exists_one(x, 10 / x > 1))") == (True, False)
    assert ours("(false || [0].exists_one(x, 10 / x > 1))")[0] is False


def test_engine_is_used_unchecked_here():
    # the property runs the evaluator without the checker (cel-python checks no types); compile adds it
    assert engine.compile_program("1 + 1", {}, None).evaluate({}) == 2
