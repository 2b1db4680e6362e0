"""Regular expressions: CEL's `matches` (cel-go v0.26.0 common/stdlib) and Kubernetes' `find` and
`findAll` (k8s.io/apiserver@v0.36.3 pkg/cel/library/regex.go), with RE2's semantics as Go's regexp
has them: the patterns run on google-re2 (RE2 itself, linear in the text: no backtracking, so no
pattern a user writes can take exponential time), never on Python's backtracking `re`.

Their cost is cel-go's: (1 + len(text)) * 0.1 times len(pattern) * 0.25 (interpreter/runtimecost.go;
library/cost.go for find and findAll).
"""

from __future__ import annotations

import functools
import math

from kpt_fn.admission.cel.runtime import REGEX_LENGTH_FACTOR, STRING_TRAVERSAL_FACTOR, no_overload
from kpt_fn.admission.cel.stdlib import Function
from kpt_fn.admission.cel.values import EvalError

# RE2's own bound on a compiled program (its default max_mem, 8 MiB): a pattern over it is refused
# by RE2 as "pattern too large - compile failed", as Go refuses one with "expression too large".
_MAX_PATTERN = 1 << 16


@functools.lru_cache(maxsize=256)
def compile_re2(pattern: str):
    """The compiled RE2 of `pattern`, or EvalError with RE2's complaint."""
    import re2  # google-re2: loaded only when an expression uses a regular expression

    if len(pattern) > _MAX_PATTERN:
        raise EvalError("error parsing regexp: expression too large")
    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        raise EvalError(f"error parsing regexp: {go_wording(exc)}") from None


# RE2's error codes as Go's regexp/syntax words them (ErrorCode strings), the argument in backquotes
_GO_WORDING = {
    "missing )": "missing closing )", "missing ]": "missing closing ]", "unexpected )": "unexpected )",
    "invalid escape sequence": "invalid escape sequence", "trailing \\": "trailing backslash at end of expression",
    "bad repetition operator": "invalid nested repetition operator",
    "no argument for repetition operator": "missing argument to repetition operator",
    "invalid character class range": "invalid character class range",
    "invalid character class": "invalid character class", "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid named capture group": "invalid named capture", "duplicate capture group name": "duplicate capture group name",
    "bad repetition argument": "invalid repeat count", "invalid UTF-8": "invalid UTF-8",
    "pattern too large - compile failed": "expression too large",
}


def go_wording(exc) -> str:
    text = exc.args[0] if exc.args else ""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    code, sep, arg = str(text).partition(": ")
    code = _GO_WORDING.get(code, code)
    return f"{code}: `{arg}`" if sep else code


def regex_error(pattern: str):
    """RE2's complaint about `pattern`, or "" (the checker's ValidateRegexLiterals)."""
    try:
        compile_re2(pattern)
    except EvalError as exc:
        return exc.message
    return ""


def _regex_cost(args, result):
    text = math.ceil((1.0 + len(args[0]) if isinstance(args[0], str) else 2.0) * STRING_TRAVERSAL_FACTOR)
    pattern = math.ceil((len(args[1]) if isinstance(args[1], str) else 1) * REGEX_LENGTH_FACTOR)
    return text * pattern


def _strings(text, pattern):
    if type(text) is not str or type(pattern) is not str:
        raise no_overload()


def matches(text, pattern):
    _strings(text, pattern)
    return compile_re2(pattern).search(text) is not None


def _illegal(pattern):
    try:
        return compile_re2(pattern)
    except EvalError as exc:
        raise EvalError(f"Illegal regex: {exc.message}") from None


def find(text, pattern):
    _strings(text, pattern)
    match = _illegal(pattern).search(text)
    return match.group(0) if match is not None else ""


def find_all(text, pattern, limit=-1):
    _strings(text, pattern)
    if type(limit) is not int:
        raise no_overload()
    regex = _illegal(pattern)
    if limit == 0:
        return []
    out = []
    # Go's FindAllString: after an empty match the search moves one character on, and an empty match
    # right after a previous match is not reported
    pos, last_end = 0, -1
    while pos <= len(text):
        match = regex.search(text, pos)
        if match is None:
            break
        start, end = match.span()
        if end == start and start == last_end:
            pos = start + 1
            continue
        out.append(match.group(0))
        if limit > 0 and len(out) == limit:
            break
        last_end = end
        pos = end if end > start else end + 1
    return out


FUNCTIONS = [
    Function("matches", ["matches(string, string) -> bool", "string.matches(string) -> bool"], matches,
             _regex_cost),
    Function("find", ["string.find(string) -> string"], find, _regex_cost),
    Function("findAll", ["string.findAll(string) -> list(string)", "string.findAll(string, int) -> list(string)"],
             find_all, _regex_cost),
]
