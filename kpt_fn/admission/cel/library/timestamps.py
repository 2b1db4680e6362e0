"""Durations and timestamps of CEL's standard library (cel-go v0.26.0 common/types/duration.go,
timestamp.go, common/stdlib/standard.go): duration() parses as Go's time.ParseDuration, timestamp() as
time.Parse(time.RFC3339); arithmetic, comparison, string() and int() as cel-go has them, and the
accessors (getFullYear ... getMilliseconds) in UTC or the time zone given (an IANA name or
"+hh:mm"). The API server sets cel.DefaultUTCTimeZone (base.go).
"""

from __future__ import annotations

import datetime as dt
import re

from kpt_fn.admission.cel.runtime import check_int, no_overload
from kpt_fn.admission.cel.stdlib import Function
from kpt_fn.admission.cel.values import EvalError

_NS = 1_000_000_000
_UNITS = {"ns": 1, "us": 1000, "µs": 1000, "μs": 1000, "ms": 1_000_000, "s": _NS, "m": 60 * _NS, "h": 3600 * _NS}
_MAX_NS = 2**63 - 1
# cel-go common/types/timestamp.go: years 0001 to 9999
_MIN_UNIX, _MAX_UNIX = -62135596800, 253402300799
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


class Duration:
    CEL_TYPE = "google.protobuf.Duration"
    __slots__ = ("ns",)

    def __init__(self, ns: int):
        if not -_MAX_NS - 1 <= ns <= _MAX_NS:
            raise EvalError("duration overflow")
        self.ns = ns

    def __eq__(self, other):
        return type(other) is Duration and other.ns == self.ns

    __hash__ = None

    def cel_compare(self, other):
        return (self.ns > other.ns) - (self.ns < other.ns)

    def cel_add(self, other):
        if type(other) is Duration:
            return Duration(self.ns + other.ns)
        if type(other) is Timestamp:
            return other.cel_add(self)
        raise no_overload("_+_")

    def cel_sub(self, other):
        if type(other) is Duration:
            return Duration(self.ns - other.ns)
        raise no_overload("_-_")

    def cel_negate(self):
        return Duration(-self.ns)

    def cel_string(self):
        seconds, frac = divmod(abs(self.ns), _NS)
        text = str(seconds) + (("." + f"{frac:09d}".rstrip("0")) if frac else "")
        return ("-" if self.ns < 0 else "") + text + "s"

    def cel_int(self):
        return self.ns

    def __repr__(self):
        return f"duration({self.cel_string()!r})"


class Timestamp:
    CEL_TYPE = "google.protobuf.Timestamp"
    __slots__ = ("ns",)

    def __init__(self, ns: int):
        if not _MIN_UNIX * _NS <= ns <= (_MAX_UNIX + 1) * _NS - 1:
            raise EvalError("timestamp overflow")
        self.ns = ns

    def __eq__(self, other):
        return type(other) is Timestamp and other.ns == self.ns

    __hash__ = None

    def cel_compare(self, other):
        return (self.ns > other.ns) - (self.ns < other.ns)

    def cel_add(self, other):
        if type(other) is Duration:
            return Timestamp(self.ns + other.ns)
        raise no_overload("_+_")

    def cel_sub(self, other):
        if type(other) is Duration:
            return Timestamp(self.ns - other.ns)
        if type(other) is Timestamp:
            return Duration(self.ns - other.ns)
        raise no_overload("_-_")

    def datetime(self, tz=dt.timezone.utc):
        seconds, frac = divmod(self.ns, _NS)
        return (_EPOCH + dt.timedelta(seconds=seconds)).astimezone(tz), frac

    def cel_string(self):
        when, frac = self.datetime()
        text = when.strftime("%Y-%m-%dT%H:%M:%S")
        if frac:
            text += "." + f"{frac:09d}".rstrip("0")
        return text + "Z"

    def cel_int(self):
        return self.ns // _NS

    def __repr__(self):
        return f"timestamp({self.cel_string()!r})"


_DURATION = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)")


def parse_duration(text: str) -> Duration:
    """Go's time.ParseDuration."""
    original = text
    sign = 1
    if text and text[0] in "+-":
        sign = -1 if text[0] == "-" else 1
        text = text[1:]
    if text == "0":
        return Duration(0)
    if not text:
        raise EvalError(f'time: invalid duration "{original}"')
    total = 0
    pos = 0
    while pos < len(text):
        match = _DURATION.match(text, pos)
        if match is None or match.group(1) in ("", "."):
            raise EvalError(f'time: invalid duration "{original}"')
        number, unit = match.groups()
        whole, _, frac = number.partition(".")
        scale = _UNITS[unit]
        value = int(whole or "0") * scale
        if frac:
            value += int(frac) * scale // (10 ** len(frac))
        total += value
        if total > _MAX_NS + 1:
            raise EvalError(f'time: invalid duration "{original}"')
        pos = match.end()
    total *= sign
    if total > _MAX_NS:
        raise EvalError(f'time: invalid duration "{original}"')
    return Duration(total)


_RFC3339 = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})\Z")


