"""CEL's binary operators on runtime values, with cel-go's semantics and the extra runtime cost cel-go
counts for them (interpreter/runtimecost.go: string and bytes `+` and comparisons traverse their
operands at 0.1 per element, `in` a list its size); the evaluator charges each call's base cost of 1.
"""

from __future__ import annotations

import math

from kpt_fn.admission.cel import runtime
from kpt_fn.admission.cel.runtime import (MAX_LIST_SIZE, check_int, check_uint, compare, equal, map_get, no_overload,
                                          traversal)
from kpt_fn.admission.cel.values import EvalError, UInt


def add(r, a, b):
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        return check_int(a + b)
    if ta is UInt and tb is UInt:
        return check_uint(a + b)
    if ta is float and tb is float:
        return a + b
    if ta is str and tb is str or ta is bytes and tb is bytes:
        r.charge(traversal(len(a) + len(b)) - 1)
        return a + b
    if ta in (list, tuple) and tb in (list, tuple):
        if len(a) + len(b) > MAX_LIST_SIZE:
            raise EvalError(f"list size exceeds {MAX_LIST_SIZE} elements (a bound of this offline evaluation)")
        return list(a) + list(b)
    add = getattr(a, "cel_add", None)
    if add is not None:
        return add(b)
    raise no_overload("_+_")


def _sub(r, a, b):
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        return check_int(a - b)
    if ta is UInt and tb is UInt:
        return check_uint(a - b)
    if ta is float and tb is float:
        return a - b
    sub = getattr(a, "cel_sub", None)
    if sub is not None:
        return sub(b)
    raise no_overload("_-_")


def _mul(r, a, b):
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        return check_int(a * b)
    if ta is UInt and tb is UInt:
        return check_uint(a * b)
    if ta is float and tb is float:
        return a * b
    raise no_overload("_*_")


def _div(r, a, b):
    ta, tb = type(a), type(b)
    if (ta is int and tb is int) or (ta is UInt and tb is UInt):
        if b == 0:
            raise EvalError("division by zero")
        q = abs(a) // abs(b)
        q = q if (a >= 0) == (b >= 0) else -q
        return check_int(q) if ta is int else UInt(q)
    if ta is float and tb is float:
        if b == 0:
            if a == 0 or math.isnan(a):
                return math.nan
            return math.copysign(math.inf, a) * math.copysign(1, b)
        return a / b
    raise no_overload("_/_")


def _mod(r, a, b):
    ta, tb = type(a), type(b)
    if (ta is int and tb is int) or (ta is UInt and tb is UInt):
        if b == 0:
            raise EvalError("modulus by zero")
        m = abs(a) % abs(b)
        m = m if a >= 0 else -m
        return check_int(m) if ta is int else UInt(m)
    raise no_overload("_%_")


def _eq(r, a, b):
    r.charge(traversal(min(runtime.actual_size(a), runtime.actual_size(b))) - 1)
    return equal(a, b)


def _ne(r, a, b):
    return not _eq(r, a, b)


def _ordering(test):
    def op(r, a, b):
        if type(a) is str and type(b) is str or type(a) is bytes and type(b) is bytes:
            r.charge(traversal(min(len(a), len(b))) - 1)
        c = compare(a, b)
        return False if c == 2 else test(c)
    return op


def _in(r, item, container):
    t = type(container)
    if t is list or t is tuple:
        r.charge(len(container) - 1)
        return any(equal(item, x) for x in container)
    if t is dict:
        return map_get(container, item)[0]
    raise no_overload("@in")


OPERATORS = {
    "_+_": add, "_-_": _sub, "_*_": _mul, "_/_": _div, "_%_": _mod, "_==_": _eq, "_!=_": _ne,
    "_<_": _ordering(lambda c: c < 0), "_<=_": _ordering(lambda c: c <= 0),
    "_>_": _ordering(lambda c: c > 0), "_>=_": _ordering(lambda c: c >= 0), "@in": _in,
}
