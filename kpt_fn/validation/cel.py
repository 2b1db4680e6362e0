"""Offline evaluation of CRD `x-kubernetes-validations` CEL rules.

Rules are parsed with cel-python's (`celpy`) grammar at build time: `scripts/generate.py cel` writes
each release bundle's cel_trees.json (building that parser costs about a third of a second, and
cel-python is a test dependency, not one of the function's). cel-python's own interpreter needs about
a millisecond per evaluation, which alone would halve validation throughput, so the parse tree is
compiled here into nested Python closures for the subset of CEL the Kubernetes CRDs use (literals,
field selection, `has`, logic with CEL's error absorption, comparisons, arithmetic, `in`, `size`,
`matches`/`startsWith`/`endsWith`/`contains`, the macros all/exists/exists_one/filter/map, indexing,
`?:`). The generator fails on a shipped rule this compiler does not handle, so every rule the function
meets has a tree and compiles; any other text is a compile error (tests/support/celpy_oracle.py parses other
texts with cel-python and keeps its interpreter as the oracle the compiled rules are checked against).

Two things make the evaluation match the API server rather than plain CEL over YAML:
- The API server evaluates rules on the defaulted object. The compiler knows the schema node of
  every selected field, so selecting (or `has`) an absent field that has a schema default yields
  the default.
- `null` values of non-nullable fields are pruned by the API server; they read as absent here.
"""

from __future__ import annotations

import functools
import re

from kpt_fn import openapi
from kpt_fn.apimachinery.validation import dns1035_label_ok

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_MISSING = object()


class CelError(Exception):
    """A CEL evaluation error, worded like cel-go's (`no such key: x`, `no such overload`)."""

    def __str__(self):
        return self.args[0] if self.args else "evaluation error"


class Unsupported(Exception):
    """The compiler does not handle this construct (scripts/generate.py cel refuses such a rule)."""


class Program:
    """A compiled rule: `evaluate(self_value)` returns the CEL result or raises CelError."""

    __slots__ = ("text", "uses_old_self", "compile_error", "_fn")

    def __init__(self, text: str, fn, uses_old_self: bool, compile_error: str = ""):
        self.text = text
        self._fn = fn
        self.uses_old_self = uses_old_self
        self.compile_error = compile_error

    def evaluate(self, value):
        return self._fn({"self": value})


# ----------------------------------------------------------------------------------------------
# Parsing: precompiled trees first, cel-python's parser for anything else

class Tree:
    """A node of a precompiled parse tree, shaped like the lark Tree cel-python's parser returns."""

    __slots__ = ("data", "children")

    def __init__(self, data: str, children: list):
        self.data = data
        self.children = children

    def __repr__(self):
        return f"Tree({self.data!r}, {self.children!r})"


class Token(str):
    """A terminal of a precompiled tree, like lark's Token (a str with `.type`); `decoded` is the value
    of a string or bytes literal with its escapes already resolved (None for other terminals)."""

    def __new__(cls, type_: str, value: str, decoded=None):
        self = super().__new__(cls, value)
        self.type = type_
        self.decoded = decoded
        return self

    @property
    def value(self) -> str:
        return str(self)

    def __repr__(self):
        return f"Token({self.type!r}, {str(self)!r})"


def _precompiled(text: str):
    """The plain tree of a rule text from the release bundles (tests extend it with cel-python's parser)."""
    return _bundled(text)


def _bundled(text: str):
    """The plain tree of a rule text from the release bundles (a rule's tree is the same in every
    release: a parse of its text), the newest release asked first."""
    from kpt_fn import upstream

    for release in reversed(upstream.RELEASES):
        plain = upstream.bundle(release).cel_trees().get(text)
        if plain is not None:
            return plain
    return None


def _from_plain(node):
    if "data" in node:
        return Tree(node["data"], [_from_plain(c) for c in node["children"]])
    if "string" in node:
        return Token(node["type"], node["value"], node["string"])
    if "bytes" in node:
        return Token(node["type"], node["value"], bytes.fromhex(node["bytes"]))
    return Token(node["type"], node["value"])


