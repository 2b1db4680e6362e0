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
