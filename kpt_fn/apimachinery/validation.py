"""k8s.io/apimachinery's name, label and key syntax with its exact messages (v0.36:
pkg/util/validation, pkg/api/validate/content for label keys and values): IsDNS1123Label,
IsDNS1123Subdomain, IsDNS1035Label, IsQualifiedName, IsValidLabelValue, IsConfigMapKey,
IsDomainPrefixedPath. Every layer that names Kubernetes objects uses these (the engine's generated
Secret names, the plugins, Kueue's checks, the API server's checks in kpt_fn.validation).

Lengths are counted in bytes and patterns must match the whole string, as with Go's len() and an
anchored regexp.
"""

from __future__ import annotations

import functools
import re

from kpt_fn.apimachinery.field import REQUIRED

DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + r"(\." + DNS1123_LABEL_FMT + ")*"
DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
LABEL_VALUE_FMT = "(" + LABEL_KEY_FMT + ")?"
CONFIG_MAP_KEY_FMT = "[-._a-zA-Z0-9]+"
HTTP_PATH_FMT = r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+"
_HTTP_PATH_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/-._~%!$&'()*+,;=:")

# The formats every render meets (names, labels, keys) are read by the small predicates below, which
# accept exactly what the expressions match (tests/unit/apimachinery/test_validation.py holds them to
# the expressions): compiling six expressions cost each run about a millisecond, more than every check
# of a render takes. The rest are compiled on first use, by re's own cache (re.fullmatch(FMT, value)).
_LOWER_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_DNS_LABEL_CHARS = _LOWER_ALNUM | {"-"}
_ALNUM = _LOWER_ALNUM | frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LABEL_KEY_CHARS = _ALNUM | frozenset("-_.")


def _dns1123_label_ok(value: str) -> bool:
    """re.fullmatch(DNS1123_LABEL_FMT, value)"""
    return bool(value) and value[0] in _LOWER_ALNUM and value[-1] in _LOWER_ALNUM and _DNS_LABEL_CHARS.issuperset(value)


def _dns1123_subdomain_ok(value: str) -> bool:
    """re.fullmatch(DNS1123_SUBDOMAIN_FMT, value): dot-separated labels"""
    return all(_dns1123_label_ok(label) for label in value.split("."))


def dns1035_label_ok(value: str) -> bool:
    """re.fullmatch(DNS1035_LABEL_FMT, value); also the TrainJob CRD's name rule (validation.cel)."""
    return _dns1123_label_ok(value) and not value[0].isdigit()


def _label_key_ok(value: str) -> bool:
    """re.fullmatch(LABEL_KEY_FMT, value)"""
    return bool(value) and value[0] in _ALNUM and value[-1] in _ALNUM and _LABEL_KEY_CHARS.issuperset(value)


def _http_path_ok(value: str) -> bool:
    """re.fullmatch(HTTP_PATH_FMT, value)"""
    return bool(value) and _HTTP_PATH_CHARS.issuperset(value)


def _config_map_key_ok(value: str) -> bool:
    """re.fullmatch(CONFIG_MAP_KEY_FMT, value)"""
    return bool(value) and _LABEL_KEY_CHARS.issuperset(value)


DNS1123_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters "
                     "or '-', and must start and end with an alphanumeric character")
DNS1123_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                         "characters, '-' or '.', and must start and end with an alphanumeric character")
DNS1035_LABEL_MSG = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
                     "start with an alphabetic character, and end with an alphanumeric character")
LABEL_KEY_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                 "with an alphanumeric character")
LABEL_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, "
                   "'-', '_' or '.', and must start and end with an alphanumeric character")
CONFIG_MAP_KEY_MSG = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"


def byte_length(s: str) -> int:
    return len(s.encode("utf-8"))


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def max_len_chars(n: int) -> str:
    """util/validation.MaxLenError."""
    return f"must be no more than {n} characters"


def max_len_bytes(n: int) -> str:
    """api/validate/content.MaxLenError (label keys and values)."""
    return f"must be no more than {n} bytes"


# Label keys, namespaces and kinds repeat across objects; generated names (JobSet, Job, Pod names)
# do not, so a small cache keeps the hits without holding thousands of one-off strings.
_CACHED_NAMES = 512


