"""What every CEL operation shares at run time: the evaluation state (cost, limit, comprehension
variables), optional values, type values, equality and ordering with cel-go's semantics.

Values are plain Python: bool, int (int64), UInt, float, str, bytes, None, list, dict, and the few
wrappers here (Optional, TypeValue) and in the libraries (Quantity, URL, IP, CIDR, Semver ...).
Errors are EvalError raised; `&&`, `||`, `?:` and the quantifier macros catch them where cel-go's
error absorption asks.
"""

from __future__ import annotations

import math

from kpt_fn.admission.cel.values import EvalError, Lazy, UInt, Unknown

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
UINT64_MAX = 2**64 - 1
COST_EXCEEDED = "operation cancelled: actual cost limit exceeded"
# cel-go common/cost.go
LIST_CREATE_COST, MAP_CREATE_COST, STRUCT_CREATE_COST = 10, 30, 40
STRING_TRAVERSAL_FACTOR, REGEX_LENGTH_FACTOR = 0.1, 0.25
# A bound cel-go does not have: it concatenates lists lazily, Python copies them; an expression that
# doubles a list through variables would fill memory long before its cost counts the elements.
MAX_LIST_SIZE = 1 << 20
# The same for strings a library function builds without a cost proportional to what it builds (replace).
MAX_STRING_SIZE = 1 << 24


class Run:
    """One evaluation: the activation, the cost so far and its limit, comprehension variables."""

    __slots__ = ("activation", "cost", "limit", "vars", "resolved")

    def __init__(self, activation: dict, limit: int):
        self.activation = activation
        self.cost = 0
        self.limit = limit
        self.vars: dict = {}
        self.resolved: dict = {}

    def charge(self, n: int):
        self.cost += n
        if self.cost > self.limit:
            raise EvalError(COST_EXCEEDED)

    def variable(self, name: str):
        """A declared variable's value; a Lazy one is computed once per evaluation."""
        try:
            value = self.activation[name]
        except KeyError:
            raise EvalError(f"no such attribute(s): {name}") from None
        return resolve(value, self.resolved)


def resolve(value, cache: dict):
    """`value`, or what a Lazy computes (once; its EvalError is raised on every read)."""
    if type(value) is not Lazy:
        return value
    key = id(value)
    if key in cache:
        done = cache[key]
    else:
        try:
            done = (True, value.thunk())
        except EvalError as exc:
            done = (False, exc)
        cache[key] = done
    if done[0]:
        return done[1]
    raise done[1]


class Optional:
    """cel-go's optional_type: `optional.of(v)` or `optional.none()`."""

    __slots__ = ("value", "present")

    def __init__(self, value=None, present=False):
        self.value = value
        self.present = present

    def __eq__(self, other):
        return isinstance(other, Optional) and self.present == other.present and \
            (not self.present or equal(self.value, other.value))

    __hash__ = None

    def __repr__(self):
        return f"optional.of({self.value!r})" if self.present else "optional.none()"


NONE = Optional()


class TypeValue:
    """A CEL type as a value (`type(x)`, `int`, `string`): compares by name."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, TypeValue) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return self.name


def type_name(v) -> str:
    """The CEL type name of a runtime value, as cel-go prints it in messages."""
    t = type(v)
    if v is None:
        return "null_type"
    if t is bool:
        return "bool"
    if t is UInt:
        return "uint"
    if t is int:
        return "int"
    if t is float:
        return "double"
    if t is str:
        return "string"
    if t is bytes:
        return "bytes"
    if t is list or t is tuple:
        return "list"
    if t is dict:
        return "map"
    if t is Optional:
        return "optional_type"
    if t is TypeValue:
        return "type"
    name = getattr(v, "CEL_TYPE", None)
    return name or t.__name__


def no_overload(name: str = ""):
    return EvalError(f"no such overload: {name}" if name else "no such overload")


def succeeds(fn, *args) -> bool:
    """Whether `fn(*args)` returns rather than raising an EvalError (isIP, isCIDR, isSemver ...); a call
    on arguments of the wrong types is still no such overload."""
    try:
        fn(*args)
    except EvalError as exc:
        if exc.message.startswith("no such overload"):
            raise
        return False
    return True


def check_int(v: int) -> int:
    if INT64_MIN <= v <= INT64_MAX:
        return v
    raise EvalError("integer overflow")


def check_uint(v: int) -> UInt:
    if 0 <= v <= UINT64_MAX:
        return UInt(v)
    raise EvalError("unsigned integer overflow")


def is_num(v) -> bool:
    t = type(v)
    return t is int or t is float or t is UInt


def equal(a, b) -> bool:
    """CEL heterogeneous equality (cel-go common/types: numbers compare by value across int, uint and
    double; values of different types are unequal; NaN equals nothing)."""
    ta, tb = type(a), type(b)
    if is_num(a) and is_num(b):
        return a == b
    if ta is bool or tb is bool:
        return ta is tb and a == b
    if ta in (list, tuple) and tb in (list, tuple):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    if ta is dict and tb is dict:
        if len(a) != len(b):
            return False
        for k, v in a.items():
            found, other = map_get(b, k)
            if not found or not equal(v, other):
                return False
        return True
    if ta is not tb:
        return False
    if a is None:
        return True
    return a == b


def map_get(m: dict, key):
    """(found, value) of `key` in a CEL map: numeric keys match across int, uint and double."""
    if type(key) is bool:
        for k, v in m.items():
            if type(k) is bool and k == key:
                return True, v
        return False, None
    if is_num(key):
        if type(key) is float and not key.is_integer():
            return False, None
        for k, v in m.items():
            if is_num(k) and k == key:
                return True, v
        return False, None
    try:
        if key in m:
            return True, m[key]
    except TypeError:
        raise no_overload() from None
    return False, None


def compare(a, b) -> int:
    """-1, 0 or 1 for CEL's ordering (CrossTypeNumericComparisons: numbers across types; otherwise
    the same type of bool, string, bytes, or the comparable library types); no such overload else."""
    if is_num(a) and is_num(b):
        if type(a) is float and math.isnan(a) or type(b) is float and math.isnan(b):
            return 2  # unordered: every comparison with NaN is false
        return (a > b) - (a < b)
    ta = type(a)
    if ta is not type(b):
        raise no_overload()
    if ta is str:
        # Go compares strings byte-wise (UTF-8); Python by code point, the same order
        return (a > b) - (a < b)
    if ta in (bool, bytes):
        return (a > b) - (a < b)
    cmp = getattr(a, "cel_compare", None)
    if cmp is None:
        raise no_overload()
    return cmp(b)


def size(v) -> int:
    t = type(v)
    if t is str:
        return len(v)
    if t in (bytes, list, tuple, dict):
        return len(v)
    raise no_overload("size")


def actual_size(v) -> int:
    """cel-go interpreter/runtimecost.go actualSize: a sized value's size, else 1."""
    t = type(v)
    if t in (str, bytes, list, tuple, dict):
        return len(v)
    if t is Optional and v.present:
        return actual_size(v.value)
    return 1


def traversal(n: int) -> int:
    return math.ceil(n * STRING_TRAVERSAL_FACTOR)


def as_bool(v):
    if v is True or v is False:
        return v
    if type(v) is Unknown:
        return v
    raise no_overload()
