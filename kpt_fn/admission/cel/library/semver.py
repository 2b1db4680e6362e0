"""Kubernetes' semver library at version 1 (k8s.io/apiserver@v0.36.3 pkg/cel/library/semverlib.go,
enabled from 1.33 on): semver(), isSemver() (each with the `normalize` flag of version 1), major,
minor, patch, isGreaterThan, isLessThan, compareTo. Versions parse as github.com/blang/semver/v4's
Parse does (no leading zeros, prerelease and build identifiers of [0-9A-Za-z-]) and compare by
semver precedence, build metadata ignored.
"""

from __future__ import annotations

from kpt_fn.admission.cel import runtime
from kpt_fn.admission.cel.runtime import no_overload, succeeds, traversal
from kpt_fn.admission.cel.stdlib import Function
from kpt_fn.admission.cel.values import EvalError

_ALNUM = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-")
_NUM = frozenset("0123456789")


class Semver:
    CEL_TYPE = "kubernetes.Semver"
    __slots__ = ("major", "minor", "patch", "pre", "build")

    def __init__(self, major, minor, patch, pre, build):
        self.major, self.minor, self.patch, self.pre, self.build = major, minor, patch, pre, build

    def cel_compare(self, other):
        a, b = (self.major, self.minor, self.patch), (other.major, other.minor, other.patch)
        if a != b:
            return 1 if a > b else -1
        if not self.pre or not other.pre:
            return (not self.pre) - (not other.pre) if self.pre or other.pre else 0
        for x, y in zip(self.pre, other.pre):
            if x == y:
                continue
            xn, yn = type(x) is int, type(y) is int
            if xn and yn:
                return 1 if x > y else -1
            if xn != yn:
                return -1 if xn else 1
            return 1 if x > y else -1
        return (len(self.pre) > len(other.pre)) - (len(self.pre) < len(other.pre))

    def __eq__(self, other):
        return type(other) is Semver and self.cel_compare(other) == 0

    __hash__ = None

    def cel_string(self):
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            text += "-" + ".".join(str(p) for p in self.pre)
        if self.build:
            text += "+" + ".".join(self.build)
        return text


def _number(text, what):
    if not text or not _NUM.issuperset(text):
        raise EvalError(f"Invalid character(s) found in {what} number {text!r}".replace("'", '"'))
    if len(text) > 1 and text[0] == "0":
        raise EvalError(f'{what.capitalize()} number must not contain leading zeroes "{text}"')
    value = int(text)
    if value > 2**64 - 1:
        raise EvalError(f'strconv.ParseUint: parsing "{text}": value out of range')
    return value


def parse(text: str) -> Semver:
    """blang/semver/v4 Parse."""
    if not text:
        raise EvalError("Version string empty")
    parts = text.split(".", 2)
    if len(parts) != 3:
        raise EvalError("No Major.Minor.Patch elements found")
    major = _number(parts[0], "major")
    minor = _number(parts[1], "minor")
    rest = parts[2]
    build = []
    if "+" in rest:
        rest, _, meta = rest.partition("+")
        build = meta.split(".")
        for b in build:
            if not b:
                raise EvalError("Build meta data is empty")
            if not _ALNUM.issuperset(b):
                raise EvalError(f'Invalid character(s) found in build meta data "{b}"')
    pre = []
    if "-" in rest:
        rest, _, prerelease = rest.partition("-")
        for p in prerelease.split("."):
            if not p:
                raise EvalError("Prerelease is empty")
            if _NUM.issuperset(p):
                if len(p) > 1 and p[0] == "0":
                    raise EvalError(f'Numeric PreRelease version must not contain leading zeroes "{p}"')
                pre.append(int(p))
            elif _ALNUM.issuperset(p):
                pre.append(p)
            else:
                raise EvalError(f'Invalid character(s) found in prerelease "{p}"')
    patch = _number(rest, "patch")
    return Semver(major, minor, patch, pre, build)


def normalize_and_parse(text: str) -> Semver:
    """semverlib.go normalizeAndParse: a leading "v" dropped, leading zeros removed, a short version
    filled up with zeros."""
    if text.startswith("v"):
        text = text[1:]
    parts = text.split(".", 2)
    for i, p in enumerate(parts):
        if len(p) > 1:
            p = p.lstrip("0")
            if not p or p[0] not in "0123456789":
                p = "0" + p
            parts[i] = p
    if len(parts) < 3:
        if any(c in parts[-1] for c in "+-"):
            raise EvalError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return parse(".".join(parts))


def to_semver(text, normalize=False):
    if type(text) is not str or type(normalize) is not bool:
        raise no_overload("semver")
    return normalize_and_parse(text) if normalize else parse(text)


def is_semver(text, normalize=False):
    return succeeds(to_semver, text, normalize)


def _part(name):
    def part(v):
        if type(v) is not Semver:
            raise no_overload(name)
        return getattr(v, name)
    return part


def _compare(name, want):
    def cmp(v, other):
        if type(v) is not Semver or type(other) is not Semver:
            raise no_overload(name)
        result = v.cel_compare(other)
        return result if want is None else result == want
    return cmp


def _parse_cost(args, result):
    return traversal(runtime.actual_size(args[0]))


_S = "kubernetes.Semver"
FUNCTIONS = [
    Function("semver", [f"semver(string) -> {_S}", f"semver(string, bool) -> {_S}"], to_semver, _parse_cost),
    Function("isSemver", ["isSemver(string) -> bool", "isSemver(string, bool) -> bool"], is_semver, _parse_cost),
    Function("major", [f"{_S}.major() -> int"], _part("major")),
    Function("minor", [f"{_S}.minor() -> int"], _part("minor")),
    Function("patch", [f"{_S}.patch() -> int"], _part("patch")),
    Function("isGreaterThan", [f"{_S}.isGreaterThan({_S}) -> bool"], _compare("isGreaterThan", 1)),
    Function("isLessThan", [f"{_S}.isLessThan({_S}) -> bool"], _compare("isLessThan", -1)),
    Function("compareTo", [f"{_S}.compareTo({_S}) -> int"], _compare("compareTo", None)),
]
