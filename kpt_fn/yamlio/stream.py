"""The output stream: a ResourceList (or any top-level mapping) written in pieces, each made when it is
asked for, with list elements that are text already (Written: Frozen output items, Verbatim
pass-through items) written as they are. freeze turns an output item into such text as soon as
nothing needs it as data any more.
"""

from __future__ import annotations

from kpt_fn.yamlio.limits import Limits
from kpt_fn.yamlio.read import load
from kpt_fn.yamlio.write import block, pyyaml_dump


class Written:
    """A list element already written as text (`- ...` at column 0): dump_pieces writes its `text`."""

    __slots__ = ()


def dump(data) -> str:
    """Block YAML: "".join(dump_pieces(data))."""
    return "".join(dump_pieces(data))


class Frozen(Written):
    """A list element already written: exactly the text `pyyaml_dump([element])` makes (`- ...`).

    dump_pieces writes it verbatim where it is an element of a list under a top-level key (the items
    of a ResourceList): an item can be written to text as soon as nothing needs it as data any more.
    The text is held as it is (plain text: docs/benchmarks.md has what compressing it cost and saved)."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self):
        return f"Frozen({self.text[:40]!r}...)"


def freeze(item):
    """`item` as a Frozen list element, or `item` itself where its text could not stand alone (an
    open-ended `|+` scalar at its end makes the emitter close the document with `...`)."""
    text = block([item])
    if text.endswith("\n...\n"):
        return item
    return Frozen(text)


# Frozen text was dumped from checked data: reading it back needs no protection from hostile input.
_THAW_LIMITS = Limits(max_bytes=1 << 62, max_depth=1 << 20, max_nodes=1 << 62, max_aliases=1 << 62)


def _thawed(data):
    """`data` with every Frozen element (of a list under a top-level key) read back into data."""
    if isinstance(data, Written):
        return load(data.text, _THAW_LIMITS)[0]
    if isinstance(data, dict):
        return {k: _thawed(v) if isinstance(v, list) else v for k, v in data.items()}
    if isinstance(data, list) and any(isinstance(x, Written) for x in data):
        return [_thawed(x) if isinstance(x, Written) else x for x in data]
    return data


def dump_pieces(data):
    """Block YAML in pieces, each made when it is asked for: a caller that writes each piece before
    asking for the next never holds the whole text.

    A top-level mapping is written key by key and its lists element by element (the text is the same:
    a list under a top-level key is written unindented): PyYAML builds a node graph of everything it
    dumps at once, and for a ResourceList of thousands of items that graph is many times the size of
    the data itself. Elements of those lists may be Written (Frozen, or passthrough.Verbatim)."""
    if not isinstance(data, dict) or not data:
        yield pyyaml_dump(data)
        return
    # Frozen text is the dump of its data; other Written text (passthrough.Verbatim) is the input's own.
    verbatim = any(isinstance(x, Written) and not isinstance(x, Frozen)
                   for v in data.values() if isinstance(v, list) for x in v)
    written, previous = 0, None
    for piece in _pieces(data):
        if previous is not None:
            yield previous
        if piece.endswith("\n...\n"):
            # An open-ended scalar (`|+`) makes the emitter end the document with `...`, which must
            # not appear between pieces. Without verbatim text among them the pieces are the whole
            # dump's own text: the rest is written from the whole dump, whose beginning has been
            # written already. With verbatim text (kept as it came, comments and all) the whole dump is
            # not the same text and cannot be cut where the pieces stopped: the marker is dropped, as
            # the next piece (at column 0) ends the scalar, blank lines kept, all the same.
            if not verbatim:
                yield pyyaml_dump(_thawed(data))[written:]
                return
            piece = _unended(piece)
        written += len(piece)
        previous = piece
    if previous is not None:
        yield previous


class ListWriter:
    """A top-level mapping written while the list under one of its keys is still being made (the
    ResourceList while its items are rendered): `add` writes, with `write`, the keys before that list
    and its head the first time, then each element it is given; `rest` is the pieces of the remainder.
    The text is dump_pieces' with Verbatim elements among the list's (passthrough.PassThrough active):
    an open-ended scalar's `...` is dropped between pieces. Nothing added: `rest` is dump_pieces."""

    __slots__ = ("_write", "_head", "_key", "started")

    def __init__(self, write, head: dict, key: str):
        self._write = write
        self._head = head  # the keys before `key`, in order
        self._key = key
        self.started = False

    def add(self, elements: list) -> None:
        if not elements:
            return
        write = self._write
        if not self.started:
            for k, v in self._head.items():
                write(_unended(block({k: v})))
            self.started = True
            first = elements[0]
            if isinstance(first, Written):
                write(_list_head(self._key) + _unended(first.text))
            else:
                write(_unended(block({self._key: [first]})))
            elements = elements[1:]
        for x in elements:
            write(_unended(x.text if isinstance(x, Written) else block([x])))

    def rest(self, data: dict):
        """The pieces after what `add` wrote: of `data` (the whole mapping, its list holding only the
        elements not added yet)."""
        if not self.started:
            yield from dump_pieces(data)
            return
        for k, v in data.items():
            if k in self._head:
                continue
            if k == self._key:
                for x in v:
                    yield _unended(x.text if isinstance(x, Written) else block([x]))
                continue
            for piece in _pieces({k: v}):
                yield _unended(piece)


def _unended(piece: str) -> str:
    """`piece` without the `...` an open-ended scalar (`|+`) at its end makes the emitter add: the next
    piece, at column 0, ends the scalar (blank lines kept) all the same."""
    return piece[:-4] if piece.endswith("\n...\n") else piece


_NULL_ITEM = "- null\n"


def _list_head(key) -> str | None:
    """What `key` and a non-empty list under it begin with before the first element's text (`key:\n`),
    or None under a complex key (`? key`, for long or multi-line keys), where the list is indented."""
    text = pyyaml_dump({key: [None]})
    if text.startswith("?") or not text.endswith(_NULL_ITEM):
        return None
    return text[: -len(_NULL_ITEM)]


def _pieces(data: dict):
    for k, v in data.items():
        if isinstance(v, list) and v and (len(v) > 1 or isinstance(v[0], Written)):
            head = _list_head(k)
            if head is not None:
                first = v[0]
                yield head + first.text if isinstance(first, Written) else block({k: v[:1]})
                for x in v[1:]:
                    yield x.text if isinstance(x, Written) else block([x])
                continue
            v = _thawed(v)
        yield block({k: v})

