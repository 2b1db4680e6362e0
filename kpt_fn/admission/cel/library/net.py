"""Kubernetes' ip and cidr libraries (k8s.io/apiserver@v0.36.3 pkg/cel/library/ip.go and cidr.go,
enabled from 1.30 on), on Python's ipaddress with Go's net/netip rules where they differ: no zones,
no IPv4-mapped IPv6, an IPv4 octet with a leading zero refused, a prefix keeping its unmasked address,
and Go's definitions of loopback, link-local and global unicast.
"""

from __future__ import annotations

import ipaddress

from kpt_fn.admission.cel import runtime
from kpt_fn.admission.cel.runtime import no_overload, succeeds, traversal
from kpt_fn.admission.cel.stdlib import Function
from kpt_fn.admission.cel.values import EvalError


class IP:
    CEL_TYPE = "net.IP"
    __slots__ = ("addr",)

    def __init__(self, addr):
        self.addr = addr

    def __eq__(self, other):
        return type(other) is IP and other.addr == self.addr

    __hash__ = None

    def cel_string(self):
        return str(self.addr)


class CIDR:
    CEL_TYPE = "net.CIDR"
    __slots__ = ("addr", "bits")

    def __init__(self, addr, bits):
        self.addr, self.bits = addr, bits

    def __eq__(self, other):
        return type(other) is CIDR and (other.addr, other.bits) == (self.addr, self.bits)

    __hash__ = None

    def network(self):
        return ipaddress.ip_network(f"{self.addr}/{self.bits}", strict=False)

    def cel_string(self):
        return f"{self.addr}/{self.bits}"


def _go_quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _addr_error(text: str, message: str, at: str | None = None) -> str:
    """netip's parseAddrError text."""
    out = f"ParseAddr({_go_quote(text)}): {message}"
    return out + f" (at {_go_quote(at)})" if at else out


def _ipv4_error(text: str, part: str) -> str:
    """What Go's netip refuses in the IPv4 text `part` of `text` ("" if nothing)."""
    value, digits, dots = 0, 0, 0
    for i, c in enumerate(part):
        if "0" <= c <= "9":
            if digits == 1 and value == 0:
                return _addr_error(text, "IPv4 field has octet with leading zero")
            value, digits = value * 10 + ord(c) - 48, digits + 1
            if value > 255:
                return _addr_error(text, "IPv4 field has value >255")
        elif c == ".":
            if i == 0 or i == len(part) - 1 or part[i - 1] == ".":
                return _addr_error(text, "IPv4 field must have at least one digit", part[i:])
            if dots == 3:
                return _addr_error(text, "IPv4 address too long")
            dots, value, digits = dots + 1, 0, 0
        else:
            return _addr_error(text, "unexpected character", part[i:])
    return _addr_error(text, "IPv4 address too short") if dots < 3 else ""


_HEXDIGITS = "0123456789abcdefABCDEF"


def _ipv6_error(text: str) -> str:
    """What Go's netip refuses in an IPv6 text ("" if nothing): its checks, in its order."""
    rest, _, zone = text.partition("%")
    if "%" in text and not zone:
        return _addr_error(text, "zone must be a non-empty string")
    fields, ellipsis = 0, False
    if rest.startswith("::"):
        ellipsis, rest = True, rest[2:]
        if not rest:
            return ""
    while fields < 8:
        n = 0
        while n < len(rest) and rest[n] in _HEXDIGITS:
            if n >= 4:
                return _addr_error(text, "each group must have 4 or less digits", rest)
            n += 1
        if n == 0:
            return _addr_error(text, "each colon-separated field must have at least one digit", rest)
        if n < len(rest) and rest[n] == ".":
            if not ellipsis and fields != 6:
                return _addr_error(text, "embedded IPv4 address must replace the final 2 fields of the address", rest)
            if fields + 2 > 8:
                return _addr_error(text, "too many hex fields to fit an embedded IPv4 at the end of the address", rest)
            error = _ipv4_error(text, rest)
            if error:
                return error
            rest, fields = "", fields + 2
            break
        fields += 1
        rest = rest[n:]
        if not rest:
            break
        if rest[0] != ":":
            return _addr_error(text, "unexpected character, want colon", rest)
        if len(rest) == 1:
            return _addr_error(text, "colon must be followed by more characters", rest)
        rest = rest[1:]
        if rest[0] == ":":
            if ellipsis:
                return _addr_error(text, "multiple :: in address", rest)
            ellipsis, rest = True, rest[1:]
            if not rest:
                break
    if rest:
        return _addr_error(text, "trailing garbage after address", rest)
    if fields < 8 and not ellipsis:
        return _addr_error(text, "address string too short")
    if fields == 8 and ellipsis:
        return _addr_error(text, "the :: must expand to at least one field of zeros", rest)
    return ""


