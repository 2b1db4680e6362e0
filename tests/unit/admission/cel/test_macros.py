import pytest

from kpt_fn.admission import cel
from kpt_fn.admission.cel import macros

DECLS = {"x": "dyn"}


def run(text, x=None, limit=cel.PER_CALL_LIMIT):
    program = cel.compile(text, DECLS)
    assert isinstance(program, cel.Program), program
    return program.run({"x": x}, limit)


@pytest.mark.parametrize("text, expected", [
    ("[1, 2, 3].all(i, i > 0)", True), ("[1, 2, 3].exists(i, i > 2)", True),
    ("[1, 2, 3].exists_one(i, i > 1)", False), ("[1, 2, 3].existsOne(i, i == 1)", True),
    ("[1, 2, 3].map(i, i * 2)", [2, 4, 6]), ("[1, 2, 3].map(i, i > 1, i * 2)", [4, 6]),
    ("[1, 2, 3].filter(i, i % 2 == 1)", [1, 3]), ("{'a': 1, 'b': 2}.all(k, k != 'c')", True),
    ("{'a': 1}.map(k, k + '!')", ["a!"]), ("[5, 6].all(i, v, v > i)", True),
    ("{'a': 1, 'b': 2}.exists(k, v, v == 2 && k == 'b')", True),
    ("[1, 2].transformList(i, v, v * 10)", [10, 20]), ("[1, 2].transformList(i, v, i > 0, v)", [2]),
    ("{'a': 1}.transformMap(k, v, v + 1)", {"a": 2}), ("{'a': 1}.transformMapEntry(k, v, {v: k})", {1: "a"}),
    ("['b', 'a'].sortBy(s, s)", ["a", "b"]),
    # shadowing: the inner variable hides the outer one only inside
    ("[1].all(i, [2].all(i, i == 2)) && [1].all(i, i == 1)", True),
])
def test_macros(text, expected):
    assert run(text).value == expected


def test_quantifiers_absorb_errors_as_cel_go_does():
    # all(): a false element decides, whatever errors others raise; exists(): a true one
    assert run("x.all(e, e.a == 1)", x=[{"b": 1}, {"a": 2}]).value is False
    assert run("x.exists(e, e.a == 1)", x=[{"b": 1}, {"a": 1}]).value is True
    with pytest.raises(cel.EvalError, match="no such key: a"):
        run("x.all(e, e.a == 1)", x=[{"b": 1}, {"a": 1}])
    with pytest.raises(cel.EvalError, match="no such key: a"):
        run("x.exists_one(e, e.a == 1)", x=[{"b": 1}])


def test_range_must_be_a_list_or_map():
    with pytest.raises(cel.EvalError, match="cannot be range of a comprehension"):
        run("x.all(e, true)", x=1)


def test_cost_per_element_as_cel_gos_expansion_counts():
    # all(): loop condition 2 + step 1 + the predicate's own cost (i: 1, >: 1), the result read 1,
    # the target list literal 10
    assert run("[1, 2, 3].all(i, i > 0)").cost == 10 + 3 * (3 + 2) + 1
    assert run("[1, 2, 3].exists(i, i > 5)").cost == 10 + 3 * (4 + 2) + 1


def test_duplicate_keys_of_transform_map_entry():
    with pytest.raises(cel.EvalError, match="insert failed: key 1 already exists"):
        run("['a', 'b'].transformMapEntry(i, v, {1: v})")


def test_opt_map_needs_an_optional():
    with pytest.raises(cel.EvalError):
        run("x.optMap(v, v)", x=1)
    assert macros._pairs([5], True) == [(0, 5)]
