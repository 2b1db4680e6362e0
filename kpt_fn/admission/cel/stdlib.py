"""CEL's standard functions (cel-go v0.26.0 checker/decls and common/stdlib) and the optional
library (cel.OptionalTypes, cel/library.go at its latest version: of, ofNonZeroValue, none, hasValue,
value, or, orValue, first, last, optional.unwrap, unwrapOpt; optMap and optFlatMap are macros): declarations for the checker, implementations for the evaluator.

A library is a list of `Function`s. A signature is text: `size(string) -> int` is a global overload,
`string.size() -> int` one called on a receiver; types are CEL's (`list(A)`, `map(K, V)`, `dyn`,
type parameters are single capitals). Operators are declared here for the checker and evaluated by
the evaluator itself (kpt_fn.admission.cel.evaluator), which knows their error absorption.
"""

from __future__ import annotations

import math

from kpt_fn.admission.cel import runtime
from kpt_fn.admission.cel.runtime import (NONE, Optional, TypeValue, check_int, check_uint, no_overload,
                                          traversal)
from kpt_fn.admission.cel.values import EvalError, UInt


class Function:
    """One CEL function: its overload signatures, what it does, what it costs (cel-go's default of 1
    unless `cost(args, result)` says otherwise)."""

    __slots__ = ("name", "signatures", "impl", "cost")

    def __init__(self, name, signatures, impl=None, cost=None):
        self.name = name
        self.signatures = tuple(signatures)
        self.impl = impl
        self.cost = cost


def _string_cost(args, result):
    return traversal(runtime.actual_size(args[0]))


def _contains_cost(args, result):
    return traversal(runtime.actual_size(args[0])) * traversal(runtime.actual_size(args[1]))


def _strict_str(*args):
    for a in args:
        if type(a) is not str:
            raise no_overload()


def _contains(s, sub):
    _strict_str(s, sub)
    return sub in s


def _starts(s, prefix):
    _strict_str(s, prefix)
    return s.startswith(prefix)


def _ends(s, suffix):
    _strict_str(s, suffix)
    return s.endswith(suffix)


def _size(v):
    return runtime.size(v)


def go_float_text(f: float) -> str:
    """strconv.FormatFloat(f, 'g', -1, 64), as cel-go's string(double) formats."""
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    if f == 0:
        return "-0" if math.copysign(1, f) < 0 else "0"
    text = repr(f)
    mantissa, _, exp = text.partition("e")
    sign = "-" if mantissa.startswith("-") else ""
    mantissa = mantissa.lstrip("-")
    whole, _, frac = mantissa.partition(".")
    if frac == "0":
        frac = ""
    digits = (whole + frac).lstrip("0")
    point = len(whole) + (int(exp) if exp else 0)
    if whole == "0":  # 0.00123
        stripped = frac.lstrip("0")
        point = -(len(frac) - len(stripped)) + (int(exp) if exp else 0)
        digits = stripped
    digits = digits.rstrip("0") or "0"
    x = point - 1
    if x < -4 or x >= 21:
        body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{body}e{'-' if x < 0 else '+'}{abs(x):02d}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return f"{sign}{digits}{'0' * (point - len(digits))}"
    return f"{sign}{digits[:point]}.{digits[point:]}"


def to_string(v):
    t = type(v)
    if t is str:
        return v
    if t is bool:
        return "true" if v else "false"
    if t is int or t is UInt:
        return str(int(v))
    if t is float:
        return go_float_text(v)
    if t is bytes:
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            raise EvalError("invalid UTF-8 in bytes, cannot convert to string") from None
    text = getattr(v, "cel_string", None)
    if text is not None:
        return text()
    raise no_overload("string")


def to_int(v):
    t = type(v)
    if t is int:
        return v
    if t is UInt:
        return check_int(int(v))
    if t is float:
        if math.isnan(v) or math.isinf(v) or not (-9223372036854775808.0 <= v < 9223372036854775808.0):
            raise EvalError("integer overflow")
        return check_int(int(v))
    if t is str:
        text = v[1:] if v[:1] in "+-" else v
        if not text.isdigit() or not text.isascii():
            raise EvalError(f'strconv.ParseInt: parsing "{v}": invalid syntax')
        n = int(v)
        if not runtime.INT64_MIN <= n <= runtime.INT64_MAX:
            raise EvalError(f'strconv.ParseInt: parsing "{v}": value out of range')
        return n
    as_int = getattr(v, "cel_int", None)
    if as_int is not None:
        return as_int()
    raise no_overload("int")