def go_addr_error(text: str) -> str:
    """Go's net/netip.ParseAddr error for `text`, or "" when it parses."""
    for c in text:
        if c == ".":
            return _ipv4_error(text, text)
        if c == ":":
            return _ipv6_error(text)
        if c == "%":
            return _addr_error(text, "missing IPv6 address")
    return _addr_error(text, "unable to parse IP")


def _parse_addr(raw: str, what: str):
    error = go_addr_error(raw)
    if error:
        raise EvalError(error)
    if "%" in raw:
        raise EvalError(f'IP address "{raw}" with zone value is not allowed' if what == "ip" else
                        f'netip.ParsePrefix("{raw}"): IPv6 zones cannot be present in a prefix')
    addr = ipaddress.ip_address(raw)
    if addr.version == 6 and addr.ipv4_mapped is not None:
        raise EvalError(f'IPv4-mapped IPv6 address "{raw}" is not allowed')
    return addr


def parse_ip(raw):
    try:
        return IP(_parse_addr(raw, "ip"))
    except EvalError as exc:
        if exc.message.startswith("ParseAddr"):
            raise EvalError(f'IP Address "{raw}" parse error during conversion from string: {exc.message}') from None
        raise


def parse_cidr(raw):
    text = "network address parse error during conversion from string: "
    addr_text, slash, bits_text = raw.rpartition("/")
    if not slash:
        raise EvalError(text + text + f'netip.ParsePrefix("{raw}"): no \'/\'')
    try:
        addr = _parse_addr(addr_text, "cidr")
    except EvalError as exc:
        if "IPv4-mapped" in exc.message:
            raise
        inner = exc.message if exc.message.startswith("netip.") else f'netip.ParsePrefix("{raw}"): ' + exc.message
        raise EvalError(text + text + inner) from None
    if not bits_text.isascii() or not bits_text.isdigit() or (len(bits_text) > 1 and bits_text[0] == "0"):
        raise EvalError(text + text + f'netip.ParsePrefix("{raw}"): bad bits after slash: "{bits_text}"')
    if int(bits_text) > addr.max_prefixlen:
        raise EvalError(text + text + f'netip.ParsePrefix("{raw}"): prefix length out of range')
    return CIDR(addr, int(bits_text))


def _string(v, name):
    if type(v) is not str:
        raise no_overload(name)
    return v


def to_ip(v):
    if type(v) is CIDR:
        return IP(v.addr)
    return parse_ip(_string(v, "ip"))


def to_cidr(v):
    return parse_cidr(_string(v, "cidr"))


def is_ip(v):
    return succeeds(parse_ip, _string(v, "isIP"))


def is_cidr(v):
    return succeeds(parse_cidr, _string(v, "isCIDR"))


def is_canonical(v):
    return str(parse_ip(_string(v, "ip.isCanonical")).addr) == v


def _ip(v, name):
    if type(v) is not IP:
        raise no_overload(name)
    return v.addr


def family(v):
    return _ip(v, "family").version


def is_unspecified(v):
    return _ip(v, "isUnspecified").is_unspecified


def is_loopback(v):
    addr = _ip(v, "isLoopback")
    return addr in ipaddress.ip_network("127.0.0.0/8") if addr.version == 4 else addr == ipaddress.IPv6Address("::1")


def is_link_local_multicast(v):
    addr = _ip(v, "isLinkLocalMulticast")
    if addr.version == 4:
        return addr in ipaddress.ip_network("224.0.0.0/24")
    return addr.packed[0] == 0xFF and addr.packed[1] & 0x0F == 0x02


