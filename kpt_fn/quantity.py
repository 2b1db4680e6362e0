"""Kubernetes resource quantities, reproducing apimachinery v0.36.2 `resource.Quantity` exactly.

A quantity is stored as an integer number of nano-units (every value the API machinery can hold after
parsing is a multiple of 10^-9, and addition / integer multiplication keep it so), a format
(BinarySI, DecimalSI, DecimalExponent) that only affects printing, and optionally the string it was
parsed from. Upstream keeps the original text when it considers it already canonical and prints that
text verbatim afterwards (so `+1`, `1E3` or `007` survive a typed round-trip unchanged); arithmetic
drops it. `canonical()` therefore returns exactly what upstream's `Quantity.String()` returns.

Input conversion: quantities in YAML may be numbers. Upstream sees them as the JSON text Go's
encoder produced from the YAML number, so ints print as-is and floats use Go's float formatting.
"""

from __future__ import annotations

import functools  # imported by `re` already: no cost at start-up

TYPE_CHECKING = False  # without importing typing, which KRM mode otherwise never needs
if TYPE_CHECKING:
    from collections.abc import Mapping

BINARY_SI = "BinarySI"
DECIMAL_SI = "DecimalSI"
DECIMAL_EXPONENT = "DecimalExponent"

_NANO = 10**9
_INT64_MAX = 2**63 - 1

_SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
MSG_FORMAT_WRONG = f"quantities must match the regular expression '{_SPLIT_RE}'"
MSG_NUMERIC = "unable to parse numeric part of quantity"
MSG_SUFFIX = "unable to parse quantity's suffix"

_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_BY_EXP = {e: s for s, e in _DECIMAL_SUFFIXES.items()}
_BINARY_BY_POWER = {e // 10: s for s, e in _BINARY_SUFFIXES.items()}
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
_DIGITS = frozenset("0123456789")
# Exponents beyond this are refused instead of building astronomically large integers (upstream
# would try; no real quantity gets near it).
_MAX_EXPONENT = 100_000
# Most significant digits of a quantity's number read exactly: far below Python's int-string limit, so
# that sums and canonical forms of such numbers stay convertible too; real quantities have under 30.
MAX_DIGITS = 1_000


class QuantityError(ValueError):
    """Invalid quantity text; the message is upstream's error text."""


class Quantity:
    """An exact quantity: `nanos` (value * 10^9, an int), `format`, and the cached original text.

    Immutable; `+` and `*` (by int) return new quantities. Equality and ordering compare values only
    (like upstream's Cmp), never the format.
    """

    __slots__ = ("nanos", "format", "_text")

    def __init__(self, nanos: int = 0, format: str = "", text: str | None = None):
        # format "" is Go's zero-value Quantity: it adopts the format of the first thing added to it.
        object.__setattr__(self, "nanos", nanos)
        object.__setattr__(self, "format", format)
        object.__setattr__(self, "_text", text)

    def __setattr__(self, name, value):
        raise AttributeError("Quantity is immutable")

    @classmethod
    def from_milli(cls, value: int, format: str = DECIMAL_SI) -> Quantity:
        return cls(value * 1_000_000, format)

    def __add__(self, other: Quantity) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        # Upstream: an accumulator whose value is zero takes the addend's format.
        fmt = other.format if self.nanos == 0 else self.format
        return Quantity(self.nanos + other.nanos, fmt)

    def __sub__(self, other: Quantity) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        fmt = other.format if self.nanos == 0 else self.format
        return Quantity(self.nanos - other.nanos, fmt)

    def __mul__(self, factor: int) -> Quantity:
        if not isinstance(factor, int) or isinstance(factor, bool):
            return NotImplemented
        return Quantity(self.nanos * factor, self.format)

    __rmul__ = __mul__

    def __neg__(self) -> Quantity:
        return Quantity(-self.nanos, self.format)

    def __eq__(self, other):
        if isinstance(other, Quantity):
            return self.nanos == other.nanos
        return NotImplemented

    def __hash__(self):
        return hash(self.nanos)

    def __lt__(self, other: Quantity):
        return self.nanos < other.nanos

    def __le__(self, other: Quantity):
        return self.nanos <= other.nanos

    def __gt__(self, other: Quantity):
        return self.nanos > other.nanos

    def __ge__(self, other: Quantity):
        return self.nanos >= other.nanos

    def __bool__(self):
        return self.nanos != 0

    def is_zero(self) -> bool:
        return self.nanos == 0

    def __str__(self):
        return canonical(self)

    def __repr__(self):
        return f"Quantity({canonical(self)!r}, {self.format or 'unset'})"


ZERO = Quantity()


def _go_float_text(value: float) -> str:
    """The text Go's encoding/json writes for a float64 (what upstream parses for a YAML float)."""
    if value != value or value in (float("inf"), float("-inf")):
        raise QuantityError(MSG_FORMAT_WRONG)
    if value == 0:
        return "-0" if str(value).startswith("-") else "0"
    from decimal import Decimal  # only for a float quantity (decimal costs every start-up ~1 ms)

    shortest = Decimal(repr(value))  # Python's repr is the shortest round-tripping form, like Go's -1
    magnitude = abs(value)
    if 1e-6 <= magnitude < 1e21:
        text = format(shortest, "f")
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return text
    sign, digit_tuple, exponent = shortest.as_tuple()
    all_digits = "".join(map(str, digit_tuple))
    exp10 = exponent + len(all_digits) - 1
    digits = all_digits.rstrip("0") or "0"
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    exp_text = f"{abs(exp10):02d}"
    if exp10 < 0 and len(exp_text) == 2 and exp_text[0] == "0":
        exp_text = exp_text[1:]  # Go rewrites e-07 as e-7 (but keeps e+07)
    return ("-" if sign else "") + mantissa + ("e-" if exp10 < 0 else "e+") + exp_text


def _as_text(value) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None:
        raise QuantityError(MSG_FORMAT_WRONG)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_float_text(value)
    raise QuantityError(MSG_FORMAT_WRONG)


def _scan(text: str):
    """Split into (positive, value, num, denom, suffix) the way upstream's scanner does."""
    positive = True
    pos = 0
    end = len(text)
    if text[0] == "-":
        positive = False
        pos = 1
    elif text[0] == "+":
        pos = 1
    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    num = text[start:pos]
    if pos >= end:
        return positive, text, num, "", ""
    num = num or "0"
    denom = ""
    if text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[start:pos]
        if pos >= end:
            return positive, text, num, denom, ""
    value = text[:pos]
    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos >= end:
        return positive, value, num, denom, text[suffix_start:]
    if text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos >= end:
        return positive, value, num, denom, text[suffix_start:]
    raise QuantityError(MSG_FORMAT_WRONG)


def _interpret(suffix: str):
    """(base, exponent, format) for a suffix, or QuantityError."""
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], DECIMAL_SI
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        from kpt_fn import strconv  # only for an exponent suffix (1e3), rare in resource lists

        parsed, _ = strconv.parse_int(suffix[1:], 64)  # upstream: strconv.ParseInt(suffix[1:], 10, 64)
        if parsed is None:
            raise QuantityError(MSG_SUFFIX)
        exponent = (parsed + 2**31) % 2**32 - 2**31  # upstream narrows to int32
        return 10, exponent, DECIMAL_EXPONENT
    raise QuantityError(MSG_SUFFIX)


