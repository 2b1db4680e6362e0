"""Pass-through: an input item the function does not change goes back as the very text it came as, so
that kpt or kustomize, parsing it again, gets the node it sent (same quoting, flow style, anchors,
comments, key spelling, `0400`). The whole idea in one room: where each item's text is (ItemMarks,
filled by kpt_fn.yamlio.read; item_source), the texts held until written (ItemSource, Verbatim), and
which output elements are input items (PassThrough).
"""

from __future__ import annotations

from kpt_fn.yamlio.limits import UTF8_BOM
from kpt_fn.yamlio.stream import Written, freeze


class ItemMarks:
    """Where each item of a ResourceList's `items` (a block sequence in the first document) starts in
    the source text (character offsets), and where the sequence ends: what pass-through needs
    (see item_source). `ok` is False when an alias in one item refers to an anchor outside it, so
    that no item's text stands alone."""

    __slots__ = ("starts", "end", "ok")

    def __init__(self):
        self.starts: list[int] = []
        self.end: int | None = None
        self.ok = True



class Verbatim(Written):
    """A list element written exactly as given: item `k` of an ItemSource, its input item's own text,
    as a `- ...` element at column 0 like a Frozen one; dump_pieces writes it where it writes Frozen
    ones. The text is cut from the source only when it is written."""

    __slots__ = ("_source", "_k")

    def __init__(self, source: "ItemSource", k: int):
        self._source = source
        self._k = k

    @property
    def text(self) -> str:
        return self._source.text(self._k)

    def __repr__(self):
        return f"Verbatim({self.text[:40]!r}...)"


class ItemSource:
    """The source text of each item of a ResourceList (pass-through: an item the function does not
    change goes back as the very text it came as, so that kpt or kustomize, parsing it again, gets
    the node it sent: same quoting, flow style, anchors, comments, key spelling, `0400`).

    An item's text runs from the start of the line of its `-` to the start of the line of the next
    item's `-` (comments and blank lines between two items go with the first; kpt writes an item's
    head comments after its `-`). Held as the input itself (bytes while they are ASCII) plus offsets."""

    __slots__ = ("_source", "_bounds", "_indent")

    def __init__(self, source, bounds: list, indent: int):
        self._source = source
        self._bounds = bounds
        self._indent = indent

    def __len__(self) -> int:
        return len(self._bounds) - 1

    def text(self, k: int) -> str:
        chunk = self._source[self._bounds[k] : self._bounds[k + 1]]
        if isinstance(chunk, bytes):
            chunk = chunk.decode("ascii")
        if not chunk.endswith("\n"):
            chunk += "\n"
        if self._indent:
            # Written at column 0 like every other element; lines with less indentation than the
            # sequence (blank lines, comments) lose what they have.
            n = self._indent
            chunk = "\n".join(line[min(n, len(line) - len(line.lstrip(" "))) :] for line in chunk.split("\n"))
        return chunk

    def verbatim(self, k: int) -> Verbatim:
        return Verbatim(self, k)


def _dash_line(text, start: int, nl, is_bytes: bool) -> tuple | None:
    """(offset of the line that holds the `-` of the sequence entry whose node starts at `start`, the
    `-`'s column), or None if the text before `start` is not what a block sequence entry looks like."""
    dash, hashmark, spaces, blanks = (b"-", b"#", b" ", b" \t\r") if is_bytes else ("-", "#", " ", " \t\r")
    line_start = text.rfind(nl, 0, start) + 1
    head = text[line_start:start]
    first = True
    while True:
        body = head.lstrip(spaces)
        if body[:1] == dash:
            rest = body[1:]
            if rest[:1] not in (b"", b" ", b"\t", b"\r") if is_bytes else rest[:1] not in ("", " ", "\t", "\r"):
                return None
            rest = rest.strip(blanks)
            if rest and not (not first and rest[:1] == hashmark):
                return None
            return line_start, len(head) - len(body)
        if body.strip(blanks) and not (not first and body[:1] == hashmark):
            return None
        # The node starts on a later line than its `-`: only blank and comment lines between.
        if line_start == 0:
            return None
        end = line_start - 1
        line_start = text.rfind(nl, 0, end) + 1
        head = text[line_start:end]
        first = False


def item_source(source, marks: ItemMarks) -> ItemSource | None:
    """Each item's text in `source` (what load_all parsed, as given) from `marks`, or None where
    pass-through cannot be trusted: the careful path read the stream, `items` is not a block
    sequence, an alias crosses items, or the text around an item is not what its marks say."""
    if not marks.ok or marks.end is None:
        return None
    is_bytes = isinstance(source, (bytes, bytearray))
    if is_bytes and source.startswith(UTF8_BOM):
        return None
    if is_bytes and not source.isascii():
        source = source.decode("utf-8")  # marks count characters
        is_bytes = False
    elif not is_bytes and source.startswith("\ufeff"):
        return None
    nl = b"\n" if is_bytes else "\n"
    bounds = []
    indent = None
    for start in marks.starts:
        found = _dash_line(source, start, nl, is_bytes)
        if found is None or (indent is not None and found[1] != indent):
            return None
        if bounds and found[0] <= bounds[-1]:
            return None
        bounds.append(found[0])
        indent = found[1]
    end = marks.end
    end_line = source.rfind(nl, 0, end) + 1
    tail = source[end_line:end]
    if tail.strip():
        if source[end:].strip():
            return None
        end_line = len(source)  # the last item ends the text, without a line break
    if bounds and end_line < bounds[-1]:
        return None
    bounds.append(end_line)
    return ItemSource(source, bounds, indent or 0)


class PassThrough:
    """Input items written back as their own source text (ItemSource).

    An output element that *is* an input item (the same object: the function never changes an input
    item, it replaces or adds) is written as that item's text. Items are told apart by identity, in
    order (one object may stand at two positions through an alias)."""

    __slots__ = ("_source", "_positions")

    def __init__(self, items: list, source):
        self._source = source if source is not None and len(source) == len(items) else None
        # id -> (the item, its positions not written yet): holding the item keeps its id its own
        self._positions: dict[int, tuple] = {}
        if self._source is not None:
            for k, item in enumerate(items):
                entry = self._positions.setdefault(id(item), (item, []))
                entry[1].append(k)

    @property
    def active(self) -> bool:
        """Whether input items are written as their own text (else as their data)."""
        return self._source is not None

    def _take(self, obj):
        entry = self._positions.get(id(obj))
        if entry is None or entry[0] is not obj:
            return None
        k = entry[1].pop(0)
        if not entry[1]:
            del self._positions[id(obj)]
        return self._source.verbatim(k)

    def freeze(self, obj):
        """freeze for function.run: an input item becomes its own text, anything else is dumped."""
        written = self._take(obj)
        return written if written is not None else freeze(obj)

    def output(self, items: list) -> list:
        if not self._positions:
            return items
        out = []
        for x in items:
            written = self._take(x)
            out.append(x if written is None else written)
        return out
