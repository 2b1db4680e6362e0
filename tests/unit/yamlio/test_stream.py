"""kpt_fn.yamlio.stream: the output written whole or in pieces, frozen items written as themselves."""

from __future__ import annotations

import pytest
import yaml

from kpt_fn import yamlio
from kpt_fn.yamlio.write import pyyaml_dump

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


def test_long_lines_are_not_folded():
    long = "x " * 200
    assert yamlio.dump({"k": long}).count("\n") == 1


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
