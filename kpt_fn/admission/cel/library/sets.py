"""cel-go's ext.Sets (v0.26.0 ext/sets.go, enabled by the API server from 1.29 on): sets.contains,
sets.equivalent and sets.intersects over lists, with CEL's heterogeneous equality; cost, as
ext/sets.go's trackers count it, the product of the two lists' sizes (twice it for equivalent), plus 1."""

from __future__ import annotations

from kpt_fn.admission.cel.runtime import equal, no_overload
from kpt_fn.admission.cel.stdlib import Function


def _lists(a, b, name):
    if type(a) not in (list, tuple) or type(b) not in (list, tuple):
        raise no_overload(name)


def contains(a, b):
    _lists(a, b, "sets.contains")
    return all(any(equal(x, y) for y in a) for x in b)


def equivalent(a, b):
    _lists(a, b, "sets.equivalent")
    return contains(a, b) and contains(b, a)


def intersects(a, b):
    _lists(a, b, "sets.intersects")
    return any(equal(x, y) for x in a for y in b)


def _cost(factor):
    """ext/sets.go trackSetsCost: 1 + the sizes' product times the factor (2 for equivalent)."""
    def cost(args, result):
        a, b = args
        return 1 + int(len(a) * len(b) * factor) if type(a) in (list, tuple) and type(b) in (list, tuple) else 1
    return cost


FUNCTIONS = [
    Function("sets.contains", ["sets.contains(list(A), list(A)) -> bool"], contains, _cost(1)),
    Function("sets.equivalent", ["sets.equivalent(list(A), list(A)) -> bool"], equivalent, _cost(2)),
    Function("sets.intersects", ["sets.intersects(list(A), list(A)) -> bool"], intersects, _cost(1)),
]
