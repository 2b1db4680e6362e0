"""Limits on hostile input, checked before any Python object is built: size and encoding on the bytes;
nesting depth, alias expansion, duplicate keys and tags on the composed node graph (check_graph) or on
data already loaded (check_limits). Only the JSON-compatible core tags are accepted (str, int, float,
bool, null, map, seq and `<<` merge keys): `!!python/...`, `!!binary`, `!!set`, `!!timestamp`, local
tags such as `!foo` are errors, so nothing but plain data ever comes out of a document.

Deep nesting never reaches a recursion the interpreter cannot catch. libyaml's own parser stops at
1000 levels in the version PyYAML's wheels bundle; with a libyaml that does not (older system builds),
PyYAML's C composer would recurse once per level in C, so a cheap pre-scan (may_nest_deeply) bounds
the nesting a text can have and sends anything that might nest deeper than _SCAN_DEPTH to the
pure-Python loader, whose recursion is bounded by the interpreter.
"""

from __future__ import annotations

import functools
import re

import yaml

from kpt_fn.yamlio.errors import YAMLInputError
from kpt_fn.yamlio.schema import CORE, CORE_TAGS, MERGE, Loader, key_canon

UTF8_BOM = b"\xef\xbb\xbf"


class Limits:
    """Parsing limits; immutable. A plain slotted class: the `dataclasses` import (it pulls in
    `inspect`) cost a noticeable part of every start-up."""

    __slots__ = ("max_bytes", "max_depth", "max_nodes", "max_aliases", "max_alias_bytes")
    _FIELDS = __slots__

    def __init__(
        self,
        max_bytes: int = 64 * 1024 * 1024,
        max_depth: int = 100,
        # Nodes a stream may expand to through aliases (beyond the nodes it holds without them): stops
        # "billion laughs" documents that are tiny on disk but explode in anything that copies or
        # re-serialises them.
        max_nodes: int = 1_000_000,
        max_aliases: int = 10_000,
        # Bytes of source text aliases repeat: a node count cannot see one long scalar aliased a
        # thousand times, which is a gigabyte in anything that writes the data out.
        max_alias_bytes: int = 16 * 1024 * 1024,
    ):
        set_ = object.__setattr__
        set_(self, "max_bytes", max_bytes)
        set_(self, "max_depth", max_depth)
        set_(self, "max_nodes", max_nodes)
        set_(self, "max_aliases", max_aliases)
        set_(self, "max_alias_bytes", max_alias_bytes)

    def _values(self) -> tuple:
        return (self.max_bytes, self.max_depth, self.max_nodes, self.max_aliases, self.max_alias_bytes)

    def replace(self, **changes) -> Limits:
        """A copy with some fields changed (what dataclasses.replace did)."""
        unknown = set(changes) - set(self._FIELDS)
        if unknown:
            raise TypeError(f"Limits has no field {sorted(unknown)[0]!r}")
        return Limits(**{**dict(zip(self._FIELDS, self._values())), **changes})

    def __setattr__(self, name, value):
        raise AttributeError(f"Limits is immutable: cannot set {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"Limits is immutable: cannot delete {name!r}")

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self):
        return hash(self._values())

    def __repr__(self):
        return "Limits(" + ", ".join(f"{k}={v!r}" for k, v in zip(self._FIELDS, self._values())) + ")"


DEFAULT_LIMITS = Limits()



def _short_tag(tag: str) -> str:
    return "!!" + tag[len(CORE) :] if tag.startswith(CORE) else tag


def too_deep(limits: Limits, line: int | None = None, where: str = "") -> YAMLInputError:
    """`where`: the field path the nesting goes too deep under (deep_path), when known."""
    under = f" under {where}" if where else ""
    return YAMLInputError(f"nesting deeper than {limits.max_depth} levels (maxDepth){under}", line, "max_depth")


# The segments of a too-deep path a message shows: the fields a person recognises are the first ones.
SHOWN_SEGMENTS = 6


def deep_path(root, max_depth: int) -> str:
    """The field path (`spec.trainer.extra.a…`) from the document's root to the first value more than
    `max_depth` levels deep, its first SHOWN_SEGMENTS segments; "" when there is none. `root` is a
    composed node or loaded data. Iterative, with parent links: called only for an error."""
    trail: list = []  # (parent's entry in trail or -1, segment)
    stack = [(root, 1, -1)]
    seen: set[int] = set()
    while stack:
        value, depth, at = stack.pop()
        if depth > max_depth:
            segments = []
            while at >= 0:
                at, segment = trail[at]
                segments.append(segment)
            segments.reverse()
            text = "".join(f"[{x}]" if isinstance(x, int) else ("." if i else "") + str(x)
                           for i, x in enumerate(segments[:SHOWN_SEGMENTS]))
            return text + ("…" if len(segments) > SHOWN_SEGMENTS else "")
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, yaml.MappingNode):
            pairs = [(k.value if isinstance(k, yaml.ScalarNode) else "?", v) for k, v in value.value]
        elif isinstance(value, yaml.SequenceNode):
            pairs = list(enumerate(value.value))
        elif isinstance(value, dict):
            pairs = list(value.items())
        elif isinstance(value, list):
            pairs = list(enumerate(value))
        else:
            continue
        for segment, child in pairs:
            trail.append((at, segment))
            stack.append((child, depth + 1, len(trail) - 1))
    return ""