def is_link_local_unicast(v):
    addr = _ip(v, "isLinkLocalUnicast")
    if addr.version == 4:
        return addr in ipaddress.ip_network("169.254.0.0/16")
    return addr in ipaddress.ip_network("fe80::/10")


def is_global_unicast(v):
    """Go's Addr.IsGlobalUnicast: not unspecified, loopback, multicast, link-local unicast or the IPv4
    broadcast address (private addresses included)."""
    addr = _ip(v, "isGlobalUnicast")
    if addr.version == 4 and addr == ipaddress.IPv4Address("255.255.255.255"):
        return False
    return not (addr.is_unspecified or is_loopback(v) or addr.is_multicast or is_link_local_unicast(v))


def _cidr(v, name):
    if type(v) is not CIDR:
        raise no_overload(name)
    return v


def contains_ip(c, other):
    c = _cidr(c, "containsIP")
    ip = parse_ip(other) if type(other) is str else other
    addr = _ip(ip, "containsIP")
    return addr.version == c.addr.version and addr in c.network()


def contains_cidr(c, other):
    c = _cidr(c, "containsCIDR")
    o = parse_cidr(other) if type(other) is str else _cidr(other, "containsCIDR")
    if o.addr.version != c.addr.version:
        return False
    return c.network().overlaps(o.network()) and c.bits <= o.bits


def prefix_length(c):
    return _cidr(c, "prefixLength").bits


def masked(c):
    c = _cidr(c, "masked")
    return CIDR(c.network().network_address, c.bits)


def to_string(v):
    if type(v) in (IP, CIDR):
        return v.cel_string()
    raise no_overload("string")


def _parse_cost(args, result):
    return traversal(runtime.actual_size(args[0]))


def _ip_cost(args, result):
    return 1 if type(args[0]) is CIDR else _parse_cost(args, result)


def _contains_ip_cost(args, result):
    cost = traversal(2 * runtime.actual_size(args[0]))
    if type(args[1]) is str:
        cost += traversal(runtime.actual_size(args[1]))
    return cost


def _contains_cidr_cost(args, result):
    size = runtime.actual_size(args[0])
    cost = traversal(2 * size) + traversal(size) + 1
    if type(args[1]) is str:
        cost += traversal(runtime.actual_size(args[1]))
    return cost


FUNCTIONS = [
    Function("ip", ["ip(string) -> net.IP", "net.CIDR.ip() -> net.IP"], to_ip, _ip_cost),
    Function("family", ["net.IP.family() -> int"], family),
    Function("ip.isCanonical", ["ip.isCanonical(string) -> bool"], is_canonical,
             lambda args, result: traversal(2 * runtime.actual_size(args[0]))),
    Function("isUnspecified", ["net.IP.isUnspecified() -> bool"], is_unspecified),
    Function("isLoopback", ["net.IP.isLoopback() -> bool"], is_loopback),
    Function("isLinkLocalMulticast", ["net.IP.isLinkLocalMulticast() -> bool"], is_link_local_multicast),
    Function("isLinkLocalUnicast", ["net.IP.isLinkLocalUnicast() -> bool"], is_link_local_unicast),
    Function("isGlobalUnicast", ["net.IP.isGlobalUnicast() -> bool"], is_global_unicast),
    Function("isIP", ["isIP(string) -> bool"], is_ip, _parse_cost),
    Function("cidr", ["cidr(string) -> net.CIDR"], to_cidr, _parse_cost),
    Function("containsIP", ["net.CIDR.containsIP(string) -> bool", "net.CIDR.containsIP(net.IP) -> bool"],
             contains_ip, _contains_ip_cost),
    Function("containsCIDR", ["net.CIDR.containsCIDR(string) -> bool", "net.CIDR.containsCIDR(net.CIDR) -> bool"],
             contains_cidr, _contains_cidr_cost),
    Function("prefixLength", ["net.CIDR.prefixLength() -> int"], prefix_length),
    Function("masked", ["net.CIDR.masked() -> net.CIDR"], masked),
    Function("isCIDR", ["isCIDR(string) -> bool"], is_cidr, _parse_cost),
    Function("string", ["string(net.IP) -> string", "string(net.CIDR) -> string"], to_string),
]