@functools.lru_cache(maxsize=_CACHED_NAMES)
def is_dns1123_label(value: str) -> tuple[str, ...]:
    errs = []
    if byte_length(value) > 63:
        errs.append(max_len_chars(63))
    if not _dns1123_label_ok(value):
        if _dns1123_subdomain_ok(value):
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return tuple(errs)


def _subdomain_errors(value: str, max_len) -> list[str]:
    """IsDNS1123Subdomain's checks; `max_len` words the length error (util/validation counts
    characters, api/validate/content, whose copy checks a label key's prefix, counts bytes)."""
    errs = []
    if byte_length(value) > 253:
        errs.append(max_len(253))
    if not _dns1123_subdomain_ok(value):
        errs.append(regex_error(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


@functools.lru_cache(maxsize=_CACHED_NAMES)
def is_dns1123_subdomain(value: str) -> tuple[str, ...]:
    return tuple(_subdomain_errors(value, max_len_chars))


_DNS1123_SUBDOMAIN_UNDERSCORE_FMT = r"_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*"
_DNS1123_SUBDOMAIN_UNDERSCORE_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                                     "'_', '-' or '.', and must start and end with an alphanumeric character")


def is_dns1123_subdomain_with_underscore(value: str) -> tuple[str, ...]:
    """DNS search domains (pod dnsConfig.searches): a subdomain whose labels may start with '_'."""
    errs = []
    if byte_length(value) > 253:
        errs.append(max_len_chars(253))
    if not re.fullmatch(_DNS1123_SUBDOMAIN_UNDERSCORE_FMT, value):
        errs.append(regex_error(_DNS1123_SUBDOMAIN_UNDERSCORE_MSG, _DNS1123_SUBDOMAIN_UNDERSCORE_FMT, "example.com"))
    return tuple(errs)


@functools.lru_cache(maxsize=_CACHED_NAMES)
def is_dns1035_label(value: str) -> tuple[str, ...]:
    errs = []
    if byte_length(value) > 63:
        errs.append(max_len_chars(63))
    if not dns1035_label_ok(value):
        errs.append(regex_error(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return tuple(errs)


@functools.lru_cache(maxsize=_CACHED_NAMES)
def is_qualified_name(value: str) -> tuple[str, ...]:
    """Label keys, annotation keys, finalizers: `[prefix/]name`."""
    errs = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in _subdomain_errors(prefix, max_len_bytes))
    else:
        return (
            "a valid label key " + regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
        )
    if not name:
        errs.append("name part must be non-empty")
    elif byte_length(name) > 63:
        errs.append("name part " + max_len_bytes(63))
    if not _label_key_ok(name):
        errs.append("name part " + regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc"))
    return tuple(errs)


@functools.lru_cache(maxsize=_CACHED_NAMES)
def is_label_value(value: str) -> tuple[str, ...]:
    errs = []
    if byte_length(value) > 63:
        errs.append(max_len_bytes(63))
    if value and not _label_key_ok(value):
        errs.append(regex_error(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return tuple(errs)


@functools.lru_cache(maxsize=_CACHED_NAMES)
def is_config_map_key(value: str) -> tuple[str, ...]:
    errs = []
    if byte_length(value) > 253:
        errs.append(max_len_chars(253))
    if not _config_map_key_ok(value):
        errs.append(regex_error(CONFIG_MAP_KEY_MSG, CONFIG_MAP_KEY_FMT, "key.name", "KEY_NAME", "key-name"))
    if value == ".":
        errs.append("must not be '.'")
    elif value == "..":
        errs.append("must not be '..'")
    elif value.startswith(".."):
        errs.append("must not start with '..'")
    return tuple(errs)


def is_domain_prefixed_path(value: str) -> list[tuple[str, object, str]]:
    """util/validation.IsDomainPrefixedPath as (error type, bad value, detail) triples."""
    if not value:
        return [(REQUIRED, None, "")]
    segments = value.split("/", 1)
    if len(segments) != 2 or not segments[0] or not segments[1]:
        return [("Invalid value", value, 'must be a domain-prefixed path (such as "acme.io/foo")')]
    host, path = segments
    out = [("Invalid value", host, m) for m in is_dns1123_subdomain(host)]
    if not _http_path_ok(path):
        out.append(("Invalid value", path, regex_error("Invalid path", HTTP_PATH_FMT)))
    return out
