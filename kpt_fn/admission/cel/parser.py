"""A recursive-descent parser of CEL (github.com/google/cel-spec doc/langdef.md, "Syntax"), with the
optional syntax (`a.?b`, `a[?i]`, `[?x]`, `{?k: v}`) the API server enables (cel.OptionalTypes), and
cel-go's macros expanded at parse time (has, all, exists, exists_one, map, filter, and the
two-variable forms of ext.TwoVarComprehensions).

Why our own parser rather than cel-python's at run time: user expressions arrive at run time, and
cel-python builds a lark parser in about a third of a second and recurses in Python without a bound;
this one starts in no time, and bounds what untrusted text can do as cel-go's parser does: at most
100,000 code points (parser.go expressionSizeCodePointLimit) and a nesting depth of 250
(parser.go maxRecursionDepth, "expression recursion limit exceeded: 250"), each a syntax error, so
deep text never reaches Python's recursion limit.

The tree is tuples, its first element the node kind:
  ("lit", value) ("ident", name) ("select", operand, field, optional) ("has", operand, field)
  ("index", operand, index, optional) ("call", name, target_or_None, [args])
  ("list", [elems], {indices of optional elements}) ("map", [(key, value, optional)])
  ("struct", type_name, [(field, value, optional)]) ("cond", c, t, f) ("and", a, b) ("or", a, b)
  ("not", a) ("neg", a) ("macro", name, target, [variables], [args])
Each node's position (the offset of its operator or first token) is in the parser's `positions`, by id.
"""

from __future__ import annotations

import contextlib
import sys

from kpt_fn.admission.cel.values import UInt

MAX_CODE_POINTS = 100_000
MAX_RECURSION_DEPTH = 250

RESERVED = frozenset(("as", "break", "const", "continue", "else", "for", "function", "if", "import", "let",
                      "loop", "package", "namespace", "return", "var", "void", "while"))
KEYWORDS = frozenset(("in", "true", "false", "null"))

_PUNCT2 = ("==", "!=", "<=", ">=", "&&", "||", ".?", "[?")
_PUNCT1 = "+-*/%<>!?:.,()[]{}"

_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
            "\\": "\\", "?": "?", '"': '"', "'": "'", "`": "`"}

# The macros cel-go v0.26.0 expands (parser/macro.go AllMacros) and the two-variable comprehensions
# (ext/comprehensions.go), as (name, argument count) -> variables the macro binds.
MACROS = {("all", 2): 1, ("exists", 2): 1, ("exists_one", 2): 1, ("existsOne", 2): 1, ("map", 2): 1,
          ("map", 3): 1, ("filter", 2): 1,
          ("all", 3): 2, ("exists", 3): 2, ("existsOne", 3): 2, ("exists_one", 3): 2,
          ("transformList", 3): 2, ("transformList", 4): 2, ("transformMap", 3): 2, ("transformMap", 4): 2,
          ("transformMapEntry", 3): 2, ("transformMapEntry", 4): 2,
          ("sortBy", 2): 1, ("optMap", 2): 1, ("optFlatMap", 2): 1}


_BINARY = (("||",), ("&&",), ("<", "<=", ">", ">=", "==", "!=", "in"), ("+", "-"), ("*", "/", "%"))
_LEVEL = {op: level for level, ops in enumerate(_BINARY) for op in ops}


class ParseError(Exception):
    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.message = message
        self.offset = offset


class _Tok:
    __slots__ = ("kind", "text", "value", "offset")

    def __init__(self, kind, text, value, offset):
        self.kind = kind  # "int" "uint" "double" "string" "bytes" "ident" "punct" "eof"
        self.text = text
        self.value = value
        self.offset = offset


def _is_ident_start(c):
    return c == "_" or ("a" <= c <= "z") or ("A" <= c <= "Z")


def _is_ident_char(c):
    return _is_ident_start(c) or "0" <= c <= "9"


