"""kpt_fn.yamlio.schema: scalars read as go-yaml reads them (YAML 1.2 core plus Go's numbers) and written
quoted wherever any reader in the pipeline would retype them (docs/yaml.md has the table)."""

from __future__ import annotations

import math

import pytest
import yaml

from kpt_fn.yamlio import schema


def load(text):
    return yaml.load(text, Loader=schema.Loader)


@pytest.mark.parametrize("text, value", [
    ("on", "on"), ("yes", "yes"), ("y", "y"), ("2024-01-01", "2024-01-01"), ("1:20", "1:20"),  # 1.1 only: strings
    ("true", True), ("False", False), ("TRUE", True), ("tRUE", "tRUE"),
    ("0x1F", 31), ("0o17", 15), ("0b101", 5), ("0755", 493), ("1_000", 1000), ("-0x10", -16),
    ("08", 8), ("09", 9),                       # not octal: Go's floats 8.0 and 9.0, the same number
    ("1e3", 1000.0), (".5", 0.5), ("1_0.5", 10.5), ("~", None), ("null", None),
])
@pytest.mark.parametrize("loader", [schema.Loader, schema.PyLoader])
def test_scalars_read_as_go_yaml_reads_them(text, value, loader):
    got = yaml.load(f"k: {text}", Loader=loader)["k"]
    assert got == value and type(got) is type(value)


def test_special_floats():
    doc = load("a: .inf\nb: -.Inf\nc: .NaN\n")
    assert (doc["a"], doc["b"]) == (math.inf, -math.inf) and math.isnan(doc["c"])


@pytest.mark.parametrize("text, value", [
    ("1_0", 10), ("+7", 7), ("-0o7", -7),
    ("0x" + "F" * 17, "0x" + "F" * 17),           # prefixed beyond 64 bits: Go gives up, the string stays
    ("0" + "7" * 30, float("0" + "7" * 30)),      # 0777-style beyond 64 bits: Go's decimal float fallback
    ("0" + "7" * 400, "0" + "7" * 400),           # ... beyond float64's range: the string stays
    ("-0" + "7" * 400, "-0" + "7" * 400),
    # Beyond int64 the API server's JSON decoder keeps a float64 (a Go uint64 included); beyond
    # float64's range go-yaml keeps the string.
    ("9223372036854775807", 2**63 - 1), ("-9223372036854775808", -(2**63)),
    ("9223372036854775808", 9.223372036854776e18), ("99999999999999999999", 1e20),
    ("0x8000000000000000", 9.223372036854776e18), ("1" + "0" * 400, "1" + "0" * 400),
])
def test_int_1_2(text, value):
    got = schema.int_1_2(text)
    assert got == value and type(got) is type(value)


def test_int_1_2_refuses_too_many_digits():
    with pytest.raises(ValueError, match="too large"):
        schema.int_1_2("1" * (schema.MAX_INT_DIGITS + 1))
    with pytest.raises(yaml.constructor.ConstructorError, match="too large"):
        load("k: " + "1" * (schema.MAX_INT_DIGITS + 1))


@pytest.mark.parametrize("text, value", [
    ("1_000.5", 1000.5), ("-.INF", -math.inf), ("1e-2", 0.01),
    ("1e400", "1e400"), ("-1_e400", "-1_e400"),  # beyond float64: Go's ParseFloat fails, the string stays
    ("1e-400", 0.0), ("1.7976931348623157e308", 1.7976931348623157e308),  # underflow is 0 in Go too
])
def test_float_1_2(text, value):
    got = schema.float_1_2(text)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize("loader", [schema.Loader, schema.PyLoader])
def test_a_float_beyond_float64_is_the_string_go_reads(loader):
    assert yaml.load("k: 1e400", Loader=loader) == {"k": "1e400"}
    assert load_all_values("k: -1E+999") == [{"k": "-1E+999"}]


def load_all_values(text):
    from kpt_fn import yamlio

    return yamlio.load_all(text)


def test_keys_are_their_text():
    assert load("True: 1\n~: 2\n0x1F: 3\n1.5: 4\n") == {"True": 1, "~": 2, "0x1F": 3, "1.5": 4}
    with pytest.raises(yaml.constructor.ConstructorError, match="non-scalar key"):
        load("? [a]\n: 1\n")


