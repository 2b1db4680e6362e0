"""List functions: Kubernetes' lists library (k8s.io/apiserver@v0.36.3 pkg/cel/library/lists.go:
isSorted, sum, min, max, indexOf, lastIndexOf) and cel-go's ext.Lists at version 3, enabled from
1.34 on (cel-go v0.26.0 ext/lists.go: slice, flatten, distinct, reverse, sort, lists.range; sortBy is a
macro, kpt_fn.admission.cel.macros). Costs: library/cost.go (one traversal for the Kubernetes ones)
and ext/lists.go's trackers (the output's size, or its square for what compares every pair).
"""

from __future__ import annotations

import functools
import math

from kpt_fn.admission.cel import operators, runtime
from kpt_fn.admission.cel.runtime import (LIST_CREATE_COST, MAX_LIST_SIZE, compare, equal, is_num, no_overload,
                                          traversal)
from kpt_fn.admission.cel.stdlib import Function
from kpt_fn.admission.cel.values import EvalError, UInt

_COMPARABLE = ("int", "uint", "double", "bool", "string", "bytes", "google.protobuf.Duration",
               "google.protobuf.Timestamp", "kubernetes.Quantity", "kubernetes.Semver", "net.IP", "net.CIDR")


def _list(v, name):
    if type(v) not in (list, tuple):
        raise no_overload(name)
    return v


def is_sorted(items):
    prev = None
    for i, x in enumerate(_list(items, "isSorted")):
        if i and compare(prev, x) == 1:
            return False
        prev = x
    return True


def sum_(items):
    items = _list(items, "sum")
    if not items:
        return 0
    total = items[0]
    for x in items[1:]:
        total = operators.add(_FreeRun, total, x)
    return total


class _FreeRun:
    """What the `+` operator charges string additions to inside sum (nothing: sum costs one traversal)."""

    @staticmethod
    def charge(_n):
        return None


def _extreme(name, prefer):
    def pick(items):
        items = _list(items, name)
        if not items:
            raise EvalError(f"{name} called on empty list")
        best = items[0]
        for x in items[1:]:
            if compare(best, x) == prefer:
                best = x
        return best
    return pick


def index_of(items, item):
    for i, x in enumerate(_list(items, "indexOf")):
        if equal(x, item):
            return i
    return -1


def last_index_of(items, item):
    items = _list(items, "lastIndexOf")
    for i in range(len(items) - 1, -1, -1):
        if equal(items[i], item):
            return i
    return -1


def slice_(items, start, end):
    items = _list(items, "slice")
    if type(start) is not int or type(end) is not int:
        raise no_overload("slice")
    if start < 0 or end < 0:
        raise EvalError(f"cannot slice({start}, {end}), negative indexes not supported")
    if start > end:
        raise EvalError(f"cannot slice({start}, {end}), start index must be less than or equal to end index")
    if len(items) < end:
        raise EvalError(f"cannot slice({start}, {end}), list is length {len(items)}")
    return list(items[start:end])


def flatten(items, depth=1):
    items = _list(items, "flatten")
    if type(depth) is not int:
        raise no_overload("flatten")
    if depth < 0:
        raise EvalError("level must be non-negative")
    out = []
    for x in items:
        if type(x) in (list, tuple) and depth > 0:
            out.extend(flatten(x, depth - 1))
        else:
            out.append(x)
        if len(out) > MAX_LIST_SIZE:
            raise EvalError(f"list size exceeds {MAX_LIST_SIZE} elements (a bound of this offline evaluation)")
    return out


def distinct(items):
    out = []
    for x in _list(items, "distinct"):
        if not any(equal(x, y) for y in out):
            out.append(x)
    return out


def reverse(items):
    return list(reversed(_list(items, "reverse")))


def _sortable(items):
    if not items:
        return
    first = runtime.type_name(items[0])
    if first not in _COMPARABLE:
        raise EvalError("list elements must be comparable")
    for x in items[1:]:
        if runtime.type_name(x) != first:
            raise EvalError("list elements must have the same type")


def sort(items):
    items = list(_list(items, "sort"))
    _sortable(items)
    return sorted(items, key=functools.cmp_to_key(compare))