def _too_big(limits: Limits, line: int | None = None) -> YAMLInputError:
    return YAMLInputError(
        f"document expands to more than {limits.max_nodes} nodes through aliases (maxAliasNodes)", line, "max_nodes"
    )


def _too_long(limits: Limits, line: int | None = None) -> YAMLInputError:
    return YAMLInputError(
        f"aliases repeat more than {limits.max_alias_bytes} bytes of text (maxAliasBytes)", line, "max_alias_bytes"
    )


def _too_many_aliases(limits: Limits, line: int | None = None) -> YAMLInputError:
    return YAMLInputError(f"more than {limits.max_aliases} aliases", line, "max_aliases")


class Counts:
    """What aliases add, over the documents of one stream: alias expansion is limited per stream, and
    only by what the aliases add (a big stream with one alias is as big as it is)."""

    __slots__ = ("nodes", "bytes", "aliases")

    def __init__(self):
        self.nodes = 0
        self.bytes = 0
        self.aliases = 0

    def alias(self, nodes: int, size: int, limits: Limits, line: int | None) -> None:
        self.aliases += 1
        if self.aliases > limits.max_aliases:
            raise _too_many_aliases(limits, line)
        self.nodes += nodes
        if self.nodes > limits.max_nodes:
            raise _too_big(limits, line)
        self.bytes += size
        if self.bytes > limits.max_alias_bytes:
            raise _too_long(limits, line)


def check_graph(root, limits: Limits, counts: Counts) -> None:
    """Tags, depth, alias expansion (nodes, bytes, count) and duplicate keys of one composed document,
    iteratively."""
    expanded: dict[int, tuple] = {}  # node id -> (nodes, bytes) it stands for, aliases expanded
    seen_ids: set[int] = set()
    # Post-order walk with an explicit stack so hostile nesting cannot exhaust the Python stack.
    stack = [(root, 1, None)]
    while stack:
        node, depth, done = stack.pop()
        nid = id(node)
        if done is not None:
            added_nodes, added_bytes = done
            if isinstance(node, yaml.MappingNode):
                size = 1 + sum(expanded[id(k)][0] + expanded[id(v)][0] for k, v in node.value)
            else:
                size = 1 + sum(expanded[id(v)][0] for v in node.value)
            text = node.end_mark.index - node.start_mark.index
            expanded[nid] = (size, text + counts.bytes - added_bytes)
            continue
        if nid in seen_ids:
            if nid not in expanded:
                # Seen but not finished: a node that contains itself.
                raise YAMLInputError("recursive alias", node.start_mark.line + 1)
            counts.alias(*expanded[nid], limits, node.start_mark.line + 1)
            continue
        seen_ids.add(nid)
        if node.tag not in CORE_TAGS:
            # Checked before anything is constructed: no constructor ever runs for a foreign tag.
            raise foreign_tag(node.tag, node.start_mark.line + 1)
        if depth > limits.max_depth:
            raise too_deep(limits, node.start_mark.line + 1, deep_path(root, limits.max_depth))
        if isinstance(node, yaml.ScalarNode):
            expanded[nid] = (1, node.end_mark.index - node.start_mark.index)
            continue
        stack.append((node, depth, (counts.nodes, counts.bytes)))
        if isinstance(node, yaml.MappingNode):
            texts: set[str] = set()
            canons: dict[str, str] = {}  # JSON key -> the key's text
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and k.tag != MERGE:
                    if k.value in texts:
                        raise YAMLInputError(f"duplicate key {k.value!r}", k.start_mark.line + 1)
                    texts.add(k.value)
                    try:
                        canon = key_canon(k.tag, k.value)
                    except ValueError:
                        canon = k.value  # its constructor reports it
                    first = canons.setdefault(canon, k.value)
                    if first != k.value:
                        raise _same_key_error(first, k.value, canon, k.start_mark.line + 1)
                elif not isinstance(k, yaml.ScalarNode):
                    raise YAMLInputError("mapping keys must be scalars", k.start_mark.line + 1)
                stack.append((k, depth + 1, None))
                stack.append((v, depth + 1, None))
        else:
            for v in node.value:
                stack.append((v, depth + 1, None))