@pytest.mark.parametrize("tag, text, key", [
    (schema.NULL, "~", "null"), (schema.BOOL, "True", "true"), (schema.INT, "0x1F", "31"),
    (schema.FLOAT, "1.50", "1.50"), (schema.STR, "True", "True"),
])
def test_key_canon(tag, text, key):
    assert schema.key_canon(tag, text) == key


@pytest.mark.parametrize("value", ["y", "N", "on", "0755", "0o17", "1_0", "0_E0", "0x_1F", "1e3", "true", "~", ""])
def test_dumper_quotes_what_some_reader_would_retype(value):
    text = yaml.dump({"k": value}, Dumper=schema.Dumper)
    assert text.startswith(("k: '", 'k: "')), text
    assert load(text) == {"k": value}


def test_dumper_writes_shared_objects_in_full_and_multi_line_strings_as_blocks():
    shared = {"a": 1}
    text = yaml.dump({"x": shared, "z": shared, "s": "l1\nl2\n", "y": 1}, Dumper=schema.Dumper, sort_keys=False)
    assert text == "x:\n  a: 1\nz:\n  a: 1\ns: |\n  l1\n  l2\n'y': 1\n"  # a key `y` is a boolean to Argo CD


def test_only_core_tags():
    assert schema.CORE_TAGS == {schema.CORE + t for t in ("str", "int", "float", "bool", "null", "map", "seq", "merge")}


def _patterns():
    from kpt_fn.yamlio.schema import Dumper, Loader, Pattern, PyLoader

    found = {}
    for cls in (Loader, PyLoader, Dumper):
        for resolvers in cls.yaml_implicit_resolvers.values():
            for _tag, regexp in resolvers:
                if isinstance(regexp, Pattern):
                    found[id(regexp)] = regexp
    return list(found.values())


def test_every_pattern_answers_as_its_expression():
    """Pattern refuses by its characters and accepts ASCII digits without the expression; on every
    text a resolver is asked about (a plain scalar never ends in a line break) it answers as the
    expression does."""
    import itertools
    import random
    import re

    patterns = _patterns()
    assert len(patterns) >= 6
    alphabet = "0178_+-.xXoObBeEaAfFiInNtTyYD Gk/é²"
    texts = ["".join(t) for n in range(4) for t in itertools.product(alphabet, repeat=n)]
    rng = random.Random(7)
    texts += ["".join(rng.choice("0123456789_.+-eExoabf") for _ in range(rng.randrange(1, 12))) for _ in range(4000)]
    texts += ["8Gi", "2.13.0", "0400", "0o17", "0x1F", "1_000", "1e3", ".5", "-.inf", ".NaN", "true", "False", "y",
              "2\nx", "１２", "٣", "-De", "-f", "-_", "TRUE", "n", "yes"]
    for pattern in patterns:
        expression = re.compile(pattern.pattern)
        wrong = [t for t in texts if bool(pattern.match(t)) != bool(expression.match(t))]
        assert wrong == [], pattern.pattern


def test_go_number_predicates_answer_as_their_expressions():
    """_go_int and _go_float stand for go-yaml's number expressions: on texts built from the
    characters those expressions care about, line breaks included, they answer alike."""
    import itertools
    import random
    import re

    from kpt_fn.yamlio.schema import _FLOAT_GO, _INT_GO

    alphabet = "019_+-.eExXoObBaAfinNI\n"
    texts = ["".join(t) for n in range(5) for t in itertools.product(alphabet, repeat=n)]
    rng = random.Random(11)
    pieces = ["0", "1", "9", "_", "__", "+", "-", ".", "e", "E", "e-", "e+_", "0x", "0o", "0b", "0_x", "ff", "7", "2",
              "inf", "Inf", "nan", "NaN", "\n", "٣", "²"]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randrange(1, 9))) for _ in range(30000)]
    texts += ["5e-4", "2e-3", "1_000.5e1_0", "+.inf", "-.Inf", ".NaN", "+.nan", "._5", "+._5", "5._5", "0x_F", "0_x_F",
              "0o_7", "0b_", "-0b1_0", "1e", "1e+", ".5\n", "5\n\n", ".5E-3", "._", "0.", "-.5", "+_.5_e_-_3_"]
    for pattern in (_INT_GO, _FLOAT_GO):
        expression = re.compile(pattern.pattern)
        wrong = [t for t in texts if bool(pattern.match(t)) != bool(expression.match(t))]
        assert wrong == [], (pattern.exact.__name__, wrong[:10])
