"""kpt_fn.apimachinery.validation: name, label and key syntax with apimachinery's exact messages."""

from __future__ import annotations

import pytest

from kpt_fn.apimachinery import validation as utilvalidation

SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
             "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
             "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
         "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
         "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
DNS1035 = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
           "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
           "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")
KEY_NAME = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
            "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
            "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
               "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
               "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
CONFIG_KEY = ("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  "
              "or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')")


@pytest.mark.parametrize("value, errors", [
    ("example.com", ()),
    ("a", ()),
    ("Example.com", (SUBDOMAIN,)),
    ("-a", (SUBDOMAIN,)),
    ("a..b", (SUBDOMAIN,)),
    ("a\n", (SUBDOMAIN,)),  # anchored like Go: no newline before the end
    ("a" * 254, ("must be no more than 253 characters",)),
    ("A" * 254, ("must be no more than 253 characters", SUBDOMAIN)),
])
def test_dns1123_subdomain(value, errors):
    assert utilvalidation.is_dns1123_subdomain(value) == errors


@pytest.mark.parametrize("value, errors", [
    ("team-a", ()),
    ("0abc", ()),
    ("a.b", ("must not contain dots",)),
    ("Team", (LABEL,)),
    ("a" * 64, ("must be no more than 63 characters",)),
])
def test_dns1123_label(value, errors):
    assert utilvalidation.is_dns1123_label(value) == errors


@pytest.mark.parametrize("value, errors", [
    ("ft", ()), ("0ft", (DNS1035,)), ("ft-", (DNS1035,)), ("a" * 64, ("must be no more than 63 characters",)),
])
def test_dns1035_label(value, errors):
    assert utilvalidation.is_dns1035_label(value) == errors


@pytest.mark.parametrize("value, errors", [
    ("app", ()),
    ("trainer.kubeflow.org/trainjob-ancestor-step", ()),
    ("My_Key.1", ()),
    ("/name", ("prefix part must be non-empty",)),
    ("example.com/", ("name part must be non-empty", KEY_NAME)),
    ("Example.com/x", ("prefix part " + SUBDOMAIN,)),
    ("a/b/c", ("a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and "
               "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
               "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix "
               "and '/' (e.g. 'example.com/MyName')",)),
    ("x" * 64, ("name part must be no more than 63 bytes",)),
    ("bad key", (KEY_NAME,)),
])
def test_qualified_name(value, errors):
    assert utilvalidation.is_qualified_name(value) == errors


@pytest.mark.parametrize("value, errors", [
    ("", ()), ("v1.2_x-y", ()), ("-x", (LABEL_VALUE,)), ("a b", (LABEL_VALUE,)),
    ("x" * 64, ("must be no more than 63 bytes",)),
])
def test_label_value(value, errors):
    assert utilvalidation.is_label_value(value) == errors


@pytest.mark.parametrize("value, errors", [
    ("hostfile", ()), (".dockerconfigjson", ()), ("a/b", (CONFIG_KEY,)), (".", ("must not be '.'",)),
    ("..x", ("must not start with '..'",)),
])
def test_config_map_key(value, errors):
    assert utilvalidation.is_config_map_key(value) == errors


def test_domain_prefixed_path():
    assert utilvalidation.is_domain_prefixed_path("acme.io/foo") == []
    assert utilvalidation.is_domain_prefixed_path("foo") == [
        ("Invalid value", "foo", 'must be a domain-prefixed path (such as "acme.io/foo")')]
    assert utilvalidation.is_domain_prefixed_path("Acme.io/f o") == [
        ("Invalid value", "Acme.io", SUBDOMAIN),
        ("Invalid value", "f o", "Invalid path (regex used for validation is "
                                 "'[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"),
    ]


# --- the predicates that stand for the expressions every render meets ------------------------------

_PREDICATES = [
    (utilvalidation.DNS1123_LABEL_FMT, utilvalidation._dns1123_label_ok),
    (utilvalidation.DNS1123_SUBDOMAIN_FMT, utilvalidation._dns1123_subdomain_ok),
    (utilvalidation.DNS1035_LABEL_FMT, utilvalidation.dns1035_label_ok),
    (utilvalidation.LABEL_KEY_FMT, utilvalidation._label_key_ok),
    (utilvalidation.CONFIG_MAP_KEY_FMT, utilvalidation._config_map_key_ok),
    (utilvalidation.HTTP_PATH_FMT, utilvalidation._http_path_ok),
]


@pytest.mark.parametrize("fmt, predicate", _PREDICATES, ids=lambda x: getattr(x, "__name__", ""))
def test_each_predicate_accepts_exactly_what_its_expression_matches(fmt, predicate):
    import itertools
    import random
    import re

    # every string of up to four characters over an alphabet with each class the formats tell apart
    alphabet = "aZ09-._/ \né%~'!#?"
    texts = ["".join(t) for n in range(5) for t in itertools.product(alphabet, repeat=n)]
    rng = random.Random(1123)
    texts += ["".join(rng.choice("ab9-._Z") for _ in range(rng.randrange(5, 80))) for _ in range(3000)]
    texts += ["my-name", "example.com", "a" * 63, "a." * 60 + "b", "-a", "a-", "a..b", ".a", "a.", "ǅ", "Ａ", "١"]
    assert [t for t in texts if bool(re.fullmatch(fmt, t)) != predicate(t)] == []