def to_uint(v):
    t = type(v)
    if t is UInt:
        return v
    if t is int:
        return check_uint(v)
    if t is float:
        if math.isnan(v) or not (0 <= v < 18446744073709551616.0):
            raise EvalError("unsigned integer overflow")
        return UInt(int(v))
    if t is str:
        if not v.isdigit() or not v.isascii():
            raise EvalError(f'strconv.ParseUint: parsing "{v}": invalid syntax')
        n = int(v)
        if n > runtime.UINT64_MAX:
            raise EvalError(f'strconv.ParseUint: parsing "{v}": value out of range')
        return UInt(n)
    raise no_overload("uint")


def to_double(v):
    t = type(v)
    if t is float:
        return v
    if t is int or t is UInt:
        return float(v)
    if t is str:
        try:
            return float(v)
        except ValueError:
            raise EvalError(f'strconv.ParseFloat: parsing "{v}": invalid syntax') from None
    raise no_overload("double")


def to_bytes(v):
    if type(v) is bytes:
        return v
    if type(v) is str:
        return v.encode("utf-8")
    raise no_overload("bytes")


_BOOL_TEXT = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
              "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}


def to_bool(v):
    if type(v) is bool:
        return v
    if type(v) is str:
        if v in _BOOL_TEXT:
            return _BOOL_TEXT[v]
        raise EvalError(f"type conversion error from 'string' to 'bool'")
    raise no_overload("bool")


def type_of(v):
    return TypeValue(runtime.type_name(v))


def _dyn(v):
    return v


# optional library (cel-go cel/library.go optionalLib)
def _opt_of(v):
    return Optional(v, True)


def _opt_of_non_zero(v):
    if v is None or v is False or v == 0 and runtime.is_num(v) or (type(v) in (str, bytes, list, dict) and not v):
        return NONE
    return Optional(v, True)


def _opt_none():
    return NONE


def _opt(v, name):
    if type(v) is not Optional:
        raise no_overload(name)
    return v


def _has_value(o):
    return _opt(o, "hasValue").present


def _value(o):
    o = _opt(o, "value")
    if not o.present:
        raise EvalError("optional.none() dereference")
    return o.value


def _or(a, b):
    a = _opt(a, "or")
    return a if a.present else _opt(b, "or")


def _or_value(a, b):
    a = _opt(a, "orValue")
    return a.value if a.present else b


def _first(items):
    if type(items) not in (list, tuple):
        raise no_overload("first")
    return Optional(items[0], True) if items else NONE


def _last(items):
    if type(items) not in (list, tuple):
        raise no_overload("last")
    return Optional(items[-1], True) if items else NONE


def _unwrap(items):
    """optional.unwrap / unwrapOpt: the present values of a list of optionals."""
    if type(items) not in (list, tuple):
        raise no_overload("optional.unwrap")
    out = []
    for item in items:
        if type(item) is not Optional:
            raise no_overload("optional.unwrap")
        if item.present:
            out.append(item.value)
    return out