def parse_timestamp(text: str) -> Timestamp:
    """Go's time.Parse(time.RFC3339, ...) within CEL's range."""
    match = _RFC3339.match(text)
    if match is None:
        raise EvalError(f'parsing time "{text}" as "2006-01-02T15:04:05Z07:00": cannot parse')
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    frac, zone = match.group(7), match.group(8)
    try:
        when = dt.datetime(year, month, day, hour, minute, second, tzinfo=dt.timezone.utc)
    except ValueError as exc:
        raise EvalError(f'parsing time "{text}": {exc}') from None
    if hour > 23 or minute > 59 or second > 59:
        raise EvalError(f'parsing time "{text}": second out of range')
    offset = 0
    if zone not in ("Z", "z"):
        hours, minutes = int(zone[1:3]), int(zone[4:6])
        offset = (hours * 3600 + minutes * 60) * (-1 if zone[0] == "-" else 1)
    seconds = int((when - _EPOCH).total_seconds()) - offset
    if not _MIN_UNIX <= seconds <= _MAX_UNIX:
        raise EvalError("timestamp overflow")
    nanos = int((frac[1:] + "000000000")[:9]) if frac else 0
    return Timestamp(seconds * _NS + nanos)


def duration_error(text: str) -> str:
    try:
        parse_duration(text)
    except EvalError as exc:
        return exc.message
    return ""


def timestamp_error(text: str) -> str:
    try:
        parse_timestamp(text)
    except EvalError as exc:
        return exc.message
    return ""


def to_duration(v):
    if type(v) is Duration:
        return v
    if type(v) is str:
        try:
            return parse_duration(v)
        except EvalError:
            raise EvalError("type conversion error from 'string' to 'google.protobuf.Duration'") from None
    raise no_overload("duration")


def to_timestamp(v):
    if type(v) is Timestamp:
        return v
    if type(v) is str:
        try:
            return parse_timestamp(v)
        except EvalError as exc:
            if exc.message == "timestamp overflow":
                raise
            raise EvalError("type conversion error from 'string' to 'google.protobuf.Timestamp'") from None
    if type(v) is int:
        return Timestamp(check_int(v) * _NS)
    raise no_overload("timestamp")


def _zone(tz):
    if ":" not in tz:
        try:
            import zoneinfo

            return zoneinfo.ZoneInfo(tz)
        except Exception:  # noqa: BLE001 (an unknown zone name is the user's error)
            raise EvalError(f"unknown time zone {tz}") from None
    hours, _, minutes = tz.partition(":")
    try:
        h, m = int(hours), int(minutes)
    except ValueError:
        raise EvalError(f'strconv.Atoi: parsing "{hours}": invalid syntax') from None
    offset = h * 60 - m if tz.startswith("-") else h * 60 + m
    return dt.timezone(dt.timedelta(minutes=offset))


def _accessor(name, pick):
    def access(v, tz=None):
        if type(v) is Duration:
            part = {"getHours": 3600 * _NS, "getMinutes": 60 * _NS, "getSeconds": _NS,
                    "getMilliseconds": 1_000_000}.get(name)
            if part is None or tz is not None:
                raise no_overload(name)
            if name == "getMilliseconds":
                return int((abs(v.ns) % _NS) // 1_000_000) * (-1 if v.ns < 0 else 1)
            return int(abs(v.ns) // part) * (-1 if v.ns < 0 else 1)
        if type(v) is not Timestamp or (tz is not None and type(tz) is not str):
            raise no_overload(name)
        when, frac = v.datetime(_zone(tz) if tz is not None else dt.timezone.utc)
        return pick(when, frac)
    return access


_TIMESTAMP_PARTS = {
    "getFullYear": lambda w, f: w.year, "getMonth": lambda w, f: w.month - 1,
    "getDayOfYear": lambda w, f: w.timetuple().tm_yday - 1, "getDayOfMonth": lambda w, f: w.day - 1,
    "getDate": lambda w, f: w.day, "getDayOfWeek": lambda w, f: (w.weekday() + 1) % 7,
    "getHours": lambda w, f: w.hour, "getMinutes": lambda w, f: w.minute, "getSeconds": lambda w, f: w.second,
    "getMilliseconds": lambda w, f: f // 1_000_000,
}
_DURATION_PARTS = {"getHours", "getMinutes", "getSeconds", "getMilliseconds"}

FUNCTIONS = [
    Function("duration", ["duration(string) -> google.protobuf.Duration",
                          "duration(google.protobuf.Duration) -> google.protobuf.Duration"], to_duration),
    Function("timestamp", ["timestamp(string) -> google.protobuf.Timestamp",
                           "timestamp(int) -> google.protobuf.Timestamp",
                           "timestamp(google.protobuf.Timestamp) -> google.protobuf.Timestamp"], to_timestamp),
    *(Function(name, [f"google.protobuf.Timestamp.{name}() -> int", f"google.protobuf.Timestamp.{name}(string) -> int"]
               + ([f"google.protobuf.Duration.{name}() -> int"] if name in _DURATION_PARTS else []),
               _accessor(name, pick)) for name, pick in _TIMESTAMP_PARTS.items()),
]
