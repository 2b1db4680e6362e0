"""Kubernetes' url library (k8s.io/apiserver@v0.36.3 pkg/cel/library/urls.go, in every version):
url(), isURL(), getScheme, getHost, getHostname, getPort, getEscapedPath, getQuery. A URL is parsed as
Go's net/url.ParseRequestURI checks it and url.Parse splits it (an absolute URI or an absolute path;
no fragment in a request URI's sense, the `#` part dropped by Parse), re-implemented here for what
those accessors read.
"""

from __future__ import annotations

import string
import urllib.parse

from kpt_fn.admission.cel import runtime
from kpt_fn.admission.cel.runtime import no_overload, traversal
from kpt_fn.admission.cel.stdlib import Function
from kpt_fn.admission.cel.values import EvalError

_SCHEME_START = frozenset(string.ascii_letters)
_SCHEME = frozenset(string.ascii_letters + string.digits + "+-.")
_HEX = frozenset(string.hexdigits)


class URL:
    CEL_TYPE = "kubernetes.URL"
    __slots__ = ("text", "scheme", "host", "path", "raw_path", "query", "opaque")

    def __init__(self, text, scheme, host, path, raw_path, query, opaque):
        self.text, self.scheme, self.host, self.path = text, scheme, host, path
        self.raw_path, self.query, self.opaque = raw_path, query, opaque

    def __eq__(self, other):
        return type(other) is URL and other.text == self.text

    __hash__ = None


def _unescape_ok(text: str) -> str:
    i = 0
    while i < len(text):
        if text[i] == "%":
            piece = text[i:i + 3]
            if len(piece) < 3 or piece[1] not in _HEX or piece[2] not in _HEX:
                return f'invalid URL escape "{piece}"'
            i += 3
            continue
        i += 1
    return ""


def _split(raw: str, *, request: bool):
    """(scheme, authority or None, path, query, opaque) of `raw`, or the error Go's parse returns."""
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in raw):
        return "net/url: invalid control character in URL"
    if raw == "" and request:
        return "empty url"
    if raw == "*":
        return "", None, "*", "", ""
    scheme, rest = "", raw
    for i, c in enumerate(raw):
        if c in _SCHEME_START or (i and c in _SCHEME):
            continue
        if c == ":":
            if i == 0:
                return "missing protocol scheme"
            scheme, rest = raw[:i].lower(), raw[i + 1:]
        break
    query = ""
    if rest.endswith("?") and rest.count("?") == 1:
        rest = rest[:-1]
    elif "?" in rest:
        rest, _, query = rest.partition("?")
    if not rest.startswith("/"):
        if scheme:
            return scheme, None, "", query, rest
        if request:
            return "invalid URI for request"
    authority = None
    if (scheme or not request and not rest.startswith("///")) and rest.startswith("//"):
        authority, slash, rest = rest[2:].partition("/")
        rest = slash + rest
        host = authority.rpartition("@")[2]
        error = _host_error(host)
        if error:
            return error
    error = _unescape_ok(rest)
    if error:
        return error
    return scheme, authority, rest, query, ""


def _host_error(host: str) -> str:
    if host.startswith("["):
        end = host.find("]")
        if end < 0:
            return "missing ']' in host"
        port = host[end + 1:]
        if port and (port[0] != ":" or not port[1:].isdigit() and port[1:] != ""):
            return f'invalid port "{port}" after host'
        return ""
    if ":" in host:
        port = host[host.rindex(":"):]
        if port[1:] and not port[1:].isdigit():
            return f'invalid port "{port}" after host'
    return _unescape_ok(host)


def request_uri_error(raw: str) -> str:
    """The error of Go's url.ParseRequestURI for `raw` ("" when it parses)."""
    parts = _split(raw, request=True)
    return f'parse "{raw}": {parts}' if isinstance(parts, str) else ""


def to_url(raw):
    if type(raw) is not str:
        raise no_overload("url")
    error = request_uri_error(raw)
    if error:
        raise EvalError(f"URL parse error during conversion from string: {error}")
    parts = _split(raw.partition("#")[0], request=False)
    if isinstance(parts, str):
        raise EvalError(f'URL parse error during conversion from string: parse "{raw}": {parts}')
    scheme, authority, path, query, opaque = parts
    host = authority.rpartition("@")[2] if authority is not None else ""
    return URL(raw, scheme, host, urllib.parse.unquote(path), path, query, opaque)


def is_url(raw):
    if type(raw) is not str:
        raise no_overload("isURL")
    return request_uri_error(raw) == ""


def _url(v, name):
    if type(v) is not URL:
        raise no_overload(name)
    return v


def get_scheme(v):
    return _url(v, "getScheme").scheme


def get_host(v):
    return _url(v, "getHost").host


def get_hostname(v):
    host = _url(v, "getHostname").host
    if host.startswith("["):
        return host[1:host.find("]")]
    return host.rpartition(":")[0] if ":" in host else host


def get_port(v):
    host = _url(v, "getPort").host
    if host.startswith("["):
        rest = host[host.find("]") + 1:]
        return rest[1:] if rest.startswith(":") else ""
    return host.rpartition(":")[2] if ":" in host else ""


def get_escaped_path(v):
    return _url(v, "getEscapedPath").raw_path


def get_query(v):
    """url.Query(): ParseQuery of the raw query, pairs with a ';' or a bad escape left out."""
    out: dict = {}
    for pair in _url(v, "getQuery").query.split("&"):
        if not pair or ";" in pair:
            continue
        key, _, value = pair.partition("=")
        if _unescape_ok(key) or _unescape_ok(value):
            continue
        out.setdefault(urllib.parse.unquote_plus(key), []).append(urllib.parse.unquote_plus(value))
    return out


def _parse_cost(args, result):
    return traversal(runtime.actual_size(args[0]))


_U = "kubernetes.URL"
FUNCTIONS = [
    Function("url", [f"url(string) -> {_U}"], to_url, _parse_cost),
    Function("isURL", ["isURL(string) -> bool"], is_url),
    Function("getScheme", [f"{_U}.getScheme() -> string"], get_scheme),
    Function("getHost", [f"{_U}.getHost() -> string"], get_host),
    Function("getHostname", [f"{_U}.getHostname() -> string"], get_hostname),
    Function("getPort", [f"{_U}.getPort() -> string"], get_port),
    Function("getEscapedPath", [f"{_U}.getEscapedPath() -> string"], get_escaped_path),
    Function("getQuery", [f"{_U}.getQuery() -> map(string, list(string))"], get_query),
]
