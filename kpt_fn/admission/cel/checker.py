"""CEL's type checker, for what the API server's compile step refuses: undeclared names, functions
without an overload for the argument types, fields an object type does not have, mixed list and map
literals (cel.HomogeneousAggregateLiterals), and the expression's output type (a validation must be
`bool`, a messageExpression `string`: "must evaluate to bool but got dyn").

Types are tuples: ("int",) ("list", T) ("map", K, V) ("optional_type", T) ("type", T) ("obj", name)
("param", "A") ("dyn",). Messages are cel-go v0.26.0's (checker/errors.go).
"""

from __future__ import annotations

from kpt_fn.admission.cel.evaluator import TYPE_NAMES, dotted, qualified_function
from kpt_fn.admission.cel.values import UInt

DYN = ("dyn",)
BOOL, INT, UINT, DOUBLE, STRING, BYTES = ("bool",), ("int",), ("uint",), ("double",), ("string",), ("bytes",)
NULL = ("null_type",)
# a type parameter no argument bound (optional.none()'s): it takes the type its context gives it, as
# cel-go's checker substitutes it, and reads as dyn where nothing does
FREE = ("free",)


def _split_top(text: str) -> list:
    """`text` split at its commas outside parentheses ("string, list(int)" -> ["string", " list(int)"])."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p for p in parts if p.strip()]


def parse_type(text: str):
    """A type from its text: "list(string)", "map(string, dyn)", "A", "kubernetes.Namespace"."""
    text = text.strip()
    if "(" in text:
        head, _, rest = text.partition("(")
        return (head.strip(), *(parse_type(a) for a in _split_top(rest[:-1])))
    if len(text) == 1 and text.isupper():
        return ("param", text)
    if text in ("int", "uint", "double", "bool", "string", "bytes", "dyn", "null_type"):
        return (text,)
    if text.startswith("google.protobuf."):
        return (text,)
    return ("obj", text)


def format_type(t) -> str:
    kind = t[0]
    if kind == "free":
        return "dyn"
    if kind == "obj":
        return t[1]
    if kind == "param":
        return t[1]
    if len(t) == 1:
        return kind
    return f"{kind}(" + ", ".join(format_type(x) for x in t[1:]) + ")"


def parse_signature(text: str):
    """(receiver type or None, [argument types], result type) of "string.contains(string) -> bool" or
    "list(A).indexOf(A) -> int"."""
    head, _, result = text.partition("->")
    call = head.strip()
    # the argument list is the parenthesis that closes the text
    depth = 0
    for i in range(len(call) - 1, -1, -1):
        if call[i] == ")":
            depth += 1
        elif call[i] == "(":
            depth -= 1
            if depth == 0:
                break
    name_part, args = call[:i], _split_top(call[i + 1:-1])
    receiver = None
    # "string.contains" / "list(A).size": a receiver unless the whole name is a namespaced global
    if "." in name_part and not name_part.startswith(_NAMESPACES):
        receiver_text, _, _ = name_part.rpartition(".")
        receiver = parse_type(receiver_text)
    return receiver, [parse_type(a) for a in args], parse_type(result)


# the namespaces of global functions ("optional.of", "lists.range")
_NAMESPACES = ("optional.", "strings.", "lists.", "sets.", "math.", "base64.", "semver.", "ip.", "format.")


class CheckError(Exception):
    def __init__(self, errors):
        super().__init__(errors)
        self.errors = errors  # [(offset, message)]


def _literal_type(value):
    t = type(value)
    if value is None:
        return NULL
    return {bool: BOOL, int: INT, UInt: UINT, float: DOUBLE, str: STRING, bytes: BYTES}.get(t, DYN)


class Checker:
    def __init__(self, functions: dict, declarations: dict, objects: dict, positions: dict):
        self.functions = functions
        self.declarations = declarations  # name -> type tuple
        self.objects = objects  # object type name -> {field: type tuple}
        self.positions = positions
        self.errors: list = []
        self.signatures = {}
        self.exempt = 0  # inside a call whose literals may mix types (string.format)

    def error(self, node, message):
        self.errors.append((self.positions.get(id(node), 0), message))
        return DYN

    def check(self, node, scope=None):
        return getattr(self, "_" + node[0])(node, scope or {})

    def _lit(self, node, scope):
        return _literal_type(node[1])

    def _ident(self, node, scope):
        name = node[1]
        if name in scope:
            return scope[name]
        if name in self.declarations:
            return self.declarations[name]
        if name in TYPE_NAMES:
            return ("type", parse_type(name) if name not in ("list", "map", "optional_type", "type") else DYN)
        return self.error(node, f"undeclared reference to '{name}' (in container '')")

    def _select(self, node, scope):
        name = dotted(node)
        if name is not None and name.split(".")[0] not in scope and name in self.declarations:
            return self.declarations[name]
        if name in TYPE_NAMES and name.split(".")[0] not in scope and name.split(".")[0] not in self.declarations:
            return ("type", parse_type(name))
        operand = self.check(node[1], scope)
        field_type = self._field(node, operand, node[2])
        if node[3] and field_type[0] != "optional_type":
            return ("optional_type", field_type)
        return field_type

    def _field(self, node, operand, field):
        kind = operand[0]
        if kind in ("dyn", "free"):
            return DYN
        if kind == "optional_type":
            inner = self._field(node, operand[1], field)
            return inner if inner[0] == "optional_type" else ("optional_type", inner)
        if kind == "map":
            if operand[1][0] not in ("string", "dyn", "param"):
                return self.error(node, f"type '{format_type(operand)}' does not support field selection")
            return operand[2]
        if kind == "obj":
            fields = self.objects.get(operand[1])
            if fields is None:
                return DYN
            if field not in fields:
                return self.error(node, f"undefined field '{field}'")
            return fields[field]
        return self.error(node, f"type '{format_type(operand)}' does not support field selection")

    def _has(self, node, scope):
        operand = self.check(node[1], scope)
        if operand[0] in ("dyn", "map", "obj", "optional_type", "param"):
            if operand[0] == "obj":
                self._field(node, operand, node[2])
            return BOOL
        self.error(node, f"type '{format_type(operand)}' does not support field selection")
        return BOOL

    def _index(self, node, scope):
        operand = self.check(node[1], scope)
        key = self.check(node[2], scope)
        optional = node[3]
        base = operand[1] if operand[0] == "optional_type" else operand
        result = self._call_types(node, "_[_]", None, [base, key])
        if optional or operand[0] == "optional_type":
            return result if result[0] == "optional_type" else ("optional_type", result)
        return result

    def _and(self, node, scope):
        return self._logic(node, scope, "_&&_")

    def _or(self, node, scope):
        return self._logic(node, scope, "_||_")

    def _logic(self, node, scope, name):
        a = self.check(node[1], scope)
        b = self.check(node[2], scope)
        for t in (a, b):
            if t not in (BOOL, DYN, FREE) and t[0] != "param":
                return self.error(node, f"found no matching overload for '{name}' applied to "
                                        f"'({format_type(a)}, {format_type(b)})'")
        return BOOL

    def _not(self, node, scope):
        return self._call_types(node, "!_", None, [self.check(node[1], scope)])

    def _neg(self, node, scope):
        return self._call_types(node, "-_", None, [self.check(node[1], scope)])

    def _cond(self, node, scope):
        types = [self.check(n, scope) for n in node[1:]]
        return self._call_types(node, "_?_:_", None, types)

    def _list(self, node, scope):
        types = []
        for i, e in enumerate(node[1]):
            t = self.check(e, scope)
            if i in node[2]:
                t = t[1] if t[0] == "optional_type" else DYN
            types.append((e, t))
        return ("list", self._homogeneous(types))

    def _map(self, node, scope):
        keys, values = [], []
        for k, v, opt in node[1]:
            kt = self.check(k, scope)
            vt = self.check(v, scope)
            if opt:
                vt = vt[1] if vt[0] == "optional_type" else DYN
            keys.append((k, kt))
            values.append((v, vt))
        return ("map", self._homogeneous(keys), self._homogeneous(values))

    def _homogeneous(self, typed):
        """The element type of a literal. cel.HomogeneousAggregateLiterals (cel-go v0.26.0
        cel/validator.go): every element has the first one's type exactly (`dyn` included: mixing
        takes dyn() around each element), the first mismatch of a literal reported."""
        if not typed:
            return DYN
        first = typed[0][1]
        for node, t in typed[1:]:
            joined = _same(first, t)
            if joined is None:
                if self.exempt:
                    return DYN
                self.error(node, f"expected type '{format_type(first)}' but found '{format_type(t)}'")
                return DYN
            first = joined
        return first

    def _struct(self, node, scope):
        return self.error(node, f"undeclared reference to '{node[1]}' (in container '')")

    def _call(self, node, scope):
        args = node[3]
        name, target = qualified_function(node, scope, self.declarations, self.functions)
        receiver = self.check(target, scope) if target is not None else None
        # cel-go v0.26.0 ext/formatting.go: string.format's arguments are exempt from
        # ValidateHomogeneousAggregateLiterals (cel/validator.go inExemptFunction)
        exempt = name == "format" and target is not None
        self.exempt += exempt
        try:
            arg_types = [self.check(a, scope) for a in args]
        finally:
            self.exempt -= exempt
        return self._call_types(node, name, receiver, arg_types, member=target is not None)

    def _call_types(self, node, name, receiver, arg_types, member=False):
        fn = self.functions.get(name)
        if fn is None:
            return self.error(node, f"undeclared reference to '{name}' (in container '')")
        results = []
        for sig in self._signatures(fn):
            sig_receiver, params, result = sig
            if (sig_receiver is not None) != member:
                continue
            wanted = ([sig_receiver] if member else []) + params
            given = ([receiver] if member else []) + arg_types
            if len(wanted) != len(given):
                continue
            bindings = {}
            if all(_unify(w, g, bindings) for w, g in zip(wanted, given)):
                results.append(_substitute(result, bindings))
        if not results:
            shown = ", ".join(format_type(t) for t in arg_types)
            where = f"{format_type(receiver)}.({shown})" if member else f"({shown})"
            return self.error(node, f"found no matching overload for '{name}' applied to '{where}'")
        first = results[0]
        return first if all(r == first for r in results) else DYN

    def _signatures(self, fn):
        sigs = self.signatures.get(fn.name)
        if sigs is None:
            sigs = [parse_signature(s) for s in fn.signatures]
            self.signatures[fn.name] = sigs
        return sigs

    def _macro(self, node, scope):
        _, name, target_node, variables, args = node
        target = self.check(target_node, scope)
        if name in ("optMap", "optFlatMap"):
            if target[0] not in ("optional_type", "dyn"):
                self.error(node, f"found no matching overload for '{name}' applied to '{format_type(target)}'")
            inner = dict(scope)
            inner[variables[0]] = target[1] if target[0] == "optional_type" else DYN
            body = self.check(args[0], inner)
            if name == "optMap":
                return ("optional_type", body)
            return body if body[0] == "optional_type" else ("optional_type", DYN)
        if target[0] == "list":
            var_types = [INT, target[1]] if len(variables) == 2 else [target[1]]
        elif target[0] == "map":
            var_types = [target[1], target[2]] if len(variables) == 2 else [target[1]]
        elif target[0] in ("dyn", "free"):
            var_types = [DYN] * len(variables)
        else:
            return self.error(node, f"expression of type '{format_type(target)}' cannot be range of a "
                                    "comprehension (must be list, map, or dynamic)")
        inner = dict(scope)
        inner.update(zip(variables, var_types))
        body = [self.check(a, inner) for a in args]
        if name in ("all", "exists", "exists_one"):
            if body[0] not in (BOOL, DYN):
                self.error(args[0], f"found no matching overload for '_&&_' applied to "
                                    f"'(bool, {format_type(body[0])})'")
            return BOOL
        if name == "filter":
            return ("list", var_types[0])
        if name in ("map", "transformList"):
            return ("list", body[-1])
        if name == "transformMap":
            return ("map", var_types[0], body[-1])
        if name == "transformMapEntry":
            return body[-1] if body[-1][0] == "map" else ("map", DYN, DYN)
        return DYN


def _same(a, b):
    """The one type of `a` and `b` if they are the same type, a free parameter standing for any; else None."""
    if a == b:
        return a
    if a == FREE:
        return b
    if b == FREE:
        return a
    if a[0] != b[0] or len(a) != len(b) or a[0] in ("obj", "param"):
        return None
    parts = [_same(x, y) for x, y in zip(a[1:], b[1:])]
    return None if None in parts else (a[0], *parts)


def _unify(wanted, given, bindings) -> bool:
    """Whether an argument of type `given` fits a parameter of type `wanted`, binding type parameters."""
    if given == FREE:
        return True
    if wanted[0] == "dyn" or given[0] == "dyn":
        if wanted[0] == "param" and wanted[1] not in bindings:
            bindings[wanted[1]] = DYN
        return True
    if wanted[0] == "param":
        bound = bindings.get(wanted[1])
        if bound is None:
            bindings[wanted[1]] = given
            return True
        if bound == DYN:
            return True
        if given[0] == "param":
            return True
        if bound == given:
            return True
        # a type parameter bound to a type with dyn parts takes the more specific type
        if bound[0] == given[0] and len(bound) == len(given):
            merged = bindings.copy()
            if all(_unify(b, g, merged) for b, g in zip(bound[1:], given[1:])):
                return True
        return False
    if given[0] == "param":
        return True
    if given == NULL and wanted[0] in ("obj", "google.protobuf.Timestamp", "google.protobuf.Duration"):
        return True
    if wanted[0] != given[0] or len(wanted) != len(given):
        return False
    if wanted[0] == "obj":
        return wanted[1] == given[1]
    return all(_unify(w, g, bindings) for w, g in zip(wanted[1:], given[1:]))


def _substitute(t, bindings):
    if t[0] == "param":
        return bindings.get(t[1], FREE)
    if len(t) == 1 or t[0] == "obj":
        return t
    return (t[0], *(_substitute(x, bindings) for x in t[1:]))
