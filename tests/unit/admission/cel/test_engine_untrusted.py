"""User expressions are untrusted input: unusual but valid expressions evaluate (the controls), and
hostile ones end in a CompileError or an EvalError with a clear message, in bounded time, never in
another exception (the refusals)."""

import pytest

from kpt_fn.admission import cel

DECLS = {"x": "dyn"}

CONTROLS = [
    "(" * 200 + "true" + ")" * 200,
    "// a comment\ntrue // another\n",
    "r'\\d+' == '\\\\d+'", "'''multi\nline''' == 'multi\\nline'", "b'\\xff'.size() == 1", "'é🙂'.size() == 2",
    "x.?missing.?deeper.orValue('d') == 'd'", "has(x.a) && !has(x.b)", "[?x.?b, dyn(1)] == [1]",
    "{'k': 1}.exists(k, v, v == 1)", "-9223372036854775808 < 0", "18446744073709551615u > 0u",
    "0x7fffffffffffffff == 9223372036854775807", "1e308 * 10.0 > 1e308", "dyn(0.0) == -0.0",
    "[1, 2, 3].map(i, [i].map(j, j * i)).size() == 3", "'abc'.matches('^[a-c]{3}$')",
    "lists.range(1000).all(i, i >= 0)", "x.a in [1, 2]", "type(x) == map", "type(null) == null_type",
]


@pytest.mark.parametrize("text", CONTROLS)
def test_unusual_valid_expressions(text):
    program = cel.compile(text, DECLS)
    assert isinstance(program, cel.Program), program
    assert program.evaluate({"x": {"a": 1}}) is True


@pytest.mark.parametrize("text, message", [
    ("(" * 300 + "1" + ")" * 300, "expression recursion limit exceeded: 250"),
    ("'" + "a" * 100_001 + "'", "expression code point size exceeds limit"),
    ("x.b.c.d", "no such key: b"),
    ("lists.range(100000).map(i, lists.range(100000).map(j, i + j))", "operation cancelled: actual cost limit exceeded"),
    ("x.s.matches('^(a+)+$')", None),  # RE2: linear, answers at once (False)
    ("x.s + x.s + x.s", None),
    ("'a'.replace('', x.s)", None),
])
def test_hostile_expressions_end_cleanly(text, message):
    program = cel.compile(text, DECLS)
    activation = {"x": {"a": 1, "s": "a" * 100_000 + "!"}}
    if isinstance(program, cel.CompileError):
        assert message and message in program.message
        return
    try:
        program.evaluate(activation)
    except cel.EvalError as exc:
        assert message is None or message in exc.message
    else:
        assert message is None


def test_a_binding_budget_is_the_callers_to_spend():
    program = cel.compile("x.all(i, i >= 0)", DECLS)
    spent = program.run({"x": list(range(1000))}).cost
    assert 0 < spent < cel.PER_CALL_LIMIT
    assert cel.RUNTIME_CEL_COST_BUDGET // spent > 1