class NotPrecompiled(Exception):
    """A rule text no release bundle has a parse tree for."""


# Rule text -> its Tree, for the texts the release bundles hold: a text is parsed once per process,
# however many schema nodes carry it (TrainingRuntime's and ClusterTrainingRuntime's rules are the same).
_trees: dict[str, Tree] = {}


def parse(text: str):
    """The precompiled parse tree of `text`; NotPrecompiled for a text no bundle holds."""
    tree = _trees.get(text)
    if tree is not None:
        return tree
    plain = _precompiled(text)
    if plain is None:
        raise NotPrecompiled("no precompiled parse tree for this rule (scripts/generate.py cel makes them)")
    tree = _from_plain(plain)
    if plain is _bundled(text):  # not a tree a test lends (tests/support/celpy_oracle.py)
        _trees[text] = tree
    return tree


def mentions_old_self(text: str) -> bool:
    """Whether a rule is a transition rule, without parsing it (parsing costs milliseconds)."""
    return "oldSelf" in text and re.search(r"\boldSelf\b", text) is not None


def uses_old_self(tree) -> bool:
    stack = [tree]
    while stack:
        for child in stack.pop().children:
            if isinstance(child, str):  # a token, lark's or ours
                if child == "oldSelf":
                    return True
            else:
                stack.append(child)
    return False


def compile_rule(text: str, schema: dict | None) -> Program:
    """Compile `text` with `self` described by `schema` (the JSON Schema node the rule sits on).

    A rule without a parse tree, or one the compiler does not handle, yields a Program with
    `compile_error` set; evaluating it raises.
    """
    try:
        tree = parse(text)
    except Exception as exc:  # NotPrecompiled, or a parser's error where tests parse (celpy_oracle)
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__

        def broken(_vars):
            raise CelError(f"rule compile error: {message}")

        return Program(text, broken, False, compile_error=message)
    old = uses_old_self(tree)
    if old:
        return Program(text, _raise_unsupported, True)
    try:
        fn, _ = _Compiler().expr(tree, {"self": schema})
    except Exception as exc:  # Unsupported, or a compiler bug: neither may crash validation
        message = f"{type(exc).__name__}: {exc}"

        def broken(_vars):
            raise CelError(f"rule compile error: {message}")

        return Program(text, broken, False, compile_error=message)
    return Program(text, fn, False)


def _raise_unsupported(_vars):
    raise CelError("transition rules need the old object")


# ----------------------------------------------------------------------------------------------
# Values and the operations on them

