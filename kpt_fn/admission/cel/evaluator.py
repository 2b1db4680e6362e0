"""The parse tree of a checked expression compiled into nested closures `fn(run) -> value`, with
cel-go's evaluation semantics and its runtime cost (cel-go v0.26.0 interpreter/runtimecost.go: 1 per
identifier, selection and call unless the function's cost says otherwise, 0 per constant, 10 per list
and 30 per map built, a presence test free as the API server asks with PresenceTestHasCost(false)),
and the macros' cost as cel-go's expansions of them into comprehensions count (parser/macro.go).
"""

from __future__ import annotations

import math

from kpt_fn.admission.cel import operators, runtime
from kpt_fn.admission.cel.runtime import (LIST_CREATE_COST, MAP_CREATE_COST, NONE, Optional, TypeValue, check_int,
                                          map_get, no_overload)
from kpt_fn.admission.cel.runtime import resolve
from kpt_fn.admission.cel.values import EvalError, Lazy, UInt, Unknown

# identifiers that are type values (cel-go checker/types standard type identifiers)
TYPE_NAMES = frozenset(("int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type",
                        "dyn", "optional_type", "google.protobuf.Timestamp", "google.protobuf.Duration",
                        # the libraries' types (k8s.io/apiserver pkg/cel: kubernetes.URL ... net.CIDR)
                        "kubernetes.URL", "kubernetes.Quantity", "kubernetes.Semver", "kubernetes.NamedFormat",
                        "net.IP", "net.CIDR"))


def merge_unknown(*values):
    reasons = sorted({v.reason for v in values if type(v) is Unknown})
    return Unknown("; ".join(reasons))


def dotted(node):
    """`a.b.c` as "a.b.c" when the node is a chain of selections on an identifier, else None."""
    parts = []
    while node[0] == "select" and not node[3]:
        parts.append(node[2])
        node = node[1]
    if node[0] != "ident":
        return None
    parts.append(node[1])
    return ".".join(reversed(parts))


class Compiler:
    """Compiles the tree; `functions` maps a function name to its stdlib.Function, `declared` is the
    set of variable names of the activation."""

    def __init__(self, functions: dict, declared):
        self.functions = functions
        self.declared = declared

    def compile(self, node, scope=frozenset()):
        return getattr(self, "_" + node[0])(node, scope)

    # -- leaves
    def _lit(self, node, scope):
        value = node[1]
        return lambda r: value

    def _ident(self, node, scope):
        name = node[1]
        if name in scope:
            def local(r):
                r.charge(1)
                return r.vars[name]
            return local
        if name in TYPE_NAMES and name not in self.declared:
            value = TypeValue(name)
            return lambda r: value

        def variable(r):
            r.charge(1)
            return r.variable(name)
        return variable

    # -- selection
    def _select(self, node, scope):
        name = dotted(node)
        if name is not None and name.split(".")[0] not in scope and name in self.declared:
            def variable(r):
                r.charge(1)
                return r.variable(name)
            return variable
        if name in TYPE_NAMES and name.split(".")[0] not in scope and name.split(".")[0] not in self.declared:
            type_value = TypeValue(name)
            return lambda r: type_value
        operand = self.compile(node[1], scope)
        field, optional = node[2], node[3]

        def select(r):
            obj = operand(r)
            r.charge(1)
            value = select_field(obj, field, optional)
            return resolve(value, r.resolved) if type(value) is Lazy else value
        return select

    def _has(self, node, scope):
        operand = self.compile(node[1], scope)
        field = node[2]

        def has(r):
            obj = operand(r)
            return has_field(obj, field)
        return has

    def _index(self, node, scope):
        operand = self.compile(node[1], scope)
        key = self.compile(node[2], scope)
        optional = node[3]

        def index(r):
            obj = operand(r)
            k = key(r)
            r.charge(1)
            value = index_value(obj, k, optional)
            return resolve(value, r.resolved) if type(value) is Lazy else value
        return index

    # -- logic
    def _and(self, node, scope):
        return self._logic(node, scope, decisive=False)

    def _or(self, node, scope):
        return self._logic(node, scope, decisive=True)

    def _logic(self, node, scope, decisive):
        left = self.compile(node[1], scope)
        right = self.compile(node[2], scope)

        def logic(r):
            # cel-go's absorption: the deciding value wins over an error or unknown on either side;
            # otherwise an unknown wins over an error, and the left error over the right one.
            a = value_or_error(left, r)
            if a is decisive:
                return decisive
            b = value_or_error(right, r)
            if b is decisive:
                return decisive
            if a is (not decisive) and b is (not decisive):
                return not decisive
            if type(a) is Unknown or type(b) is Unknown:
                return merge_unknown(a, b)
            if isinstance(a, EvalError):
                raise a
            if isinstance(b, EvalError):
                raise b
            raise no_overload("_&&_" if not decisive else "_||_")
        return logic

    def _not(self, node, scope):
        inner = self.compile(node[1], scope)

        def not_(r):
            v = inner(r)
            r.charge(1)
            if v is True or v is False:
                return not v
            if type(v) is Unknown:
                return v
            raise no_overload("!_")
        return not_

    def _neg(self, node, scope):
        inner = self.compile(node[1], scope)

        def neg(r):
            v = inner(r)
            r.charge(1)
            t = type(v)
            if t is int:
                return check_int(-v)
            if t is float:
                return -v
            if type(v) is Unknown:
                return v
            neg_ = getattr(v, "cel_negate", None)
            if neg_ is not None:
                return neg_()
            raise no_overload("-_")
        return neg

    def _cond(self, node, scope):
        cond = self.compile(node[1], scope)
        yes = self.compile(node[2], scope)
        no = self.compile(node[3], scope)

        def conditional(r):
            c = cond(r)
            if c is True:
                return yes(r)
            if c is False:
                return no(r)
            if type(c) is Unknown:
                return c
            raise no_overload("_?_:_")
        return conditional

    # -- literals
    def _list(self, node, scope):
        elems = [self.compile(e, scope) for e in node[1]]
        optional = node[2]

        def make_list(r):
            out = []
            for i, e in enumerate(elems):
                v = e(r)
                if i in optional:
                    if type(v) is not Optional:
                        raise no_overload()
                    if v.present:
                        out.append(v.value)
                    continue
                out.append(v)
            r.charge(LIST_CREATE_COST)
            return out
        return make_list

    def _map(self, node, scope):
        entries = [(self.compile(k, scope), self.compile(v, scope), opt) for k, v, opt in node[1]]

        def make_map(r):
            out = {}
            for k, v, opt in entries:
                key = k(r)
                if type(key) not in (str, int, UInt, bool):
                    raise EvalError(f"unsupported key type: {runtime.type_name(key)}")
                value = v(r)
                if opt:
                    if type(value) is not Optional:
                        raise no_overload()
                    if not value.present:
                        continue
                    value = value.value
                if map_get(out, key)[0]:
                    raise EvalError(f"Failed with repeated key: {key}")
                out[key] = value
            r.charge(MAP_CREATE_COST)
            return out
        return make_map

    def _struct(self, node, scope):
        raise EvalError(f"unknown type: {node[1]}")

    # -- calls
    def _call(self, node, scope):
        args = node[3]
        name, target = qualified_function(node, scope, self.declared, self.functions)
        operator = operators.OPERATORS.get(name)
        compiled = ([self.compile(target, scope)] if target is not None else []) + \
            [self.compile(a, scope) for a in args]
        if operator is not None:
            return _operator(name, operator, compiled)
        fn = self.functions[name]
        impl, cost = fn.impl, fn.cost
        lazy = getattr(impl, "cel_lazy", False)  # a function that takes the run (it meters itself)

        def call(r):
            values = [a(r) for a in compiled]
            for v in values:
                if type(v) is Unknown:
                    r.charge(1)
                    return merge_unknown(*values)
            try:
                result = impl(r, *values) if lazy else impl(*values)
            except TypeError:
                # an argument count no overload takes (only an unchecked tree can hold one): cel-go's
                # dispatch finds no overload either
                raise no_overload(name) from None
            r.charge(1 if cost is None else cost(values, result))
            return result
        return call

    def _macro(self, node, scope):
        from kpt_fn.admission.cel import macros

        return macros.compile_macro(self, node, scope)


