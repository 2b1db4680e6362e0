import pytest

from kpt_fn.admission.cel.library import lists

from unit.admission.cel.library.evalcase import evaluate, failure


@pytest.mark.parametrize("text, expected", [
    ("[1, 2, 3].isSorted()", True), ("['b', 'a'].isSorted()", False), ("[1, 2, 3].sum()", 6), ("[1.5, 2.5].sum()", 4.0),
    ("[].sum()", 0), ("[3, 1, 2].min()", 1), ("[3, 1, 2].max()", 3), ("[1, 2, 1].indexOf(1)", 0),
    ("[1, 2, 1].lastIndexOf(1)", 2), ("[1, 2].indexOf(3)", -1), ("[1, 2, 3, 4].slice(1, 3)", [2, 3]),
    # the API server refuses cel-go's mixed examples ([1, [2, 3]]: HomogeneousAggregateLiterals): dyn mixes
    ("x.flatten()", [1, 2, 3, 4]), ("y.flatten()", [1, 2, [3, 4]]), ("z.flatten(2)", [1, 2, 3, [4]]),("[1, 2, 2, 3, 3, 3].distinct()", [1, 2, 3]),
    ("['b', 'b', 'c', 'a', 'c'].distinct()", ["b", "c", "a"]), ("lists.range(5)", [0, 1, 2, 3, 4]),
    ("[5, 3, 1, 2].reverse()", [2, 1, 3, 5]), ("[3, 2, 1].sort()", [1, 2, 3]), ("['b', 'c', 'a'].sort()", ["a", "b", "c"]),
    ("[duration('2s'), duration('1s')].min() == duration('1s')", True),
])
def test_list_functions(text, expected):
    assert evaluate(text, x=[1, [2, 3], [4]], y=[1, [2, [3, 4]]], z=[1, [2, [3, [4]]]]) == expected


@pytest.mark.parametrize("text, message", [
    ("[].min()", "min called on empty list"), ("[1,2,3,4].slice(-1, 2)", "cannot slice(-1, 2), negative indexes not supported"),
    ("[1,2,3,4].slice(3, 2)", "cannot slice(3, 2), start index must be less than or equal to end index"),
    ("[1,2].slice(0, 3)", "cannot slice(0, 3), list is length 2"),
    ("[[1]].flatten(-1)", "level must be non-negative"),
    ("x.sort()", "list elements must have the same type"), ("y.sort()", "list elements must be comparable"),
    ("lists.range(9999999)", "list size exceeds 1048576 elements (a bound of this offline evaluation)"),
])
def test_list_errors(text, message):
    assert failure(text, x=[1, "b"], y=[[1]]) == message


def test_costs():
    assert lists._traversal_cost([["ab" * 10, 1]], None) == 3
    assert lists._output_cost([[1]], [1, 2]) == 13
    assert lists._self_compare_cost(0)([["a", "b"]], None) == int(4 * 2.1) + 11
    assert lists._flatten_cost([[1, 2], 2], None) == 4 + 11
    assert lists.sort_by_keys(["x", "y"], [2, 1]) == ["y", "x"]
