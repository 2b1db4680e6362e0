"""kpt_fn.yamlio.read: YAML 1.2 reading (the plain-data path and the careful one agree), errors that
name the line."""

from __future__ import annotations

import math

import pytest

from kpt_fn import yamlio
from kpt_fn.yamlio import YAMLInputError
from kpt_fn.yamlio import read as read_mod


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


_DOCUMENT_CASES = [
    "a: 1\n",
    "# a comment\n\n---\na: 1\n---\n# another\n- 1\n- 2\n",
    "---\n---\nb: 2\n",  # an empty document first
    "x\n",  # a scalar document
    "--- !!map\nk: v\n",
    "a: &x 1\nb: *x\n---\nc: [1, 2]\n",
    "\n\n  k: v\n",  # indented root
    "--- |\n  text\n---\nz: 1\n",
    "---\n{a: 1}\n--- [1]\n...\n---\n'q'\n",  # flow roots, an explicit document end
    "a: 1\na: 2\n",  # the careful path (a duplicate key is an error there: no lines)
    "? [a]\n: 1\n",  # the careful path, read
    "\ufeff# bom\na: 1\n",
]


@pytest.mark.parametrize("text", _DOCUMENT_CASES + _PLAIN_CASES)
def test_document_lines_are_where_composing_finds_each_root(text):
    import yaml

    try:
        composed = [n.start_mark.line + 1 for n in yaml.compose_all(text, Loader=yaml.CSafeLoader)]
    except yaml.YAMLError:
        composed = None
    for source in (text, text.encode()):
        lines: list = []
        try:
            docs = yamlio.load_all(source, lines=lines)
        except YAMLInputError:
            continue
        assert len(lines) == len(docs)
        if composed is not None:
            assert lines == composed
