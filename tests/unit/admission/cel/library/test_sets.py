import pytest

from kpt_fn.admission.cel.library import sets

from unit.admission.cel.library.evalcase import evaluate


@pytest.mark.parametrize("text, expected", [
    # cel-go v0.26.0 ext/sets.go's documented examples
    ("sets.contains([], [])", True), ("sets.contains([], [1])", False), ("sets.contains([1, 2, 3, 4], [2, 3])", True),
    ("sets.contains([dyn(1), dyn(2.0), dyn(3u)], [dyn(1.0), dyn(2u), dyn(3)])", True), ("sets.equivalent([], [])", True),
    ("sets.equivalent([1], [1, 1])", True), ("sets.equivalent([1], [dyn(1u), dyn(1.0)])", True),
    ("sets.equivalent([dyn(1), dyn(2), dyn(3)], [dyn(3u), dyn(2.0), dyn(1)])", True), ("sets.intersects([1], [])", False),
    ("sets.intersects([1], [1, 2])", True),
])
def test_documented_examples(text, expected):
    assert evaluate(text) is expected


def test_cost():
    assert sets._cost(1)([[1, 2], [1, 2, 3]], True) == 7 and sets._cost(2)([[1], [1]], True) == 3
