"""kpt_fn.yamlio: YAML 1.2 reading, quoting for every reader, and the limits on hostile input."""

from __future__ import annotations

import math

import pytest
import yaml

from kpt_fn import yamlio
from kpt_fn.yamlio import Limits, YAMLInputError
from kpt_fn.yamlio import read as read_mod
from kpt_fn.yamlio.write import pyyaml_dump


# --- reading with the YAML 1.2 core schema ------------------------------------------------------------


def test_1_2_core_scalars():
    doc = yamlio.load(
        "on: on\nyes: yes\nn: n\ndate: 2024-01-01\nstamp: 2024-01-01T10:00:00Z\nsexa: 1:20\nport: 8080:80\n"
        "octal12: 0o17\nhex: 0x1F\nleading0: 0755\nexp: 1e3\nneg: -2.5\nbool: true\nBool: False\ntilde: ~\n"
        "nul: null\ninf: .inf\nninf: -.Inf\nnan: .nan\nunderscore: 1_000\nyesq: 'yes'\n"
    )
    assert math.isnan(doc.pop("nan"))
    assert doc == {
        "on": "on",
        "yes": "yes",
        "n": "n",
        "date": "2024-01-01",
        "stamp": "2024-01-01T10:00:00Z",
        "sexa": "1:20",
        "port": "8080:80",
        "octal12": 15,
        "hex": 31,
        "leading0": 0o755,
        "exp": 1000.0,
        "neg": -2.5,
        "bool": True,
        "Bool": False,
        "tilde": None,
        "nul": None,
        "inf": math.inf,
        "ninf": -math.inf,
        "underscore": 1000,
        "yesq": "yes",
    }
    assert type(doc["exp"]) is float and type(doc["octal12"]) is int


def test_load_all_skips_nothing_and_keeps_order():
    assert yamlio.load_all("---\na: 1\n---\n---\nb: 2\n") == [{"a": 1}, None, {"b": 2}]
    assert yamlio.load_all(b"") == []


def test_load_wants_exactly_one_document():
    with pytest.raises(YAMLInputError, match="expected one YAML document, found 2"):
        yamlio.load("a: 1\n---\nb: 2\n")


def test_syntax_errors_name_the_line():
    with pytest.raises(YAMLInputError) as e:
        yamlio.load_all("a: 1\nb: [\n")
    assert e.value.line is not None and str(e.value).startswith(f"line {e.value.line}: ")


def test_duplicate_keys_are_errors_with_their_line():
    with pytest.raises(YAMLInputError, match="duplicate key 'a'") as e:
        yamlio.load_all("x: 1\nm:\n  a: 1\n  a: 2\n")
    assert e.value.line == 4


def test_merge_keys_still_work():
    doc = yamlio.load("base: &b {x: 1}\nuse:\n  <<: *b\n  y: 2\n")
    assert doc["use"] == {"x": 1, "y": 2}


def test_mapping_keys_must_be_scalars():
    with pytest.raises(YAMLInputError, match="mapping keys must be scalars"):
        yamlio.load_all("? [a, b]\n: 1\n")


def test_not_utf8():
    with pytest.raises(YAMLInputError, match="not UTF-8"):
        yamlio.load_all(b"a: \xff\n")


# --- limits ------------------------------------------------------------------------------------------


def test_size_limit_bytes_and_text():
    limits = Limits(max_bytes=10)
    with pytest.raises(YAMLInputError, match="more than the limit of 10"):
        yamlio.load_all(b"a: 12345678901\n", limits)
    with pytest.raises(YAMLInputError, match="more than the limit of 10"):
        yamlio.load_all("a: 12345678901\n", limits)
    assert yamlio.load_all(b"a: 1\n", limits) == [{"a": 1}]


def test_depth_limit():
    deep = "a:\n" + "".join("  " * i + "- \n" for i in range(1, 12))
    with pytest.raises(YAMLInputError, match="nesting deeper than 5 levels"):
        yamlio.load_all(deep, Limits(max_depth=5))
    assert yamlio.load_all("[[[[1]]]]", Limits(max_depth=5)) == [[[[[1]]]]]


def test_deep_flow_nesting_does_not_crash():
    with pytest.raises(YAMLInputError):
        yamlio.load_all("[" * 5000 + "]" * 5000)


def test_alias_expansion_limit_stops_billion_laughs():
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for i, (prev, cur) in enumerate(zip("abcdefgh", "bcdefghi")):
        bomb += f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 10) + "]\n"
    with pytest.raises(YAMLInputError, match="expands to more than 100000 nodes"):
        yamlio.load_all(bomb, Limits(max_nodes=100_000))


