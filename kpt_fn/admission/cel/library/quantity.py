"""Kubernetes' quantity library (k8s.io/apiserver@v0.36.3 pkg/cel/library/quantity.go, enabled from 1.28
on): quantity(), isQuantity(), sign(), isGreaterThan/isLessThan/compareTo, asApproximateFloat,
asInteger, isInteger, add and sub (of a quantity or an int). Parsing and arithmetic are
kpt_fn.quantity's, which reproduces apimachinery's resource.Quantity.
"""

from __future__ import annotations

from kpt_fn import quantity as k8s_quantity
from kpt_fn.admission.cel.runtime import INT64_MAX, INT64_MIN, no_overload, traversal
from kpt_fn.admission.cel import runtime
from kpt_fn.admission.cel.stdlib import Function
from kpt_fn.admission.cel.values import EvalError

_NANO = 10**9


class Quantity:
    CEL_TYPE = "kubernetes.Quantity"
    __slots__ = ("q",)

    def __init__(self, q):
        self.q = q

    def __eq__(self, other):
        return type(other) is Quantity and other.q.nanos == self.q.nanos

    __hash__ = None

    def cel_compare(self, other):
        return (self.q.nanos > other.q.nanos) - (self.q.nanos < other.q.nanos)

    def cel_string(self):
        return k8s_quantity.canonical(self.q)

    def __repr__(self):
        return f"quantity({self.cel_string()!r})"


def _q(v, name):
    if type(v) is not Quantity:
        raise no_overload(name)
    return v.q


def to_quantity(text):
    if type(text) is not str:
        raise no_overload("quantity")
    try:
        return Quantity(k8s_quantity.parse(text))
    except k8s_quantity.QuantityError as exc:
        raise EvalError(str(exc)) from None


def is_quantity(text):
    if type(text) is not str:
        raise no_overload("isQuantity")
    try:
        k8s_quantity.parse(text)
    except k8s_quantity.QuantityError:
        return False
    return True


def sign(v):
    n = _q(v, "sign").nanos
    return (n > 0) - (n < 0)


def _as_int64(q):
    whole, rest = divmod(abs(q.nanos), _NANO)
    if rest:
        return None
    value = whole if q.nanos >= 0 else -whole
    return value if INT64_MIN <= value <= INT64_MAX else None


def as_integer(v):
    value = _as_int64(_q(v, "asInteger"))
    if value is None:
        raise EvalError("cannot convert value to integer")
    return value


def is_integer(v):
    return _as_int64(_q(v, "isInteger")) is not None


def as_float(v):
    return _q(v, "asApproximateFloat").nanos / _NANO


def _other(other, name):
    if type(other) is Quantity:
        return other.q
    if type(other) is int:
        return k8s_quantity.Quantity(other * _NANO, k8s_quantity.DECIMAL_SI)
    raise no_overload(name)


def add(v, other):
    return Quantity(_q(v, "add") + _other(other, "add"))


def sub(v, other):
    return Quantity(_q(v, "sub") - _other(other, "sub"))


def _compare(name, want):
    def cmp(v, other):
        a, b = _q(v, name).nanos, _q(other, name).nanos
        result = (a > b) - (a < b)
        return result if want is None else result == want
    return cmp


def _parse_cost(args, result):
    return traversal(runtime.actual_size(args[0]))


_Q = "kubernetes.Quantity"
FUNCTIONS = [
    Function("quantity", [f"quantity(string) -> {_Q}"], to_quantity, _parse_cost),
    Function("isQuantity", ["isQuantity(string) -> bool"], is_quantity, _parse_cost),
    Function("sign", [f"{_Q}.sign() -> int"], sign),
    Function("isGreaterThan", [f"{_Q}.isGreaterThan({_Q}) -> bool"], _compare("isGreaterThan", 1)),
    Function("isLessThan", [f"{_Q}.isLessThan({_Q}) -> bool"], _compare("isLessThan", -1)),
    Function("compareTo", [f"{_Q}.compareTo({_Q}) -> int"], _compare("compareTo", None)),
    Function("asApproximateFloat", [f"{_Q}.asApproximateFloat() -> double"], as_float),
    Function("asInteger", [f"{_Q}.asInteger() -> int"], as_integer),
    Function("isInteger", [f"{_Q}.isInteger() -> bool"], is_integer),
    Function("add", [f"{_Q}.add({_Q}) -> {_Q}", f"{_Q}.add(int) -> {_Q}"], add),
    Function("sub", [f"{_Q}.sub({_Q}) -> {_Q}", f"{_Q}.sub(int) -> {_Q}"], sub),
]