def sort_by_keys(items, keys):
    """@sortByAssociatedKeys: `items` ordered by their `keys` (a stable sort, as Go's sort.SliceStable)."""
    items = _list(items, "sortBy")
    keys = list(_list(keys, "sortBy"))
    _sortable(keys)
    order = sorted(range(len(items)), key=functools.cmp_to_key(lambda a, b: compare(keys[a], keys[b])))
    return [items[i] for i in order]


def lists_range(n):
    if type(n) is not int:
        raise no_overload("lists.range")
    if n > MAX_LIST_SIZE:
        raise EvalError(f"list size exceeds {MAX_LIST_SIZE} elements (a bound of this offline evaluation)")
    return list(range(max(n, 0)))


def traversal_cost(v) -> int:
    """library/cost.go traversalCost: 0.1 per character of a string or bytes (rounded down), the sum
    over a list's elements or a map's keys and values, 1 for anything else."""
    t = type(v)
    if t is str or t is bytes:
        return int(len(v) * runtime.STRING_TRAVERSAL_FACTOR)
    if t is list or t is tuple:
        return sum(traversal_cost(x) for x in v)
    if t is dict:
        return sum(traversal_cost(k) + traversal_cost(x) for k, x in v.items())
    return 1


def _traversal_cost(args, result):
    """library/cost.go: isSorted, sum, max, min, indexOf and lastIndexOf cost one traversal of their target."""
    return traversal_cost(args[0]) if args else 0


def _output_cost(args, result):
    return runtime.actual_size(result) + 1 + LIST_CREATE_COST


def _flatten_cost(args, result):
    depth = args[1] if len(args) == 2 and type(args[1]) is int else 1
    return int(runtime.actual_size(args[0]) * depth) + 1 + LIST_CREATE_COST


def _self_compare_cost(which):
    def cost(args, result):
        items = args[which] if type(args[which]) in (list, tuple) else []
        factor = 2.0
        if items and type(items[0]) in (str, bytes):
            factor += runtime.STRING_TRAVERSAL_FACTOR
        return int(len(items) * len(items) * factor) + 1 + LIST_CREATE_COST
    return cost


def _numeric_sigs(name, result_same=True):
    return [f"list({t}).{name}() -> {t if result_same else 'bool'}" for t in _COMPARABLE]


FUNCTIONS = [
    Function("isSorted", [f"list({t}).isSorted() -> bool" for t in _COMPARABLE], is_sorted, _traversal_cost),
    Function("sum", [f"list({t}).sum() -> {t}" for t in ("int", "uint", "double", "google.protobuf.Duration")],
             sum_, _traversal_cost),
    Function("min", _numeric_sigs("min"), _extreme("min", 1), _traversal_cost),
    Function("max", _numeric_sigs("max"), _extreme("max", -1), _traversal_cost),
    Function("indexOf", ["list(A).indexOf(A) -> int"], index_of, _traversal_cost),
    Function("lastIndexOf", ["list(A).lastIndexOf(A) -> int"], last_index_of, _traversal_cost),
    Function("slice", ["list(A).slice(int, int) -> list(A)"], slice_, _output_cost),
    Function("flatten", ["list(list(A)).flatten() -> list(A)", "list(dyn).flatten(int) -> list(dyn)",
                         "list(dyn).flatten() -> list(dyn)"], flatten, _flatten_cost),
    Function("distinct", ["list(A).distinct() -> list(A)"], distinct, _self_compare_cost(0)),
    Function("reverse", ["list(A).reverse() -> list(A)"], reverse, _output_cost),
    Function("sort", [f"list({t}).sort() -> list({t})" for t in _COMPARABLE], sort, _self_compare_cost(0)),
    Function("@sortByAssociatedKeys", ["list(A).@sortByAssociatedKeys(list(dyn)) -> list(A)"], sort_by_keys,
             _self_compare_cost(1)),
    Function("lists.range", ["lists.range(int) -> list(int)"], lists_range, _output_cost),
]

FUNCTIONS_COST_SORT_BY = _self_compare_cost(1)
_ = (is_num, UInt, math)