def _type_name(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "double"
    if isinstance(v, str):
        return "string"
    if isinstance(v, (bytes, bytearray)):
        return "bytes"
    if isinstance(v, list):
        return "list"
    if isinstance(v, dict):
        return "map"
    return type(v).__name__


def _is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def cel_equal(a, b) -> bool:
    """CEL heterogeneous equality: values of different types are unequal, numbers compare by value."""
    if _is_num(a) and _is_num(b):
        return a == b
    ta, tb = type(a), type(b)
    if ta is bool or tb is bool:
        return ta is tb and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(cel_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(cel_equal(a[k], b[k]) for k in a)
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    if isinstance(a, (bytes, bytearray)) and isinstance(b, (bytes, bytearray)):
        return bytes(a) == bytes(b)
    return a is None and b is None


def _ordered(a, b) -> bool:
    if _is_num(a) and _is_num(b):
        return True
    return type(a) is type(b) and isinstance(a, (str, bool, bytes))


def _check_int(v):
    if INT64_MIN <= v <= INT64_MAX:
        return v
    raise CelError("integer overflow")


def _add(a, b):
    if type(a) is int and type(b) is int:
        return _check_int(a + b)
    if (type(a), type(b)) in ((float, float), (str, str), (list, list), (bytes, bytes)):
        return a + b
    raise CelError("no such overload")


def _sub(a, b):
    if type(a) is int and type(b) is int:
        return _check_int(a - b)
    if type(a) is float and type(b) is float:
        return a - b
    raise CelError("no such overload")


def _mul(a, b):
    if type(a) is int and type(b) is int:
        return _check_int(a * b)
    if type(a) is float and type(b) is float:
        return a * b
    raise CelError("no such overload")


def _div(a, b):
    if type(a) is int and type(b) is int:
        if b == 0:
            raise CelError("division by zero")
        q = abs(a) // abs(b)
        return _check_int(q if (a >= 0) == (b >= 0) else -q)
    if type(a) is float and type(b) is float:
        if b == 0:
            return float("inf") if a > 0 else float("-inf") if a < 0 else float("nan")
        return a / b
    raise CelError("no such overload")


def _mod(a, b):
    if type(a) is int and type(b) is int:
        if b == 0:
            raise CelError("modulus by zero")
        r = abs(a) % abs(b)
        return r if a >= 0 else -r
    raise CelError("no such overload")


def _size(v):
    if isinstance(v, (str, list, dict, bytes)):
        return len(v)
    raise CelError("no such overload")


def _re2_anchors(pattern: str) -> str:
    """`pattern` with RE2's end of text: the API server's matches() runs Go's regexp (RE2 syntax),
    where `$` outside a class is the end of the text; Python's `$` also matches before a final line
    break, which would let a storage URI ending in one pass a rule the API server refuses. Other syntax the
    bundled rules use means the same in both."""
    out, i, in_class = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            # `]` first in a class (after an optional `^`) is a literal, in both syntaxes
            j = i + 1 + (pattern[i + 1:i + 2] == "^")
            if pattern[j:j + 1] == "]":
                out.append(pattern[i:j + 1])
                i = j + 1
                continue
        elif c == "$":
            c = r"\Z"
        out.append(c)
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=256)
def _regex(pattern: str):
    try:
        return re.compile(_re2_anchors(pattern))
    except re.error as exc:
        raise CelError(f"invalid regular expression: {exc}") from None


_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_SCHEME_CHARS = _LETTERS | frozenset("0123456789+.-")


def _scheme_url(s: str) -> bool:
    # The scheme holds no ":", so the first ":" starts "://"; `.` is anything but a line break.
    scheme, colon, rest = s.partition(":")
    return bool(colon) and rest[:2] == "//" and len(rest) > 2 and "\n" not in rest \
        and scheme[:1] in _LETTERS and _SCHEME_CHARS.issuperset(scheme)


# The patterns of the bundled CRDs' rules (a TrainJob's name, a storage URI), answered as RE2 answers
# them without compiling an expression: the two compiles cost ~0.7 ms of a run that meets them. The
# name's is apimachinery's DNS-1035 label format. tests/unit/validation/test_cel.py holds each to RE2.
_KNOWN = {
    "^[a-z]([-a-z0-9]*[a-z0-9])?$": dns1035_label_ok,
    "^[A-Za-z][A-Za-z0-9+.-]*://.+$": _scheme_url,
}


def _matches(s, pattern):
    if not isinstance(s, str) or not isinstance(pattern, str):
        raise CelError("no such overload")
    known = _KNOWN.get(pattern)
    if known is not None:
        return known(s)
    return _regex(pattern).search(s) is not None


def _string_pred(name):
    op = {"startsWith": str.startswith, "endsWith": str.endswith, "contains": str.__contains__}[name]

    def call(s, arg):
        if not isinstance(s, str) or not isinstance(arg, str):
            raise CelError("no such overload")
        return op(s, arg)

    return call


def _in(item, container):
    if isinstance(container, list):
        return any(cel_equal(item, x) for x in container)
    if isinstance(container, dict):
        return item in container if isinstance(item, str) else False
    raise CelError("no such overload")


def _as_bool(v):
    if v is True or v is False:
        return v
    raise CelError("no such overload")


# ----------------------------------------------------------------------------------------------
# Schema navigation (static: which schema node a selected field has)

_child_schema = openapi.value_node


def _item_schema(schema):
    """What a comprehension variable ranges over: a list's items, or a map's keys (strings)."""
    if not isinstance(schema, dict):
        return None
    if "items" in schema:
        return schema["items"]
    return {"type": "string"} if schema.get("type") == "object" else None


# ----------------------------------------------------------------------------------------------
# Compiler from celpy's lark tree to closures f(vars) -> value

_SINGLE = {"expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication",
           "unary", "member", "primary"}
_REL = {"relation_lt": "<", "relation_le": "<=", "relation_gt": ">", "relation_ge": ">=",
        "relation_eq": "==", "relation_ne": "!=", "relation_in": "in"}
_ARITH = {"addition_add": _add, "addition_sub": _sub, "multiplication_mul": _mul,
          "multiplication_div": _div, "multiplication_mod": _mod}
_MACROS = {"all", "exists", "exists_one", "filter", "map"}


class _Compiler:
    """Each method returns (fn, schema): fn(vars) evaluates, schema is the static schema or None."""

    def expr(self, tree, scope):
        data = tree.data
        kids = tree.children
        if data == "expr" and len(kids) == 3:
            return self._ternary(kids, scope)
        if data == "conditionalor" and len(kids) == 2:
            return self._logic(kids, scope, is_and=False), None
        if data == "conditionaland" and len(kids) == 2:
            return self._logic(kids, scope, is_and=True), None
        if data == "relation" and len(kids) == 2:
            return self._relation(kids, scope), None
        if data in ("addition", "multiplication") and len(kids) == 2:
            return self._arith(kids, scope), None
        if data == "unary" and len(kids) == 2:
            return self._unary(kids, scope), None
        if data in _SINGLE and len(kids) == 1:
            return self.expr(kids[0], scope)
        if data == "paren_expr":
            return self.expr(kids[0], scope)
        if data == "literal":
            value = _literal(kids[0])
            return (lambda v: value), None
        if data == "list_lit":
            return self._list(kids, scope), None
        if data == "map_lit":
            return self._map(kids, scope), None
        if data == "ident":
            return self._ident(str(kids[0]), scope)
        if data == "ident_arg":
            return self._global_call(str(kids[0]), kids[1] if len(kids) > 1 else None, scope)
        if data == "member_dot":
            return self._select(kids, scope)
        if data == "member_dot_arg":
            return self._method(kids, scope)
        if data == "member_index":
            return self._index(kids, scope)
        raise Unsupported(data)

    def _args(self, exprlist):
        return [] if exprlist is None else list(exprlist.children)

    def _ternary(self, kids, scope):
        cond, _ = self.expr(kids[0], scope)
        yes, s1 = self.expr(kids[1], scope)
        no, s2 = self.expr(kids[2], scope)

        def fn(v):
            return yes(v) if _as_bool(cond(v)) else no(v)

        return fn, s1 if s1 is s2 else None

    def _logic(self, kids, scope, *, is_and):
        left, _ = self.expr(kids[0], scope)
        right, _ = self.expr(kids[1], scope)
        decisive = not is_and  # `true` decides ||, `false` decides &&

        def fn(v):
            try:
                a = left(v)
                if a is decisive:
                    return decisive
            except CelError as exc:
                a = exc
            try:
                b = right(v)
                if b is decisive:
                    return decisive
            except CelError as exc:
                b = exc
            if a is (not decisive) and b is (not decisive):
                return not decisive
            if isinstance(a, CelError):
                raise a
            if isinstance(b, CelError):
                raise b
            raise CelError("no such overload")

        return fn

    def _relation(self, kids, scope):
        op_tree, rhs_tree = kids
        op = _REL[op_tree.data]
        left, _ = self.expr(op_tree.children[0], scope)
        right, _ = self.expr(rhs_tree, scope)
        if op == "==":
            return lambda v: cel_equal(left(v), right(v))
        if op == "!=":
            return lambda v: not cel_equal(left(v), right(v))
        if op == "in":
            return lambda v: _in(left(v), right(v))
        compare = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
                   ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}[op]

        def fn(v):
            a, b = left(v), right(v)
            if not _ordered(a, b):
                raise CelError("no such overload")
            return compare(a, b)

        return fn

    def _arith(self, kids, scope):
        op_tree, rhs_tree = kids
        op = _ARITH[op_tree.data]
        left, _ = self.expr(op_tree.children[0], scope)
        right, _ = self.expr(rhs_tree, scope)
        return lambda v: op(left(v), right(v))

    def _unary(self, kids, scope):
        op, operand = kids
        inner, _ = self.expr(operand, scope)
        if op.data == "unary_not":
            return lambda v: not _as_bool(inner(v))

        def neg(v):
            x = inner(v)
            if type(x) is int:
                return _check_int(-x)
            if type(x) is float:
                return -x
            raise CelError("no such overload")

        return neg

    def _list(self, kids, scope):
        items = [self.expr(e, scope)[0] for e in self._args(kids[0] if kids else None)]
        return lambda v: [f(v) for f in items]

    def _map(self, kids, scope):
        parts = [self.expr(e, scope)[0] for e in (kids[0].children if kids else [])]
        pairs = list(zip(parts[0::2], parts[1::2]))
        return lambda v: {k(v): x(v) for k, x in pairs}

    def _ident(self, name, scope):
        if name not in scope:
            raise Unsupported(f"identifier {name}")
        schema = scope[name]
        return (lambda v: v[name]), schema

    def _select(self, kids, scope):
        target, target_schema = self.expr(kids[0], scope)
        name = str(kids[1])
        schema = _child_schema(target_schema, name)
        default = schema.get("default", _MISSING) if isinstance(schema, dict) else _MISSING

        def fn(v):
            obj = target(v)
            if not isinstance(obj, dict):
                raise CelError("no such overload")
            value = obj.get(name)
            if value is None:
                if default is _MISSING:
                    raise CelError(f"no such key: {name}")
                return default
            return value

        return fn, schema

    def _has(self, args, scope):
        if len(args) != 1:
            raise Unsupported("has arity")
        node = _unwrap(args[0])
        if node.data != "member_dot":
            raise Unsupported("has() needs a field selection")
        target, target_schema = self.expr(node.children[0], scope)
        name = str(node.children[1])
        schema = _child_schema(target_schema, name)
        defaulted = isinstance(schema, dict) and "default" in schema

        def fn(v):
            obj = target(v)
            if not isinstance(obj, dict):
                raise CelError("no such overload")
            return obj.get(name) is not None or defaulted

        return fn, None

    def _global_call(self, name, exprlist, scope):
        args = self._args(exprlist)
        if name == "has":
            return self._has(args, scope)
        if name == "size" and len(args) == 1:
            arg, _ = self.expr(args[0], scope)
            return (lambda v: _size(arg(v))), None
        raise Unsupported(f"function {name}")

    def _method(self, kids, scope):
        target_tree, name_tok = kids[0], str(kids[1])
        args = self._args(kids[2] if len(kids) > 2 else None)
        if name_tok in _MACROS and len(args) in (2, 3):
            return self._macro(name_tok, target_tree, args, scope)
        target, _ = self.expr(target_tree, scope)
        if name_tok == "size" and not args:
            return (lambda v: _size(target(v))), None
        if name_tok == "matches" and len(args) == 1:
            pattern, _ = self.expr(args[0], scope)
            return (lambda v: _matches(target(v), pattern(v))), None
        if name_tok in ("startsWith", "endsWith", "contains") and len(args) == 1:
            call = _string_pred(name_tok)
            arg, _ = self.expr(args[0], scope)
            return (lambda v: call(target(v), arg(v))), None
        raise Unsupported(f"method {name_tok}")

    def _index(self, kids, scope):
        target, target_schema = self.expr(kids[0], scope)
        key, _ = self.expr(kids[1], scope)
        item_schema = _item_schema(target_schema) if isinstance(target_schema, dict) and \
            target_schema.get("type") == "array" else None

        def fn(v):
            obj, k = target(v), key(v)
            if isinstance(obj, list):
                if type(k) is not int:
                    raise CelError("no such overload")
                if not 0 <= k < len(obj):
                    raise CelError(f"index out of bounds: {k}")
                return obj[k]
            if isinstance(obj, dict):
                value = obj.get(k) if isinstance(k, str) else None
                if value is None:
                    raise CelError(f"no such key: {k}")
                return value
            raise CelError("no such overload")

        return fn, item_schema

    def _macro(self, name, target_tree, args, scope):
        target, target_schema = self.expr(target_tree, scope)
        var_node = _unwrap(args[0])
        if var_node.data != "ident":
            raise Unsupported("macro variable")
        var = str(var_node.children[0])
        inner = dict(scope)
        inner[var] = _item_schema(target_schema)
        body = [self.expr(a, inner)[0] for a in args[1:]]

        def elements(v):
            coll = target(v)
            if isinstance(coll, list):
                return coll
            if isinstance(coll, dict):
                return list(coll)
            raise CelError("no such overload")

        def run(v, fn_per_item):
            saved = v.get(var, _MISSING)
            try:
                return fn_per_item(v, elements(v))
            finally:
                if saved is _MISSING:
                    v.pop(var, None)
                else:
                    v[var] = saved

        pred = body[0]
        if name in ("all", "exists"):
            # all() stops at the first false, exists() at the first true; errors of other elements
            # are absorbed by that decisive element, as in CEL's logical operators.
            decisive = name == "exists"

            def each(v, items):
                err = None
                for x in items:
                    v[var] = x
                    try:
                        r = _as_bool(pred(v))
                    except CelError as exc:
                        err = err or exc
                        continue
                    if r is decisive:
                        return decisive
                if err is not None:
                    raise err
                return not decisive
        elif name == "exists_one":
            def each(v, items):
                count = 0
                for x in items:
                    v[var] = x
                    if _as_bool(pred(v)):
                        count += 1
                return count == 1
        elif name == "filter":
            def each(v, items):
                out = []
                for x in items:
                    v[var] = x
                    if _as_bool(pred(v)):
                        out.append(x)
                return out
        else:  # map, with an optional filter
            transform = body[-1]
            keep = body[0] if len(body) == 2 else None

            def each(v, items):
                out = []
                for x in items:
                    v[var] = x
                    if keep is None or _as_bool(keep(v)):
                        out.append(transform(v))
                return out

        return (lambda v: run(v, each)), None


def _unwrap(tree):
    while tree.data in _SINGLE and len(tree.children) == 1:
        tree = tree.children[0]
    return tree


def _literal(token):
    kind = token.type
    text = str(token)
    if kind == "INT_LIT":
        neg = text.startswith("-")
        body = text[1:] if neg else text
        value = int(body, 16) if body.lower().startswith("0x") else int(body)
        return -value if neg else value
    if kind == "UINT_LIT":
        return int(text[:-1], 0) if text[:-1].lower().startswith("0x") else int(text[:-1])
    if kind == "FLOAT_LIT":
        return float(text)
    if kind in ("STRING_LIT", "MLSTRING_LIT", "BYTES_LIT"):
        # Decoded at build time (scripts/generators/cel.py): the function decodes no escapes itself.
        return token.decoded
    if kind == "BOOL_LIT":
        return text == "true"
    if kind == "NULL_LIT":
        return None
    raise Unsupported(kind)