def test_alias_count_limit_and_ordinary_aliases():
    doc = "a: &a 1\nb: [" + ", ".join(["*a"] * 20) + "]\n"
    with pytest.raises(YAMLInputError, match="more than 10 aliases"):
        yamlio.load_all(doc, Limits(max_aliases=10))
    assert yamlio.load(doc)["b"] == [1] * 20


def test_recursive_alias_is_rejected():
    with pytest.raises(YAMLInputError, match="recursive alias"):
        yamlio.load_all("a: &a [*a]\n")


# --- dumping -------------------------------------------------------------------------------------------


def test_dump_is_block_style_in_key_order_with_literal_blocks():
    text = yamlio.dump({"z": 1, "a": {"list": [1, {"k": "v"}]}, "script": "line 1\nline 2\n", "u": "é"})
    assert text == "z: 1\na:\n  list:\n  - 1\n  - k: v\nscript: |\n  line 1\n  line 2\nu: é\n"


@pytest.mark.parametrize("value", ["on", "yes", "y", "N", "1e3", "0o17", "0755", "2024-01-01", "1:20", "true", "~", "null", "", "012"])
def test_dump_quotes_strings_some_reader_would_retype(value):
    text = yamlio.dump({"k": value})
    assert text.startswith(("k: '", 'k: "')), text
    assert yamlio.load(text) == {"k": value}
    assert yaml.safe_load(text) == {"k": value}


@pytest.mark.parametrize("value", ["8080:80x", "hello", "a-b", "v1.2.3"])
def test_dump_leaves_plain_strings_plain(value):
    assert yamlio.dump({"k": value}) == f"k: {value}\n"


def test_dump_writes_shared_objects_in_full():
    shared = {"a": 1}
    text = yamlio.dump({"x": shared, "y": shared})
    assert "&" not in text and "*" not in text
    assert yamlio.load(text) == {"x": {"a": 1}, "y": {"a": 1}}


def test_dump_all_starts_every_document():
    assert yamlio.dump_all([{"a": 1}, {"b": 2}]) == "---\na: 1\n---\nb: 2\n"


def test_long_lines_are_not_folded():
    long = "x " * 200
    assert yamlio.dump({"k": long}).count("\n") == 1


# --- the plain-data path agrees with the careful one ------------------------------------------------

_PLAIN_CASES = [
    "a: 1\nb: [x, 'y', \"z\", ~, null, '', true, False, .inf, -.nan, 0o17, 0x1F, 1e3, 2024-01-01]\n",
    "---\na: 1\n---\n---\nb: 2\n",
    "",
    "# only a comment\n",
    "1: a\n2.5: b\n0x1F: c\n'x': {}\ny: []\nz: [[], {}, [[1]]]\n",
    "\ufeffa: 1\n",
    "s: |\n  multi\n  line\nf: >-\n  folded\n  text\n",
    "k: !!str 1\nl: !!int '7'\nm: !!float '1'\nn: !!bool 'true'\no: !!null ''\np: !!map {a: 1}\nq: !!seq [1]\n",
    "k: ! 1\n",
    "a: !\n",
    "a: &x 1\nb: *x\n",  # aliases
    "a: &x {b: [1, &y {c: 2}]}\nd: [*x, *y, *x]\n",
    "base: &b {x: 1}\nd:\n  <<: *b\n  y: 2\n",  # merge key
    "d:\n  <<: {x: 1}\n  y: 2\n",  # merge key without an alias
    "a: &a {x: 1, y: 1}\nb: &b {y: 2, z: 2}\nc:\n  z: 3\n  <<: [*a, *b]\n  <<: {w: 4}\n",
    "null: 1\ntrue: 2\nFalse: 3\n~x: 4\n0x1F: 5\n",  # keys are their text as written
]
_CAREFUL_CASES = [
    "a: 1\na: 2\n",  # duplicate
    "~: 1\n'~': 2\n",  # same text, different keys
    "true: 1\nTrue: 2\n",  # the same key to go-yaml v2
    "~: 1\nnull: 2\n",
    "'31': 1\n0x1F: 2\n",
    "a: &a 1\nb: &a 2\n",  # a duplicate anchor (PyYAML)
    "a: *nope\n",
    "a:\n  <<: 1\n",
    "a: !foo 1\nb: [\n",  # a syntax error after a foreign tag: composing fails first
    "? [a]\n: 1\n",  # collection key
    "a: !foo 1\n",
    "a: !!binary aGk=\n",
    "a: !!int abc\n",
    "a: " + "1" * (yamlio.MAX_INT_DIGITS + 1) + "\n",
    "a: !!str {b: 1}\n",
    "a: [\n",
    "!: 1\n",
    "a: " + "[" * 120 + "]" * 120 + "\n",
    "a: " + "[" * 99 + "]" * 99 + "\n",
]