def tokenize(text: str) -> list:
    toks = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\n\r\f":
            i += 1
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j + 1
            continue
        start = i
        if c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit()):
            i, tok = _number(text, i)
            toks.append(tok)
            continue
        if _is_ident_start(c):
            j = i
            while j < n and _is_ident_char(text[j]):
                j += 1
            word = text[i:j]
            if j < n and text[j] in "'\"" and word.lower() in ("r", "b", "rb", "br"):
                i, tok = _string(text, j, raw="r" in word.lower(), is_bytes="b" in word.lower(), start=start)
                toks.append(tok)
                continue
            toks.append(_Tok("ident", word, word, start))
            i = j
            continue
        if c in "'\"":
            i, tok = _string(text, i, raw=False, is_bytes=False, start=start)
            toks.append(tok)
            continue
        two = text[i:i + 2]
        if two in _PUNCT2:
            toks.append(_Tok("punct", two, two, start))
            i += 2
            continue
        if c in _PUNCT1:
            toks.append(_Tok("punct", c, c, start))
            i += 1
            continue
        raise ParseError(f"Syntax error: token recognition error at: '{c}'", start)
    toks.append(_Tok("eof", "<EOF>", None, n))
    return toks


def _number(text, i):
    n, start = len(text), i
    if text.startswith(("0x", "0X"), i):
        j = i + 2
        while j < n and text[j] in "0123456789abcdefABCDEF":
            j += 1
        if j == i + 2:
            raise ParseError("Syntax error: token recognition error at: '0x'", i)
        digits = text[i:j]
        if j < n and text[j] in "uU":
            return j + 1, _Tok("uint", text[i:j + 1], UInt(int(digits, 16)), start)
        return j, _Tok("int", digits, int(digits, 16), start)
    j = i
    while j < n and text[j].isdigit():
        j += 1
    is_float = False
    if j < n and text[j] == "." and j + 1 < n and text[j + 1].isdigit():
        is_float = True
        j += 1
        while j < n and text[j].isdigit():
            j += 1
    if j < n and text[j] in "eE":
        k = j + 1
        if k < n and text[k] in "+-":
            k += 1
        if k < n and text[k].isdigit():
            is_float = True
            j = k
            while j < n and text[j].isdigit():
                j += 1
    body = text[i:j]
    if is_float:
        return j, _Tok("double", body, float(body), start)
    if j < n and text[j] in "uU":
        return j + 1, _Tok("uint", body + text[j], UInt(int(body)), start)
    return j, _Tok("int", body, int(body), start)


def _string(text, i, *, raw, is_bytes, start):
    n = len(text)
    q = text[i]
    triple = text.startswith(q * 3, i)
    quote = q * 3 if triple else q
    j = i + len(quote)
    out = []  # code points, or byte values for bytes
    while True:
        if j >= n:
            raise ParseError("Syntax error: token recognition error at: " + repr(text[start:start + 20]), start)
        if text.startswith(quote, j):
            j += len(quote)
            break
        c = text[j]
        if not triple and c in "\r\n":
            raise ParseError("Syntax error: token recognition error at: " + repr(text[start:j + 1]), start)
        if c == "\\" and not raw:
            j, piece = _escape(text, j, is_bytes)
            out.append(piece)
            continue
        if raw and c == "\\" and j + 1 < n and text[j + 1] == q:
            out.append(c + q)
            j += 2
            continue
        out.append(c)
        j += 1
    if is_bytes:
        data = bytearray()
        for piece in out:
            if isinstance(piece, int):
                data.append(piece)
            else:
                data.extend(piece.encode("utf-8"))
        return j, _Tok("bytes", text[start:j], bytes(data), start)
    parts = []
    for piece in out:
        parts.append(chr(piece) if isinstance(piece, int) else piece)
    value = "".join(parts)
    return j, _Tok("string", text[start:j], value, start)