FUNCTIONS = [
    # operators: the evaluator implements them (their declarations are the checker's)
    Function("_+_", ["_+_(int, int) -> int", "_+_(uint, uint) -> uint", "_+_(double, double) -> double",
                     "_+_(string, string) -> string", "_+_(bytes, bytes) -> bytes",
                     "_+_(list(A), list(A)) -> list(A)",
                     "_+_(google.protobuf.Duration, google.protobuf.Duration) -> google.protobuf.Duration",
                     "_+_(google.protobuf.Timestamp, google.protobuf.Duration) -> google.protobuf.Timestamp",
                     "_+_(google.protobuf.Duration, google.protobuf.Timestamp) -> google.protobuf.Timestamp"]),
    Function("_-_", ["_-_(int, int) -> int", "_-_(uint, uint) -> uint", "_-_(double, double) -> double",
                     "_-_(google.protobuf.Duration, google.protobuf.Duration) -> google.protobuf.Duration",
                     "_-_(google.protobuf.Timestamp, google.protobuf.Duration) -> google.protobuf.Timestamp",
                     "_-_(google.protobuf.Timestamp, google.protobuf.Timestamp) -> google.protobuf.Duration"]),
    Function("_*_", ["_*_(int, int) -> int", "_*_(uint, uint) -> uint", "_*_(double, double) -> double"]),
    Function("_/_", ["_/_(int, int) -> int", "_/_(uint, uint) -> uint", "_/_(double, double) -> double"]),
    Function("_%_", ["_%_(int, int) -> int", "_%_(uint, uint) -> uint"]),
    Function("-_", ["-_(int) -> int", "-_(double) -> double"]),
    Function("!_", ["!_(bool) -> bool"]),
    Function("_==_", ["_==_(A, A) -> bool"]),
    Function("_!=_", ["_!=_(A, A) -> bool"]),
    *(Function(op, [f"{op}({a}, {b}) -> bool" for a, b in
                    [("bool", "bool"), ("string", "string"), ("bytes", "bytes"),
                     ("google.protobuf.Timestamp", "google.protobuf.Timestamp"),
                     ("google.protobuf.Duration", "google.protobuf.Duration")]
                    + [(x, y) for x in ("int", "uint", "double") for y in ("int", "uint", "double")]])
      for op in ("_<_", "_<=_", "_>_", "_>=_")),
    Function("@in", ["@in(A, list(A)) -> bool", "@in(A, map(A, B)) -> bool"]),
    Function("_[_]", ["_[_](list(A), int) -> A", "_[_](map(K, V), K) -> V"]),
    Function("_?_:_", ["_?_:_(bool, A, A) -> A"]),
    # functions
    Function("size", ["size(string) -> int", "size(bytes) -> int", "size(list(A)) -> int", "size(map(K, V)) -> int",
                      "string.size() -> int", "bytes.size() -> int", "list(A).size() -> int",
                      "map(K, V).size() -> int"], _size),
    Function("contains", ["string.contains(string) -> bool"], _contains, _contains_cost),
    Function("startsWith", ["string.startsWith(string) -> bool"], _starts, _string_cost),
    Function("endsWith", ["string.endsWith(string) -> bool"], _ends, _string_cost),
    Function("int", ["int(int) -> int", "int(uint) -> int", "int(double) -> int", "int(string) -> int",
                     "int(google.protobuf.Timestamp) -> int", "int(google.protobuf.Duration) -> int"], to_int),
    Function("uint", ["uint(uint) -> uint", "uint(int) -> uint", "uint(double) -> uint", "uint(string) -> uint"],
             to_uint),
    Function("double", ["double(double) -> double", "double(int) -> double", "double(uint) -> double",
                        "double(string) -> double"], to_double),
    Function("string", ["string(string) -> string", "string(int) -> string", "string(uint) -> string",
                        "string(double) -> string", "string(bytes) -> string", "string(bool) -> string",
                        "string(google.protobuf.Timestamp) -> string",
                        "string(google.protobuf.Duration) -> string"], to_string),
    Function("bytes", ["bytes(bytes) -> bytes", "bytes(string) -> bytes"], to_bytes, _string_cost),
    Function("bool", ["bool(bool) -> bool", "bool(string) -> bool"], to_bool),
    Function("dyn", ["dyn(A) -> dyn"], _dyn),
    Function("type", ["type(A) -> type(A)"], type_of),
    # cel.OptionalTypes
    Function("optional.of", ["optional.of(A) -> optional_type(A)"], _opt_of),
    Function("optional.ofNonZeroValue", ["optional.ofNonZeroValue(A) -> optional_type(A)"], _opt_of_non_zero),
    Function("optional.none", ["optional.none() -> optional_type(A)"], _opt_none),
    Function("hasValue", ["optional_type(A).hasValue() -> bool"], _has_value),
    Function("value", ["optional_type(A).value() -> A"], _value),
    Function("or", ["optional_type(A).or(optional_type(A)) -> optional_type(A)"], _or),
    Function("orValue", ["optional_type(A).orValue(A) -> A"], _or_value),
    # the optional library at its latest version, as cel.OptionalTypes() enables it (cel/library.go: 2)
    Function("first", ["list(A).first() -> optional_type(A)"], _first),
    Function("last", ["list(A).last() -> optional_type(A)"], _last),
    Function("optional.unwrap", ["optional.unwrap(list(optional_type(A))) -> list(A)"], _unwrap),
    Function("unwrapOpt", ["list(optional_type(A)).unwrapOpt() -> list(A)"], _unwrap),
]
