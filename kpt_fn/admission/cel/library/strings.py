"""cel-go's ext.Strings at version 2, as the API server enables it from 1.29 on (k8s.io/apiserver@v0.36.3
pkg/cel/environment/base.go; cel-go v0.26.0 ext/strings.go): charAt, indexOf, lastIndexOf,
lowerAscii, upperAscii, replace, split, substring, trim, join, strings.quote and format. Indexes
count code points, as Go's []rune does. Costs are the API server's (pkg/cel/library/cost.go).
"""

from __future__ import annotations

import math

from kpt_fn.admission.cel import runtime
from kpt_fn.admission.cel.library import lists, strformat
from kpt_fn.admission.cel.runtime import MAX_LIST_SIZE, no_overload, traversal
from kpt_fn.admission.cel.stdlib import Function
from kpt_fn.admission.cel.values import EvalError

# Go's unicode.IsSpace: what strings.TrimSpace removes
_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
         "\u2028\u2029\u202f\u205f\u3000"


def _check(*pairs):
    for value, t in pairs:
        if type(value) is not t:
            raise no_overload()


def char_at(s, i):
    _check((s, str), (i, int))
    if i < 0 or i > len(s):
        raise EvalError(f"index out of range: {i}")
    return s[i:i + 1]


def index_of(s, sub, offset=0):
    _check((s, str), (sub, str), (offset, int))
    if sub == "":
        return offset
    if offset < 0:
        raise EvalError(f"index out of range: {offset}")
    if offset >= len(s):
        return -1
    return s.find(sub, offset)


def last_index_of(s, sub, offset=None):
    _check((s, str), (sub, str))
    if offset is None:
        if sub == "":
            return len(s)
        if len(s.encode("utf-8")) < len(sub.encode("utf-8")):
            return -1
        offset = len(s) - 1
    _check((offset, int))
    if sub == "":
        return offset
    if offset < 0:
        raise EvalError(f"index out of range: {offset}")
    if offset >= len(s):
        return -1
    return s.rfind(sub, 0, offset + len(sub))


def _ascii(s, upper):
    _check((s, str))
    table = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ") if upper else \
        str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
    return s.translate(table)


def replace(s, old, new, n=-1):
    _check((s, str), (old, str), (new, str), (n, int))
    if n == 0:
        return s
    count = (len(s) + 1 if old == "" else s.count(old))
    count = count if n < 0 else min(count, n)
    if len(s) + count * (len(new) - len(old)) > runtime.MAX_STRING_SIZE:
        raise EvalError(f"string size exceeds {runtime.MAX_STRING_SIZE} characters (a bound of this offline evaluation)")
    if old == "":
        # Go's strings.Replace with an empty old: before every rune and at the end, up to n times
        pieces = list(s)
        count = len(pieces) + 1 if n < 0 else min(n, len(pieces) + 1)
        out = []
        for i in range(len(pieces) + 1):
            if i < count:
                out.append(new)
            if i < len(pieces):
                out.append(pieces[i])
        result = "".join(out)
    else:
        result = s.replace(old, new, n if n > 0 else -1)
    return result


def split(s, sep, n=-1):
    _check((s, str), (sep, str), (n, int))
    if n == 0:
        return []
    if sep == "":
        # Go's strings.SplitN with an empty separator: one piece per rune, the last holding the rest
        chars = list(s)
        if n < 0 or n >= len(chars):
            return chars
        return chars[:n - 1] + ["".join(chars[n - 1:])]
    if len(s) > MAX_LIST_SIZE and n < 0:
        n = MAX_LIST_SIZE
    return s.split(sep) if n < 0 else s.split(sep, n - 1)


def substring(s, start, end=None):
    _check((s, str), (start, int))
    if end is None:
        if start < 0 or start > len(s):
            raise EvalError(f"index out of range: {start}")
        return s[start:]
    _check((end, int))
    if start > end:
        raise EvalError(f"invalid substring range. start: {start}, end: {end}")
    if start < 0 or start > len(s):
        raise EvalError(f"index out of range: {start}")
    if end < 0 or end > len(s):
        raise EvalError(f"index out of range: {end}")
    return s[start:end]


def trim(s):
    _check((s, str))
    return s.strip(_SPACE)


def join(items, sep=""):
    if type(items) not in (list, tuple):
        raise no_overload()
    _check((sep, str))
    for item in items:
        if type(item) is not str:
            raise EvalError(f"join: invalid input: {item}")
    return sep.join(items)


_QUOTE = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
          "\\": "\\\\", '"': '\\"'}


def quote(s):
    _check((s, str))
    clean = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in s)
    return '"' + "".join(_QUOTE.get(c, c) for c in clean) + '"'


def _cost(factor):
    def cost(args, result):
        return math.ceil(runtime.actual_size(args[0]) * factor * runtime.STRING_TRAVERSAL_FACTOR)
    return cost


def _join_cost(args, result):
    return math.ceil(runtime.actual_size(result) * 2 * runtime.STRING_TRAVERSAL_FACTOR)


FUNCTIONS = [
    Function("charAt", ["string.charAt(int) -> string"], char_at),
    # library/cost.go prices indexOf and lastIndexOf by name, strings' as lists': one traversal
    Function("indexOf", ["string.indexOf(string) -> int", "string.indexOf(string, int) -> int"], index_of,
             lambda args, result: lists.traversal_cost(args[0])),
    Function("lastIndexOf", ["string.lastIndexOf(string) -> int", "string.lastIndexOf(string, int) -> int"],
             last_index_of, lambda args, result: lists.traversal_cost(args[0])),
    Function("lowerAscii", ["string.lowerAscii() -> string"], lambda s: _ascii(s, False), _cost(1)),
    Function("upperAscii", ["string.upperAscii() -> string"], lambda s: _ascii(s, True), _cost(1)),
    Function("replace", ["string.replace(string, string) -> string",
                         "string.replace(string, string, int) -> string"], replace, _cost(2)),
    Function("split", ["string.split(string) -> list(string)", "string.split(string, int) -> list(string)"],
             split, _cost(2)),
    Function("substring", ["string.substring(int) -> string", "string.substring(int, int) -> string"], substring,
             _cost(1)),
    Function("trim", ["string.trim() -> string"], trim, _cost(1)),
    Function("join", ["list(string).join() -> string", "list(string).join(string) -> string"], join, _join_cost),
    Function("strings.quote", ["strings.quote(string) -> string"], quote,
             lambda args, result: traversal(runtime.actual_size(args[0]))),
    Function("format", ["string.format(list(dyn)) -> string"], strformat.format_string,
             lambda args, result: traversal(runtime.actual_size(args[0]))),
]