def _escape(text, j, is_bytes):
    """The escape at text[j] ('\\'): (next offset, str or int). In a bytes literal, \\x and octal
    escapes are byte values; in a string, code points (cel-spec: "Escape sequences")."""
    n = len(text)
    if j + 1 >= n:
        raise ParseError("Syntax error: token recognition error at: '\\'", j)
    c = text[j + 1]
    if c in _ESCAPES:
        return j + 2, _ESCAPES[c]
    if c in "xX" and j + 4 <= n and _hex(text[j + 2:j + 4]):
        return j + 4, int(text[j + 2:j + 4], 16)
    if c == "u" and not is_bytes and _hex(text[j + 2:j + 6]) and j + 6 <= n:
        return j + 6, _code_point(int(text[j + 2:j + 6], 16), j)
    if c == "U" and not is_bytes and _hex(text[j + 2:j + 10]) and j + 10 <= n:
        return j + 10, _code_point(int(text[j + 2:j + 10], 16), j)
    if c in "0123" and all(d in "01234567" for d in text[j + 2:j + 4]) and j + 4 <= n:
        return j + 4, int(text[j + 1:j + 4], 8)
    raise ParseError(f"Syntax error: token recognition error at: '\\{c}'", j)


def _hex(s):
    return bool(s) and all(ch in "0123456789abcdefABCDEF" for ch in s)


def _code_point(value, offset):
    if 0xD800 <= value <= 0xDFFF or value > 0x10FFFF:
        raise ParseError("Syntax error: invalid unicode code point", offset)
    return value


