"""Kubernetes' format library (k8s.io/apiserver@v0.36.3 pkg/cel/library/format.go, enabled from 1.31
on): `format.<name>()` and `format.named(name)` give a named format, `<format>.validate(string)` an
optional list of what is wrong (none when the string is valid). The name formats are apimachinery's
(kpt_fn.apimachinery.validation, their exact messages); uri, uuid, byte, date and datetime are
go-openapi strfmt's checks.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import math
import re

from kpt_fn.admission.cel import runtime
from kpt_fn.admission.cel.runtime import NONE, Optional, REGEX_LENGTH_FACTOR, STRING_TRAVERSAL_FACTOR, no_overload
from kpt_fn.admission.cel.stdlib import Function
from kpt_fn.apimachinery import validation as names


def _mask_trailing_dash(name: str) -> str:
    """apimachinery's maskTrailingDash: a generateName prefix may end in a dash."""
    return name[:-1] + "a" if len(name) > 1 and name.endswith("-") else name


def _uri(s):
    from kpt_fn.admission.cel.library import urls

    error = urls.request_uri_error(s)
    return [error] if error else []


_UUID = re.compile(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\Z")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}\Z")


def _byte(s):
    try:
        base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError):
        return ["invalid base64"]
    return []


def _date(s):
    if not _DATE.match(s):
        return ["invalid date"]
    try:
        dt.date.fromisoformat(s)
    except ValueError:
        return ["invalid date"]
    return []


def _datetime(s):
    from kpt_fn.admission.cel.library import timestamps

    return ["invalid datetime"] if timestamps.timestamp_error(s) else []


class Format:
    CEL_TYPE = "kubernetes.NamedFormat"
    __slots__ = ("name", "validate", "max_regex_size")

    def __init__(self, name, validate, max_regex_size):
        self.name, self.validate, self.max_regex_size = name, validate, max_regex_size

    def __eq__(self, other):
        return type(other) is Format and other.name == self.name

    __hash__ = None


# format.go ConstantFormats (urlLength and base64Length as format.go computes them)
CONSTANT_FORMATS = {
    "dns1123Label": Format("DNS1123Label", lambda s: list(names.is_dns1123_label(s)), 30),
    "dns1123Subdomain": Format("DNS1123Subdomain", lambda s: list(names.is_dns1123_subdomain(s)), 60),
    "dns1035Label": Format("DNS1035Label", lambda s: list(names.is_dns1035_label(s)), 30),
    "qualifiedName": Format("QualifiedName", lambda s: list(names.is_qualified_name(s)), 60),
    "dns1123LabelPrefix": Format("DNS1123LabelPrefix",
                                 lambda s: list(names.is_dns1123_label(_mask_trailing_dash(s))), 30),
    "dns1123SubdomainPrefix": Format("DNS1123SubdomainPrefix",
                                     lambda s: list(names.is_dns1123_subdomain(_mask_trailing_dash(s))), 60),
    "dns1035LabelPrefix": Format("DNS1035LabelPrefix",
                                 lambda s: list(names.is_dns1035_label(_mask_trailing_dash(s))), 30),
    "labelValue": Format("LabelValue", lambda s: list(names.is_label_value(s)), 40),
    "uri": Format("URI", _uri, 2100),
    "uuid": Format("uuid", lambda s: [] if _UUID.match(s) else ["does not match the UUID format"], 53),
    "byte": Format("byte", _byte, 2100),
    "date": Format("date", _date, 70),
    "datetime": Format("datetime", _datetime, 70),
}


def named(name):
    if type(name) is not str:
        raise no_overload("format.named")
    found = CONSTANT_FORMATS.get(name)
    return Optional(found, True) if found is not None else NONE


def validate(fmt, s):
    if type(fmt) is not Format or type(s) is not str:
        raise no_overload("validate")
    errors = fmt.validate(s)
    return Optional(list(errors), True) if errors else NONE


def _validate_cost(args, result):
    """library/cost.go "validate": a regex of the format's MaxRegexSize over the string."""
    fmt, s = args
    if type(fmt) is not Format:
        return 1
    text = math.ceil((1.0 + runtime.actual_size(s)) * STRING_TRAVERSAL_FACTOR)
    return text * math.ceil(fmt.max_regex_size * REGEX_LENGTH_FACTOR)


_F = "kubernetes.NamedFormat"
FUNCTIONS = [
    Function("validate", [f"{_F}.validate(string) -> optional_type(list(string))"], validate, _validate_cost),
    Function("format.named", [f"format.named(string) -> optional_type({_F})"], named),
    *(Function(f"format.{name}", [f"format.{name}() -> {_F}"], (lambda f: lambda: f)(fmt))
      for name, fmt in CONSTANT_FORMATS.items()),
]