def check_limits(doc, limits: Limits = DEFAULT_LIMITS) -> None:
    """Depth and alias expansion of data already loaded (shared sub-objects are what aliases became).

    For JSON, which json.loads parses without limits of its own, and to hold data parsed under one set
    of limits to a stricter one. Raises YAMLInputError.
    """
    measured: dict[int, tuple[int, int]] = {}  # id -> (height, expanded size)
    open_ids: set[int] = set()  # started, not finished: meeting one again is a cycle
    composed = 0
    stack = [(doc, 1, None)]
    while stack:
        obj, depth, children = stack.pop()
        if children is not None:
            height, size = 1, 1 + (len(obj) if isinstance(obj, dict) else 0)
            for c in children:
                if isinstance(c, (dict, list)):
                    h, n = measured[id(c)]
                    height = max(height, h + 1)
                    size += n
                else:
                    size += 1
            measured[id(obj)] = (height, size)
            open_ids.discard(id(obj))
            if size - composed > limits.max_nodes:  # what shared objects (aliases) add
                raise _too_big(limits)
            continue
        if not isinstance(obj, (dict, list)):
            continue
        oid = id(obj)
        if oid in measured:
            if depth + measured[oid][0] - 1 > limits.max_depth:
                raise too_deep(limits, where=deep_path(doc, limits.max_depth))
            continue
        if oid in open_ids:
            raise YAMLInputError("recursive data")
        if depth > limits.max_depth:
            raise too_deep(limits, where=deep_path(doc, limits.max_depth))
        open_ids.add(oid)
        kids = list(obj.values()) if isinstance(obj, dict) else obj
        composed += 1 + (len(obj) if isinstance(obj, dict) else 0)
        stack.append((obj, depth, kids))
        for c in kids:
            if isinstance(c, (dict, list)):
                stack.append((c, depth + 1, None))
            else:
                composed += 1


# Above this many levels the pre-scan sends text to the pure-Python loader (see the module docstring).
_SCAN_DEPTH = 300
# A line whose indentation plus compact block indicators ("- ", "? ", ": ") is _SCAN_DEPTH long: block
# collections nest only by moving right, at most two levels per column.
# Compiled on first use (re's cache): only a text deep enough to need the scan gets here.
_DEEP_INDENT = r"(?m)^(?:[ \t]|[-?:](?=[ \t]))" + "{%d}" % _SCAN_DEPTH
_BRACKET = r"[\[\]{}]"


def may_nest_deeply(text: str) -> bool:
    """False only when `text` cannot nest deeper than about 3 * _SCAN_DEPTH levels.

    Quotes and comments are ignored, so brackets inside strings can only make the answer True.
    """
    if re.search(_DEEP_INDENT, text):
        return True
    if text.count("[") + text.count("{") <= _SCAN_DEPTH:
        return False
    level = 0
    for m in re.finditer(_BRACKET, text):
        if m.group() in "[{":
            level += 1
            if level > _SCAN_DEPTH:
                return True
        elif level:
            level -= 1
    return False


@functools.cache
def loader_bounds_nesting() -> bool:
    """Whether Loader itself turns any nesting into an error rather than a C stack overflow."""
    if not issubclass(Loader, getattr(yaml, "CParser", ())):
        return True  # pure Python: recursion is bounded by the interpreter
    # 1100 levels are harmless even for a C composer without a limit of its own.
    probe = Loader("[" * 1100 + "]" * 1100)
    try:
        probe.get_single_node()
    except yaml.YAMLError:
        return True
    finally:
        probe.dispose()
    return False


def decode(text: str | bytes, limits: Limits) -> str:
    if isinstance(text, bytes):
        if len(text) > limits.max_bytes:
            raise YAMLInputError(
                f"input is {len(text)} bytes, more than the limit of {limits.max_bytes} (maxInputBytes)", None, "max_bytes"
            )
        if text[:2] in (b"\xff\xfe", b"\xfe\xff"):
            raise YAMLInputError("input is UTF-16 (or UTF-32) text: expected UTF-8")
        try:
            return text.decode("utf-8")
        except UnicodeDecodeError as e:
            line = text.count(b"\n", 0, e.start) + 1
            raise YAMLInputError(f"input is not UTF-8 text: invalid byte 0x{text[e.start]:02x} at offset {e.start}", line) from None
    if len(text) > limits.max_bytes:
        raise YAMLInputError(
            f"input is {len(text)} characters, more than the limit of {limits.max_bytes} (maxInputBytes)", None, "max_bytes"
        )
    return text



def _same_key_error(first: str, second: str, canon: str, line: int | None) -> "YAMLInputError":
    return YAMLInputError(
        f"keys {first!r} and {second!r} are the same key {canon!r} to kubectl and Argo CD (go-yaml v2); "
        "write it once (quote a key that is meant as text)",
        line,
    )



def foreign_tag(tag: str, line: int) -> YAMLInputError:
    return YAMLInputError(
        f"unsupported YAML tag {_short_tag(tag)!r}: only plain data is accepted "
        "(!!str, !!int, !!float, !!bool, !!null, !!map, !!seq)",
        line,
    )