def parse(value: str | int | float) -> Quantity:
    """Parse like upstream's ParseQuantity (strict: no surrounding whitespace allowed).

    Raises QuantityError carrying upstream's message for invalid input. A Quantity is returned as is.
    A text is parsed once (quantities are immutable, and a repository writes the same few quantities
    in every TrainJob, runtime and generated pod: tens of thousands of parses at 2,000 TrainJobs).
    """
    if type(value) is str:
        return _parse_text(value)
    if isinstance(value, Quantity):
        return value
    return _parse(value)


@functools.lru_cache(maxsize=4096)
def _parse_text(text: str) -> Quantity:
    return _parse(text)


def _parse(value: str | int | float) -> Quantity:
    text = _as_text(value)
    if not text:
        raise QuantityError(MSG_FORMAT_WRONG)
    if text == "0":
        return Quantity(0, DECIMAL_SI, "0")
    positive, value_text, num, denom, suffix = _scan(text)
    base, exponent, fmt = _interpret(suffix)

    # Upstream has an int64 fast path that also decides whether the input text is kept for printing.
    multiplier = 1
    if fmt == BINARY_SI:
        scale = 0
        if exponent >= 0 and not denom:
            multiplier = 1 << exponent
            precision = 14 - len(num) - (exponent * 3) // 10
        else:
            precision = -1
    else:
        scale = exponent
        precision = 18 - len(num) - len(denom)
    if precision >= 0:
        scale -= len(denom)
        if -9 <= scale <= _MAX_EXPONENT:
            shifted = num + denom
            digits = int(shifted)
            result = digits * multiplier
            if result <= _INT64_MAX:
                if not positive:
                    result = -result
                nanos = result * 10 ** (scale + 9)
                if fmt == BINARY_SI:
                    keep = exponent % 10 == 0 and (digits & 7) != 0
                else:
                    keep = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
                return Quantity(nanos, fmt, text if keep else None)

    # Exact path: the number as written, times the suffix, rounded up (away from zero) to 10^-9.
    if not any(c in _DIGITS for c in value_text):
        raise QuantityError(MSG_NUMERIC)
    negative = value_text[0] == "-"
    # Leading zeros of the digits and trailing zeros of the fraction do not change the value; what is
    # left is converted to an int, which costs time quadratic in its length (and Python refuses more
    # than 4,300 digits): beyond MAX_DIGITS significant digits the quantity is refused by its length,
    # naming the field, in bounded time. Upstream's inf.Dec would take it; no resource amount needs it.
    denom = denom.rstrip("0")
    digits = (num + denom).lstrip("0") or "0"
    if len(digits) > MAX_DIGITS:
        raise QuantityError(f"{MSG_NUMERIC}: {len(digits)} significant digits, more than the {MAX_DIGITS} "
                            "this function reads (docs/limits.md)")
    magnitude = int(digits)
    if abs(exponent) > _MAX_EXPONENT:
        if magnitude == 0:
            nanos = 0
        elif exponent < 0:
            nanos = 1
        else:
            raise QuantityError(MSG_NUMERIC)
    else:
        # value = magnitude / 10^len(denom) * base^exponent; scale to nanos and round up
        numerator = magnitude * _NANO
        denominator = 10 ** len(denom)
        if base == 10:
            if exponent >= 0:
                numerator *= 10**exponent
            else:
                denominator *= 10**-exponent
        else:
            numerator <<= exponent
        nanos = -(-numerator // denominator)
    if fmt == BINARY_SI:
        nanos = min(nanos, _INT64_MAX * _NANO)
        if 0 < nanos < _NANO:
            fmt = DECIMAL_SI
    return Quantity(-nanos if negative else nanos, fmt)


def _remove_factors(value: int, base: int) -> tuple[int, int]:
    negative = value < 0
    if negative:
        value = -value
    times = 0
    while value >= base and value % base == 0:
        value //= base
        times += 1
    return (-value if negative else value), times


def canonical(q: Quantity) -> str:
    """Exactly what upstream's Quantity.String() prints."""
    if q._text is not None:
        return q._text
    nanos = q.nanos
    if nanos == 0:
        return "0"
    fmt = q.format
    if fmt == BINARY_SI:
        if -1024 * _NANO < nanos < 1024 * _NANO or nanos % _NANO:
            fmt = DECIMAL_SI
        else:
            mantissa, power = _remove_factors(nanos // _NANO, 1024)
            # No suffix exists above Ei; upstream then prints the bare mantissa.
            return str(mantissa) + _BINARY_BY_POWER.get(power, "")
    elif fmt != DECIMAL_SI:
        fmt = DECIMAL_EXPONENT
    mantissa, times = _remove_factors(nanos, 10)
    exponent = times - 9
    while exponent % 3:
        mantissa *= 10
        exponent -= 1
    if fmt == DECIMAL_SI:
        # Outside n..E upstream finds no suffix and prints the bare mantissa.
        return str(mantissa) + _DECIMAL_BY_EXP.get(exponent, "")
    return str(mantissa) + (f"e{exponent}" if exponent else "")


def canonicalize(value: str | int | float) -> str:
    """parse + canonical: the string a quantity becomes after upstream's typed round-trip."""
    if type(value) is str:
        return _canonical_text(value)
    return canonical(parse(value))


@functools.lru_cache(maxsize=4096)
def _canonical_text(text: str) -> str:
    return canonical(_parse_text(text))


def ceil_value(q: Quantity) -> int:
    """Upstream Value(): the integer value, rounded away from zero."""
    whole, rest = divmod(abs(q.nanos), _NANO)
    if rest:
        whole += 1
    return whole if q.nanos >= 0 else -whole


# ------------------------------------------------------------------------------------------------
# GPU / CPU detection


def _first_gpu(resource_list: Mapping | None) -> int:
    # Upstream takes the first matching name in Go map order, random per call (pkg/runtime/runtime.go
    # numGPU at v2.3.0); we take the smallest name so the result is deterministic.
    for name in sorted(resource_list or ()):
        if "gpu" in name.lower():
            return ceil_value(parse(resource_list[name]))
    return 0


def num_gpu(resources: Mapping | None) -> int:
    """GPUs per node from a {limits, requests} dict (upstream GetNumGPUPerNode).

    The first resource whose lower-cased name contains "gpu" counts, requests before limits (limits
    only when the requests give 0), value rounded up. When several names contain "gpu", upstream's
    pick is random; we deterministically use the one that sorts first by resource name.
    """
    if resources is None:
        return 0
    gpus = _first_gpu(resources.get("requests"))
    from_limits = _first_gpu(resources.get("limits"))
    if gpus == 0 and from_limits > 0:
        gpus = from_limits
    return gpus


def num_cpu(resources: Mapping | None) -> int:
    """CPUs per node from a {limits, requests} dict (upstream getNumCPUPerNode): requests.cpu rounded
    up, or limits.cpu rounded up when the request is absent or zero, else 0.
    """
    if resources is None:
        return 0
    request = (resources.get("requests") or {}).get("cpu")
    if request is None or parse(request).is_zero():
        limit = (resources.get("limits") or {}).get("cpu")
        return ceil_value(parse(limit)) if limit is not None else 0
    return ceil_value(parse(request))
