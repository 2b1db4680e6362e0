"""kpt_fn.yamlio.passthrough: an input item the function does not change goes back as the very text it
came as (the campaigns through kpt and kustomize are tests/behaviour/test_yaml_passthrough.py)."""

from __future__ import annotations

import pytest

from kpt_fn import yamlio
from kpt_fn.yamlio import ItemMarks, PassThrough, Verbatim, item_source

HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
ITEMS = [
    "- apiVersion: v1   # kept\n  kind: ConfigMap\n  metadata: {name: a}\n  data:\n    mode: 0400\n    on: 'yes'\n",
    "# between two items: goes with the first\n",
    "- &x {kind: Secret, metadata: {name: b}}\n",
    "-\n  kind: Job\n  metadata:\n    name: c\n",
]


def read(text):
    marks = ItemMarks()
    rl = yamlio.load_all(text.encode(), yamlio.DEFAULT_LIMITS, marks)[0]
    return rl, item_source(text.encode(), marks)


def test_each_item_is_its_own_text():
    text = HEAD + "items:\n" + "".join(ITEMS) + "functionConfig: {}\n"
    rl, source = read(text)
    assert len(source) == len(rl["items"]) == 3
    assert source.text(0) == ITEMS[0] + ITEMS[1]
    assert source.text(1) == ITEMS[2]
    assert source.text(2) == ITEMS[3]


def test_an_indented_sequence_is_written_at_column_zero():
    text = HEAD + "items:\n  - kind: A\n    metadata:\n      name: a\n  - kind: B\n"
    rl, source = read(text)
    assert [source.text(k) for k in range(len(source))] == ["- kind: A\n  metadata:\n    name: a\n", "- kind: B\n"]


def test_the_last_item_without_a_line_break_gets_one():
    rl, source = read(HEAD + "items:\n- kind: A")
    assert source.text(0) == "- kind: A\n"


@pytest.mark.parametrize("text", [
    HEAD + "items: [{kind: A}, {kind: B}]\n",                          # not a block sequence
    HEAD + "items:\n- &a {kind: A}\n- *a\n",                           # an alias crosses items
    "\ufeff" + HEAD + "items:\n- kind: A\n",                           # a byte order mark
])
def test_where_the_text_cannot_be_trusted_there_is_none(text):
    assert read(text)[1] is None


def test_pass_through_writes_input_items_as_their_text_and_others_as_data():
    text = HEAD + "items:\n" + "".join(ITEMS)
    rl, source = read(text)
    passing = PassThrough(rl["items"], source)
    assert passing.active
    new = {"kind": "ConfigMap", "metadata": {"name": "new"}}
    out = yamlio.dump({**{k: v for k, v in rl.items() if k != "items"},
                       "items": passing.output([rl["items"][0], new, rl["items"][2]])})
    assert ITEMS[0] in out and ITEMS[3] in out and "mode: 0400" in out
    assert "- kind: ConfigMap\n  metadata:\n    name: new\n" in out
    assert yamlio.load(out)["items"][1] == new


def test_an_equal_copy_is_not_the_item():
    rl, source = read(HEAD + "items:\n- {kind: A}\n")
    passing = PassThrough(rl["items"], source)
    copy = dict(rl["items"][0])
    assert yamlio.dump({"items": passing.output([copy])}) == "items:\n- kind: A\n"


def test_without_a_source_or_with_a_mismatch_it_is_off():
    items = [{"kind": "A"}]
    assert not PassThrough(items, None).active
    _, source = read(HEAD + "items:\n- {kind: A}\n- {kind: B}\n")
    assert not PassThrough(items, source).active  # two texts for one item
    assert PassThrough(items, None).output(items) == items


def test_freeze_makes_an_input_item_its_text_once_and_anything_else_frozen():
    rl, source = read(HEAD + "items:\n- {kind: A}  # mine\n")
    passing = PassThrough(rl["items"], source)
    first = passing.freeze(rl["items"][0])
    assert isinstance(first, Verbatim) and first.text == "- {kind: A}  # mine\n"
    again = passing.freeze(rl["items"][0])  # its one position is taken: now it is dumped like any object
    assert isinstance(again, yamlio.Frozen) and again.text == "- kind: A\n"