def value_or_error(fn, r):
    """What `fn` evaluates to, or its EvalError as a value (for the operators that absorb errors); an
    exceeded cost limit is never absorbed."""
    try:
        return fn(r)
    except EvalError as exc:
        if exc.message == runtime.COST_EXCEEDED:
            raise
        return exc


def qualified_function(node, scope, declared, functions):
    """`(name, target)` of a call: `strings.quote(x)` parses as a call of `quote` on `strings`; it is
    the namespaced function when `strings` is neither a declared variable nor a comprehension's."""
    name, target = node[1], node[2]
    if target is not None:
        qualified = dotted(target)
        if qualified is not None and qualified.split(".")[0] not in scope and \
                qualified not in declared and f"{qualified}.{name}" in functions:
            return f"{qualified}.{name}", None
    return name, target


def select_field(obj, field, optional=False):
    t = type(obj)
    if t is Optional:
        if not obj.present:
            return NONE
        return Optional(select_field(obj.value, field, False), True) if not optional else \
            select_field(obj.value, field, True)
    if t is dict:
        if field in obj:
            value = obj[field]
            return Optional(value, True) if optional else value
        if optional:
            return NONE
        raise EvalError(f"no such key: {field}")
    if t is Unknown:
        return obj
    get = getattr(obj, "cel_field", None)
    if get is not None:
        value = get(field)
        return Optional(value, True) if optional else value
    raise EvalError(f"type '{runtime.type_name(obj)}' does not support field selection")


def has_field(obj, field):
    t = type(obj)
    if t is dict:
        return field in obj
    if t is Unknown:
        return obj
    if t is Optional:
        return obj.present and has_field(obj.value, field)
    raise EvalError(f"invalid type for field selection.")


def index_value(obj, key, optional=False):
    t = type(obj)
    if t is Optional:
        if not obj.present:
            return NONE
        return Optional(index_value(obj.value, key, False), True) if not optional else \
            index_value(obj.value, key, True)
    if type(key) is Unknown:
        return key
    if t is list or t is tuple:
        kt = type(key)
        if kt is float:
            if not key.is_integer():
                raise EvalError(f"unsupported index value {key}")
            key = int(key)
        elif kt is not int and kt is not UInt:
            raise no_overload("_[_]")
        if not 0 <= key < len(obj):
            if optional:
                return NONE
            raise EvalError(f"index '{int(key)}' out of range in list size '{len(obj)}'")
        return Optional(obj[key], True) if optional else obj[key]
    if t is dict:
        found, value = map_get(obj, key)
        if found:
            return Optional(value, True) if optional else value
        if optional:
            return NONE
        raise EvalError(f"no such key: {runtime_key_text(key)}")
    if t is Unknown:
        return obj
    raise no_overload("_[_]")


def runtime_key_text(key):
    if type(key) is bool:
        return "true" if key else "false"
    return str(key)


def _operator(name, op, args):
    left, right = args

    def operator(r):
        a = left(r)
        b = right(r)
        if type(a) is Unknown or type(b) is Unknown:
            return merge_unknown(a, b)
        result = op(r, a, b)
        r.charge(1)
        return result
    return operator