class Parser:
    def __init__(self, text: str):
        self.text = text
        self.toks = tokenize(text)
        self.i = 0
        self.depth = 0
        self.positions: dict[int, int] = {}
        self.next_id = 0

    # -- helpers
    def peek(self, k=0):
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def at(self, text):
        tok = self.toks[self.i]
        return tok.kind == "punct" and tok.text == text

    def at_word(self, word):
        tok = self.toks[self.i]
        return tok.kind == "ident" and tok.text == word

    def take(self):
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def expect(self, text):
        if not self.at(text):
            self.fail_here(f"expecting '{text}'")
        return self.take()

    def fail_here(self, hint=""):
        tok = self.peek()
        what = "<EOF>" if tok.kind == "eof" else tok.text
        prefix = "mismatched input" if tok.kind != "eof" else "mismatched input"
        message = f"Syntax error: {prefix} '{what}'"
        if hint:
            message += f" {hint}"
        raise ParseError(message, tok.offset)

    def node(self, offset, *parts):
        n = parts
        self.positions[id(n)] = offset
        return n

    def enter(self, offset):
        self.depth += 1
        if self.depth > MAX_RECURSION_DEPTH:
            raise ParseError(f"expression recursion limit exceeded: {MAX_RECURSION_DEPTH}", offset)

    def leave(self):
        self.depth -= 1

    # -- grammar
    def parse(self):
        if len(self.text) > MAX_CODE_POINTS:
            raise ParseError(f"expression code point size exceeds limit: size: {len(self.text)}, "
                             f"limit {MAX_CODE_POINTS}", 0)
        tree = self.expr()
        if self.peek().kind != "eof":
            tok = self.peek()
            raise ParseError(f"Syntax error: extraneous input '{tok.text}' expecting <EOF>", tok.offset)
        return tree

    def expr(self):
        start = self.peek().offset
        self.enter(start)
        try:
            cond = self.binary(0)
            if self.at("?"):
                offset = self.take().offset
                yes = self.binary(0)
                self.expect(":")
                no = self.expr()
                return self.node(offset, "cond", cond, yes, no)
            return cond
        finally:
            self.leave()

    def binary(self, min_level):
        """Precedence climbing over CEL's binary operators (levels loosest first: ||, &&, relations,
        + -, * / %), all left-associative: a parenthesis costs few Python frames this way."""
        left = self.unary()
        while True:
            tok = self.peek()
            level = _LEVEL.get(tok.text) if tok.kind == "punct" or tok.text == "in" else None
            if level is None or level < min_level or (tok.kind == "ident" and tok.text != "in"):
                return left
            self.take()
            right = self.binary(level + 1)
            op = tok.text
            if op == "||":
                left = self.node(tok.offset, "or", left, right)
            elif op == "&&":
                left = self.node(tok.offset, "and", left, right)
            else:
                left = self.node(tok.offset, "call", "@in" if op == "in" else f"_{op}_", None, [left, right])

    def unary(self):
        tok = self.peek()
        if tok.kind == "punct" and tok.text in ("!", "-"):
            ops = []
            while self.at(tok.text):
                ops.append(self.take())
            if tok.text == "-" and len(ops) % 2 == 1 and self.peek().kind in ("int", "double") \
                    and not self._member_follows():
                # a negative literal (cel-go folds -<number> into the literal: -9223372036854775808)
                lit = self.take()
                value = -lit.value
                inner = self.node(tok.offset, "lit", value)
                inner = self.member_suffix(inner)
                ops = ops[:-1]
            else:
                self.enter(tok.offset)
                try:
                    inner = self.member()
                finally:
                    self.leave()
            for op in reversed(ops):
                kind = "not" if op.text == "!" else "neg"
                inner = self.node(op.offset, kind, inner)
            return inner
        return self.member()

    def _member_follows(self):
        nxt = self.peek(1)
        return nxt.kind == "punct" and nxt.text in (".", "[", ".?", "[?")

    def member(self):
        return self.member_suffix(self.primary())

    def member_suffix(self, node):
        while True:
            if self.at(".") or self.at(".?"):
                dot = self.take()
                optional = dot.text == ".?"
                name = self.take()
                if name.kind != "ident":
                    self.i -= 1
                    self.fail_here("expecting IDENTIFIER")
                if not optional and self.at("("):
                    # cel-go places a call at its opening parenthesis
                    paren = self.take().offset
                    args = self.exprlist(")")
                    node = self.call(paren, name.text, node, args, paren)
                else:
                    # A reserved word is refused as an identifier, not as a field name: cel-go's
                    # VisitSelect (parser/parser.go, v0.26.1) has no such check, so `request.namespace`
                    # compiles as the API server's own tests expect.
                    node = self.node(dot.offset, "select", node, name.text, optional)
            elif self.at("[") or self.at("[?"):
                bracket = self.take()
                index = self.expr()
                self.expect("]")
                node = self.node(bracket.offset, "index", node, index, bracket.text == "[?")
            else:
                return node

    def primary(self):
        tok = self.peek()
        if tok.kind in ("int", "uint", "double", "string", "bytes"):
            self.take()
            if tok.kind == "int" and tok.value > 2**63 - 1:
                raise ParseError(f"invalid int literal", tok.offset)
            if tok.kind == "uint" and tok.value > 2**64 - 1:
                raise ParseError(f"invalid uint literal", tok.offset)
            return self.node(tok.offset, "lit", tok.value)
        if tok.kind == "ident":
            word = tok.text
            if word == "true" or word == "false":
                self.take()
                return self.node(tok.offset, "lit", word == "true")
            if word == "null":
                self.take()
                return self.node(tok.offset, "lit", None)
            if word in RESERVED or word == "in":
                raise ParseError(f"Syntax error: reserved identifier: {word}", tok.offset)
            self.take()
            if self.at("("):
                paren = self.take().offset
                args = self.exprlist(")")
                return self.call(paren, word, None, args, paren)
            if self.at("{"):
                return self.struct(tok.offset, word)
            return self.node(tok.offset, "ident", word)
        if tok.kind == "punct":
            if tok.text == ".":
                # a leading dot: the root scope's name (".name")
                self.take()
                name = self.take()
                if name.kind != "ident":
                    self.i -= 1
                    self.fail_here("expecting IDENTIFIER")
                if self.at("("):
                    self.take()
                    args = self.exprlist(")")
                    return self.call(name.offset, name.text, None, args, tok.offset)
                return self.node(tok.offset, "ident", name.text)
            if tok.text == "(":
                self.take()
                inner = self.expr()
                self.expect(")")
                return inner
            if tok.text in ("[", "[?"):
                return self.list_literal()
            if tok.text == "{":
                return self.map_literal()
        self.fail_here()

    def exprlist(self, close):
        args = []
        if self.at(close):
            self.take()
            return args
        while True:
            args.append(self.expr())
            if self.at(","):
                self.take()
                continue
            self.expect(close)
            return args

    def list_literal(self):
        open_tok = self.take()
        elems, optional = [], set()
        if open_tok.text == "[?":
            # `[?x, ...]`: the lexer joined `[` and `?`
            optional.add(0)
            elems.append(self.expr())
            if self.at(","):
                self.take()
            elif not self.at("]"):
                self.fail_here("expecting {']', ','}")
        while not self.at("]"):
            if self.at("?"):
                self.take()
                optional.add(len(elems))
            elems.append(self.expr())
            if self.at(","):
                self.take()
                continue
            if not self.at("]"):
                self.fail_here("expecting {']', ','}")
        self.take()
        return self.node(open_tok.offset, "list", elems, optional)

    def initializers(self, key):
        """The `[?]key: value` entries up to the closing brace (taken), as (key, value, optional): cel-go's
        mapInitializerList and fieldInitializerList have one shape, and differ only in what a key is."""
        entries = []
        while not self.at("}"):
            optional = False
            if self.at("?"):
                self.take()
                optional = True
            k = key()
            self.expect(":")
            entries.append((k, self.expr(), optional))
            if self.at(","):
                self.take()
                continue
            if not self.at("}"):
                self.fail_here("expecting {'}', ','}")
        self.take()
        return entries

    def map_literal(self):
        open_tok = self.take()
        return self.node(open_tok.offset, "map", self.initializers(self.expr))

    def field_name(self):
        field = self.take()
        if field.kind != "ident":
            self.i -= 1
            self.fail_here("expecting IDENTIFIER")
        return field.text

    def struct(self, offset, name):
        self.take()  # {
        return self.node(offset, "struct", name, self.initializers(self.field_name))

    def call(self, offset, name, target, args, at):
        if target is None and name == "has":
            if len(args) != 1 or args[0][0] != "select" or args[0][3]:
                raise ParseError("invalid argument to has() macro", offset)
            sel = args[0]
            return self.node(offset, "has", sel[1], sel[2])
        var_count = MACROS.get((name, len(args))) if target is not None else None
        if var_count:
            variables = []
            for arg in args[:var_count]:
                if arg[0] != "ident":
                    raise ParseError("argument must be a simple name", self.positions.get(id(arg), offset))
                variables.append(arg[1])
            if var_count == 2 and variables[0] == variables[1]:
                raise ParseError(f"duplicate variable name: {variables[0]}", offset)
            canonical = "exists_one" if name == "existsOne" else name
            return self.node(at, "macro", canonical, target, variables, args[var_count:])
        return self.node(offset, "call", name, target, args)


def parse(text: str):
    """(tree, positions) of `text`, or ParseError."""
    parser = Parser(text)
    with deep_stack():
        tree = parser.parse()
    return tree, parser.positions


# Python frames one level of CEL nesting may take, in the parser (expr, binary, unary, member,
# primary) and in the evaluator; what deep_stack makes room for on top of the caller's frames.
_FRAMES_PER_LEVEL = 8


def _depth() -> int:
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    return depth


@contextlib.contextmanager
def deep_stack():
    """Room on Python's stack for MAX_RECURSION_DEPTH levels of CEL nesting. Python's default limit
    of 1000 frames would stop a parse near 200 levels, short of cel-go's 250; the limit is raised
    for the parse or evaluation only, and put back after."""
    old = sys.getrecursionlimit()
    needed = _depth() + MAX_RECURSION_DEPTH * _FRAMES_PER_LEVEL + 100
    if needed <= old:
        yield
        return
    sys.setrecursionlimit(needed)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def line_column(text: str, offset: int) -> tuple[int, int]:
    """cel-go's 1-based line and 0-based column (in code points) of an offset, as its errors print them."""
    before = text[:offset]
    line = before.count("\n") + 1
    column = offset - (before.rfind("\n") + 1)
    return line, column
