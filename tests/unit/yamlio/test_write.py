"""kpt_fn.yamlio.write writes the same bytes as PyYAML with yamlio's Dumper (the reference), on rendered
manifests and on generated data with every kind of awkward scalar."""

from __future__ import annotations

import pathlib

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kpt_fn.yamlio import write

ROOT = pathlib.Path(__file__).resolve().parents[3]

AWKWARD = ["", " ", "a b", "yes", "No", "on", "null", "~", "true", "0400", "0x1F", "1_000", "1e3", ".inf", "-", "- a",
           "a: b", "#c", "a #c", "'q'", '"d"', "é", "\t", "x\n", "a\nb", "a\n\nb\n", "  lead\nx", "trail \n", "\n",
           "a\n ", "@x", "`x", "%x", "!x", "&x", "*x", "|", ">", "[a]", "{a: 1}", "0_E0", "2024-01-01", "y", "=",
           "\u2028", "\x85", "k" * 200, "a\r\nb", "\ufeffbom"]

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                    st.sampled_from(AWKWARD), st.text(max_size=12))
keys = st.one_of(st.sampled_from(["name", "a b", "yes", "0", "~", "key: x", "-k", "é", "", "k" * 130]), st.text(max_size=8))
data = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)), max_leaves=25)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(keys, data, min_size=1, max_size=5) | st.lists(data, min_size=1, max_size=5))
def test_same_bytes_as_pyyaml(value):
    assert write.block(value) == write.pyyaml_dump(value)


def test_rendered_manifests():
    for path in sorted((ROOT / "fixtures").rglob("expected.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if doc:
                assert write.block(doc) == write.pyyaml_dump(doc), path


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.dictionaries(keys, data, min_size=0, max_size=4) | data, min_size=0, max_size=4))
def test_stream_same_bytes_as_pyyaml(docs):
    assert write.dump_all(docs) == write.pyyaml_dump_all(docs)


def test_rendered_manifests_as_one_stream():
    for path in sorted((ROOT / "fixtures").rglob("expected.yaml")):
        docs = [doc for doc in yaml.safe_load_all(path.read_text()) if doc]
        assert write.dump_all(docs) == write.pyyaml_dump_all(docs), path


_WORDS = ["y", "n", "Y", "N", "yes", "No", "ON", "off", "True", "FALSE", "null", "Null", "NULL", "nan", "inf",
          "e", "x-", "a--b", "a:", "a::b", "http://x", "img@sha256:ab", "E1", "e1", "x_1", "a.b/c:1.0", "/", "-", "-a", "--a", "---a", "-1", "/a:", "k" * 127, "k" * 128]


@settings(max_examples=1000, deadline=None)
@given(st.from_regex(r"[-A-Za-z/.:@0-9][A-Za-z0-9._/:@-]{0,14}", fullmatch=True) | st.from_regex(r"[ -~]{1,6}", fullmatch=True)
       | st.sampled_from(_WORDS))
def test_plain_word_rule_agrees_with_pyyaml(word):
    if write._is_plain_word(word):
        assert write.pyyaml_dump({"k": word}) == f"k: {word}\n"
        assert write.pyyaml_dump({word: None}) == f"{word}: null\n"
    assert write.block({"k": word}) == write.pyyaml_dump({"k": word})
    assert write.block({word: "v"}) == write.pyyaml_dump({word: "v"})


def test_dump_all_starts_every_document():
    assert write.dump_all([{"a": 1}, {"b": 2}]) == "---\na: 1\n---\nb: 2\n"


_VALUE_WORDS = ["19", "0", "-1", "+1", "5e-4", "2e-3", "1e3", "0x1F", "0o17", "0b101", "1_000", "0_E0", "0400", "08",
                "1:20", "190:20:30", "2024-01-01", "2001-12-14t21:59:43.10-05:00", "64Gi", "200m", "1.5", "1.2.3",
                "--lr", "--config", "--a=b", "-o", "--", "---a", "--1", "-_", "_x", "x=1", "output_dir=/w", "a+b",
                "true", "yes", "y", "n", "N", "~", "null", "=", "a=", "+", "1+1", "9" * 30, "/a:b", "a:"]


@settings(max_examples=1500, deadline=None)
@given(st.from_regex(r"[-A-Za-z0-9/_+=.:@]{1,3}[A-Za-z0-9._/:@=+-]{0,10}", fullmatch=True) | st.sampled_from(_VALUE_WORDS))
def test_value_words_are_written_as_pyyaml_writes_them(word):
    """A value of the wider word class is written plain or single-quoted without running PyYAML's
    emitter (_value_text); both have to be its bytes, in a mapping and in a sequence."""
    assert write.block({"k": word}) == write.pyyaml_dump({"k": word})
    assert write.block([word, {"k": word}]) == write.pyyaml_dump([word, {"k": word}])
    assert write.block({"k": [word]}) == write.pyyaml_dump({"k": [word]})