@pytest.mark.parametrize("text", _PLAIN_CASES + _CAREFUL_CASES)
def test_plain_path_agrees_with_the_careful_path(text):
    def outcome(fn):
        try:
            return "ok", fn()
        except YAMLInputError as e:
            return "error", str(e)

    careful = outcome(lambda: read_mod._load_careful(text, yamlio.DEFAULT_LIMITS))
    assert outcome(lambda: yamlio.load_all(text)) == careful
    assert outcome(lambda: yamlio.load_all(text.encode())) == careful
    try:
        plain = read_mod._load_plain(text.encode(), yamlio.DEFAULT_LIMITS)
    except read_mod._NotPlain:
        assert text not in _PLAIN_CASES
    except YAMLInputError as e:  # errors it can word itself (syntax errors, foreign tags) it words alike
        assert text not in _PLAIN_CASES and careful == ("error", str(e))
    else:
        assert text not in _CAREFUL_CASES
        assert careful == ("ok", plain)


@pytest.mark.parametrize("data", [
    {"items": [{"a": 1}, {"b": "x\n\n"}, {"c": 2}], "results": [{"m": "y"}]},
    {"items": ["a\n\n"], "results": "a\n"},
    {"items": [{"a": "k" * 200}], "k" * 200: [1, 2]},
    {"items": [1, 2, 3]},
    {},
    [1, 2],
])
def test_dump_pieces_join_to_the_whole_dump(data):
    whole = yaml.dump(data, Dumper=yamlio.Dumper, sort_keys=False, default_flow_style=False, width=1 << 30, allow_unicode=True)
    assert "".join(yamlio.dump_pieces(data)) == whole == yamlio.dump(data)


def test_limits_is_an_immutable_value_with_replace():
    a = Limits(max_depth=5)
    assert a == Limits(max_depth=5) and hash(a) == hash(Limits(max_depth=5)) and a != Limits()
    assert (a.max_bytes, a.max_depth, a.max_nodes, a.max_aliases) == (64 * 1024 * 1024, 5, 1_000_000, 10_000)
    b = a.replace(max_nodes=7)
    assert (b.max_depth, b.max_nodes) == (5, 7) and a.max_nodes == 1_000_000
    with pytest.raises(AttributeError):
        a.max_depth = 6
    with pytest.raises(TypeError):
        a.replace(max_things=1)
    assert repr(a).startswith("Limits(max_bytes=")


FREEZABLE = [
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"x": "1", "on": "yes", "s": "l1\nl2\n"}},
    {"k": [1, 2.5, None, True, "0755", "", {"n": []}, {}]},
    "plain string",
    ["nested", ["list"]],
    {"long": "x" * 300, "multi": "a\n b\n"},
]


@pytest.mark.parametrize("i", range(len(FREEZABLE)))
def test_frozen_items_are_written_exactly_as_the_items_themselves(i):
    item = FREEZABLE[i]
    frozen = yamlio.freeze(item)
    assert isinstance(frozen, yamlio.Frozen) and frozen.text == pyyaml_dump([item])
    for others in ([], [FREEZABLE[0]], FREEZABLE):
        for pos in range(len(others) + 1):
            items = [*others[:pos], item, *others[pos:]]
            data = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items, "results": [{"message": "m"}]}
            with_frozen = {**data, "items": [*others[:pos], frozen, *others[pos:]]}
            assert yamlio.dump(with_frozen) == pyyaml_dump(data)


def test_open_ended_scalars_stay_data_and_frozen_items_are_thawed_around_them():
    keep = {"s": "text\n\n"}  # `|+`: alone, the emitter ends the document with `...`
    assert yamlio.freeze(keep) is keep
    frozen = yamlio.freeze(FREEZABLE[0])
    data = {"items": [frozen, FREEZABLE[1], keep]}
    assert yamlio.dump(data) == pyyaml_dump({"items": [FREEZABLE[0], FREEZABLE[1], keep]})
