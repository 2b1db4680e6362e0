"""`<string>.format(<list>)` of cel-go's ext.Strings (v0.26.0 ext/formatting.go, the formatter of
strings versions below 4, which the API server's version 2 uses): %s %d %f %b %x %X %o and %%.
Fixed-point numbers are printed as golang.org/x/text/message prints them for the default locale
(en-US: thousands grouped with commas). `%e` prints with that package's scientific notation
("2.718280 × 10⁰⁰", with narrow no-break spaces), which this evaluation does not emulate: it is an
error naming itself as such, never a different text.
"""

from __future__ import annotations

import math

from kpt_fn.admission.cel import runtime
from kpt_fn.admission.cel.runtime import TypeValue, no_overload
from kpt_fn.admission.cel.values import EvalError, UInt

_DEFAULT_PRECISION = 6


def _go_quote(s: str) -> str:
    """Go's %q of a string."""
    out = ['"']
    for c in s:
        code = ord(c)
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif c in "\a\b\f\n\r\t\v":
            out.append({"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t",
                        "\v": "\\v"}[c])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif not c.isprintable():
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def _format_string(v):
    t = type(v)
    if t in (list, tuple):
        return _format_list(v)
    if t is dict:
        return _format_map(v)
    if v is None:
        return "null"
    if t is TypeValue:
        return v.name
    if t in (int, UInt, float, bool, str, bytes):
        from kpt_fn.admission.cel.stdlib import to_string

        if t is bytes:
            return v.decode("utf-8", "replace")
        return to_string(v)
    text = getattr(v, "cel_string", None)
    if text is not None:
        return text()
    raise EvalError("error during formatting: string clause can only be used on strings, bools, bytes, ints, "
                    f"doubles, maps, lists, types, durations, and timestamps, was given {runtime.type_name(v)}")


def _clause_for(v):
    """clauseForType: how a list element or map value is formatted."""
    t = type(v)
    if t is int or t is UInt:
        return str(int(v))
    if t is float:
        return f"{v:.{_DEFAULT_PRECISION}f}" if not (math.isnan(v) or math.isinf(v)) else \
            {True: "NaN"}.get(math.isnan(v), "+Inf" if v > 0 else "-Inf")
    if t is TypeValue:
        return f"type({v.name})"
    return _format_string(v)


def _quote_for_cel(v, text):
    t = type(v)
    if t is str:
        return _go_quote(text)
    if t is bytes:
        return "b" + _go_quote(text)
    if t is float and (math.isinf(v) or math.isnan(v)):
        return _go_quote(text)
    return text


def _format_list(items):
    return "[" + ", ".join(_quote_for_cel(x, _clause_for(x)) for x in items) + "]"


def _format_map(m):
    pairs = []
    for k, v in m.items():
        if type(k) in (str, bool):
            key = _format_string(k)
        elif type(k) in (int, UInt):
            key = str(int(k))
        else:
            raise EvalError(f"no formatting function for map key of type {runtime.type_name(k)}")
        pairs.append((_quote_for_cel(k, key), _quote_for_cel(v, _clause_for(v))))
    pairs.sort(key=lambda p: p[0].encode("utf-8"))
    return "{" + ", ".join(f"{k}:{v}" for k, v in pairs) + "}"


def _fixed(v, precision):
    if type(v) is str and v in ("NaN", "Infinity", "-Infinity"):
        v = float(v.replace("Infinity", "inf"))
    if type(v) is not float:
        raise _during(f"fixed-point clause can only be used on doubles, was given {runtime.type_name(v)}")
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "∞" if v > 0 else "-∞"
    return f"{v:,.{precision}f}"


def _during(message):
    return EvalError(f"error during formatting: {message}")


def _integer(v, clause):
    t = type(v)
    if clause == "b" and t is bool:
        return "1" if v else "0"
    if t is int or t is UInt:
        n = int(v)
        sign = "-" if n < 0 else ""
        body = {"d": str(abs(n)), "b": format(abs(n), "b"), "o": format(abs(n), "o"), "x": format(abs(n), "x"),
                "X": format(abs(n), "X")}[clause]
        return sign + body
    if clause in "xX" and t in (str, bytes):
        data = v.encode("utf-8") if t is str else v
        text = data.hex()
        return text.upper() if clause == "X" else text
    wording = {"d": "decimal clause can only be used on integers",
               "b": "only integers and bools can be formatted as binary",
               "o": "octal clause can only be used on integers",
               "x": "only integers, byte buffers, and strings can be formatted as hex",
               "X": "only integers, byte buffers, and strings can be formatted as hex"}[clause]
    raise _during(f"{wording}, was given {runtime.type_name(v)}")


def format_string(fmt, args):
    if type(fmt) is not str or type(args) not in (list, tuple):
        raise no_overload("format")
    out = []
    i, arg_index, n = 0, 0, len(fmt)
    while i < n:
        c = fmt[i]
        if c != "%":
            out.append(c)
            i += 1
            continue
        if i + 1 < n and fmt[i + 1] == "%":
            out.append("%")
            i += 2
            continue
        if arg_index >= len(args):
            raise EvalError(f"index {arg_index} out of range")
        if i + 1 >= n:
            raise EvalError("unexpected end of string")
        value = args[arg_index]
        j = i + 1
        precision = None
        if fmt[j] == ".":
            k = j + 1
            while k < n and fmt[k].isascii() and fmt[k].isdigit():
                k += 1
            if k >= n:
                raise EvalError("could not parse formatting clause: error while parsing precision: "
                                "could not find end of precision specifier")
            digits = fmt[j + 1:k]
            if not digits:
                raise EvalError('could not parse formatting clause: error while parsing precision: error while '
                                'converting precision to integer: strconv.Atoi: parsing "": invalid syntax')
            precision = int(digits)
            j = k
        clause = fmt[j]
        if clause == "s":
            out.append(_format_string(value))
        elif clause == "f":
            out.append(_fixed(value, _DEFAULT_PRECISION if precision is None else precision))
        elif clause == "e":
            raise EvalError("error during formatting: the scientific clause (%e) prints with golang.org/x/text's "
                            "locale notation, which this offline evaluation does not emulate")
        elif clause in "dboxX":
            out.append(_integer(value, clause))
        else:
            raise EvalError(f'could not parse formatting clause: unrecognized formatting clause "{clause}"')
        i = j + 1
        arg_index += 1
        if sum(len(p) for p in out) > runtime.MAX_STRING_SIZE:
            raise EvalError(f"string size exceeds {runtime.MAX_STRING_SIZE} characters (a bound of this offline evaluation)")
    return "".join(out)
