"""Evaluation semantics (cel-go's), through compile so that each case is what a policy would write."""

import math

import pytest

from kpt_fn.admission import cel
from kpt_fn.admission.cel import evaluator, runtime
from kpt_fn.admission.cel.values import UInt, Unknown

DECLS = {"x": "dyn", "m": "dyn", "u": "dyn"}


def run(text, **activation):
    program = cel.compile(text, DECLS)
    assert isinstance(program, cel.Program), program
    return program.run({"x": None, "m": {}, "u": None, **activation})


def value(text, **activation):
    return run(text, **activation).value


def error(text, **activation):
    with pytest.raises(cel.EvalError) as info:
        run(text, **activation)
    return info.value.message


@pytest.mark.parametrize("text, expected", [
    ("1 + 2 * 3", 7), ("7 / 2", 3), ("-7 / 2", -3), ("-7 % 3", -1), ("7 % -3", 1), ("2u * 3u", UInt(6)),
    ("1.0 / 0.0", math.inf), ("'a' + 'b'", "ab"), ("b'a' + b'b'", b"ab"), ("[1] + [2]", [1, 2]),
    ("1 < 1.5", True), ("2u > 1", True), ("'a' < 'b'", True), ("false < true", True),
    ("x.a", 1), ("x['a']", 1), ("m[1]", "one"), ("m[1u]", "one"), ("m[1.0]", "one"), ("[1, 2][1]", 2),
    ("1 in [dyn(1.0)]", True), ("'a' in {'a': 1}", True), ("dyn(1) == 1.0", True), ("dyn(1) == '1'", False),
    ("{'a': 1} == {'a': dyn(1.0)}", True), ("type(1) == int", True), ("type('a') == string", True),
    ("true ? 1 : 2", 1), ("!true", False), ("-(-1)", 1), ("has(x.a)", True), ("has(x.b)", False),
    ("x.?b.orValue(5)", 5), ("x.?a.orValue(5)", 1), ("x.?a.hasValue()", True), ("[?x.?b, dyn(1)]", [1]),
    ("{?'k': x.?b}", {}), ("optional.of(1).value()", 1), ("optional.none().or(optional.of(2)).value()", 2),
    ("optional.ofNonZeroValue('').hasValue()", False), ("x.?a.optMap(v, v + 1).value()", 2),
    ("x.?b.optMap(v, v + 1).hasValue()", False),
])
def test_values(text, expected):
    result = value(text, x={"a": 1}, m={1: "one"})
    assert result == expected and type(result) is type(expected)


@pytest.mark.parametrize("text, message", [
    ("9223372036854775807 + 1", "integer overflow"), ("-9223372036854775808 - 1", "integer overflow"),
    ("-(-9223372036854775808)", "integer overflow"), ("1 / 0", "division by zero"), ("1 % 0", "modulus by zero"),
    ("0u - 1u", "unsigned integer overflow"), ("18446744073709551615u + 1u", "unsigned integer overflow"),
    ("x.b", "no such key: b"), ("m['k']", "no such key: k"), ("[1][1]", "index '1' out of range in list size '1'"),
    ("x + 1", "no such overload: _+_"), ("x < 'a'", "no such overload"), ("x.a.b", "type 'int' does not support field selection"),
    ("optional.none().value()", "optional.none() dereference"), ("{'a': 1, 'a': 2}", "Failed with repeated key: a"),
    ("x ? 1 : 2", "no such overload: _?_:_"), ("!x", "no such overload: !_"),
])
def test_errors_as_cel_go_words_them(text, message):
    assert error(text, x={"a": 1}) == message


@pytest.mark.parametrize("text, expected", [
    # the deciding value absorbs an error on either side (cel-go's commutative logic)
    ("x.b || true", True), ("true || x.b", True), ("x.b && false", False), ("false && x.b", False),
])
def test_error_absorption(text, expected):
    assert value(text, x={}) is expected


@pytest.mark.parametrize("text, message", [
    ("x.b || false", "no such key: b"), ("false || x.b", "no such key: b"), ("x.b && x.c", "no such key: b"),
    ("x.c || x.b", "no such key: c"),
])
def test_errors_that_nothing_absorbs(text, message):
    assert error(text, x={}) == message


def test_unknowns_absorb_like_cel_gos():
    unknown = Unknown("the authorizer's answer is not known offline")
    assert value("false && u.allowed", u=unknown) is False
    assert value("true && u.allowed", u=unknown) == unknown
    assert value("x.b || u.allowed", x={}, u=unknown) == unknown  # an unknown wins over an error
    assert value("u.allowed ? 1 : 2", u=unknown) == unknown
    assert value("u.allowed == 1", u=unknown) == unknown
    assert value("size(u)", u=unknown) == unknown


def test_cost_as_cel_go_counts_it():
    # identifiers and selections 1, constants 0, calls 1, list literals 10, map literals 30
    assert run("x.a > 1", x={"a": 2}).cost == 3
    assert run("[1, 2]").cost == 10
    assert run("{'a': 1}").cost == 30
    assert run("has(x.a)", x={"a": 1}).cost == 1  # the presence test itself is free
    # string equality: one traversal of the shorter, at 0.1 per character
    assert run("x == 'a'", x="b" * 100).cost == 1 + 1
    assert run("x == m", x="a" * 100, m="a" * 100).cost == 2 + 10


def test_cost_limit_stops_evaluation():
    program = cel.compile("x.all(i, x.all(j, i == j) || true)", DECLS)
    with pytest.raises(cel.EvalError) as info:
        program.run({"x": list(range(2000))}, cost_limit=10_000)
    assert info.value.message == "operation cancelled: actual cost limit exceeded"


def test_lists_cannot_grow_without_bound():
    big = list(range(runtime.MAX_LIST_SIZE))
    assert error("x + x", x=big).startswith("list size exceeds")


def test_lazy_variables_are_read_once():
    calls = []

    def thunk():
        calls.append(1)
        return 5

    decls = cel.admission_variables(has_params=False, has_authorizer=False, variables={"n": "int"})
    program = cel.compile("variables.n + variables.n == 10", decls)
    assert program.evaluate({"variables": {"n": cel.Lazy(thunk)}}) is True
    assert calls == [1]


def test_a_variable_with_a_dotted_name():
    program = cel.compile("a.b == 1", {"a.b": "int"})
    assert program.evaluate({"a.b": 1}) is True


def test_struct_literals_are_not_declared():
    assert isinstance(cel.compile("Foo{a: 1}", {}), cel.CompileError)


def test_select_and_index_helpers():
    assert evaluator.select_field(cel.Unknown("r"), "a") == cel.Unknown("r")
    assert evaluator.index_value([1, 2], 1.0) == 2
    with pytest.raises(cel.EvalError, match="unsupported index value"):
        evaluator.index_value([1, 2], 1.5)
    assert evaluator.has_field(evaluator.NONE, "a") is False
    assert evaluator.runtime_key_text(True) == "true"
    assert evaluator.dotted(("select", ("ident", "a"), "b", False)) == "a.b"
    assert evaluator.merge_unknown(Unknown("b"), Unknown("a")) == Unknown("a; b")


def test_an_unchecked_call_with_no_overload_for_its_arity():
    from kpt_fn.admission.cel import environment, parser

    tree, _ = parser.parse("'42'.indexOf('4', 0, 1)")
    program = evaluator.Compiler(environment.functions(), frozenset()).compile(tree)
    with pytest.raises(cel.EvalError, match="no such overload: indexOf"):
        program(runtime.Run({}, 100))
