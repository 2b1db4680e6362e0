"""Reading: every YAML or JSON text the function takes in goes through load_all, load or load_json.

Two paths give the same result. Plain data (what kpt and every other writer sends) is built straight
from the parser's events (_load_plain), without a node graph; anything it is not sure of -- aliases,
merge keys, explicit foreign tags, duplicate or non-string-like keys, nesting near the limit, any
error -- goes to the careful path (_load_careful), which composes, checks (kpt_fn.yamlio.limits) and
constructs each document and alone decides errors and their messages. JSON goes through json.loads,
whose recursion is bounded by the interpreter, and is then held to the same limits.

_load_plain only fills the marks object it is handed (kpt_fn.yamlio.passthrough.ItemMarks): where
each item starts, for pass-through.
"""

from __future__ import annotations

import json
import re
from sys import intern

import yaml
from yaml.events import (  # loaded by `import yaml` itself: nothing to save by importing them later
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)

from kpt_fn.yamlio.errors import YAMLInputError
from kpt_fn.yamlio.limits import (
    DEFAULT_LIMITS,
    UTF8_BOM,
    Counts,
    Limits,
    check_graph,
    check_limits,
    decode,
    foreign_tag,
    loader_bounds_nesting,
    may_nest_deeply,
    too_deep,
)
from kpt_fn.yamlio.schema import (
    BOOL,
    CORE_TAGS,
    FLOAT,
    INT,
    KEY_CANON,
    MAP,
    MAX_INT_DIGITS,
    MERGE,
    NULL,
    SEQ,
    STR,
    Loader,
    PyLoader,
    float_1_2,
    int_1_2,
)

_BOOL_VALUES = {"true": True, "false": False}
# Tag -> value of a scalar's text, for the tags a plain document's scalars can have.
_SCALAR_VALUES = {
    NULL: lambda text: None,
    BOOL: lambda text: _BOOL_VALUES[text.lower()],
    INT: int_1_2,
    FLOAT: float_1_2,
}
_KEY_TAGS = frozenset({STR, INT, FLOAT})  # keys whose dict key is their text as written


class _NotPlain(Exception):
    """The stream needs the careful path: foreign tags, deep nesting, anchored keys, an error."""


class _Merge:
    """A `<<` key while its mapping is being read (a new one per key: a mapping may merge twice)."""

    __slots__ = ()


def _merged(mapping: dict, pending: int) -> tuple:
    """`mapping` with its `<<` keys merged as PyYAML's flatten_mapping does (explicit keys win, then
    the first of a list of mappings), and how many `<<` keys are left pending elsewhere."""
    sources = [k for k in mapping if k.__class__ is _Merge]
    if not sources:
        return mapping, pending
    out: dict = {}
    for k in sources:
        v = mapping[k]
        if v.__class__ is dict:
            out.update(v)
        elif v.__class__ is list and all(x.__class__ is dict for x in v):
            for d in reversed(v):
                out.update(d)
        else:
            raise _NotPlain  # the careful path words the error
    for k, v in mapping.items():
        if k.__class__ is not _Merge:
            out[k] = v
    return out, pending - len(sources)


def _expanded_nodes(obj, known: dict) -> int:
    """Nodes `obj` stands for with aliases expanded (`known`: id -> nodes of anchored objects)."""
    total = 0
    stack = [obj]
    top = True
    while stack:
        o = stack.pop()
        if not top and o.__class__ in (dict, list):
            n = known.get(id(o))
            if n is not None:
                total += n
                continue
        top = False
        if o.__class__ is dict:
            total += 1 + len(o)
            stack.extend(o.values())
        elif o.__class__ is list:
            total += 1
            stack.extend(o)
        else:
            total += 1
    return total


def _load_plain(source, limits: Limits, marks=None, lines=None) -> list:
    """Every document of a stream of plain data, built straight from the parser's events.

    Plain data -- only core tags, scalar keys without duplicates, nesting below the depth limit;
    aliases and merge keys included -- is what kpt and every other writer sends, and for it the
    careful path's node graph (about 30 times the size of the text, marks and all), its walk and
    PyYAML's constructor only cost time and memory: this builds the same dicts, lists and scalars in
    one pass over the events, an alias being the very object its anchor made (as PyYAML's constructor
    does). Alias limits (count, nodes and bytes added) are enforced here, as the careful path words
    them. Anything else, valid or not, raises _NotPlain (conservatively: when in doubt, the careful
    path decides), so that every other error message stays exactly the careful path's.

    `marks`, when given, gets where the items of the first document's top-level `items` start;
    `lines`, the line of each document's root (see load_all).
    """
    max_depth = limits.max_depth
    loader = Loader(source)
    try:
        get = loader.get_event
        resolvers = Loader.yaml_implicit_resolvers
        values = _SCALAR_VALUES
        key_canon = KEY_CANON
        counts = Counts()
        anchors: dict = {}  # name -> (object, nodes, bytes of text, item), per document
        open_anchors: set = set()  # of collections not finished yet: an alias to one is recursive
        known: dict = {}  # id(anchored collection) -> nodes it stands for
        pending_merges = 0  # `<<` keys of mappings not finished yet
        respelled: set = set()  # (id(mapping), JSON key) of keys spelt otherwise (`True:`, `~:`)
        docs: list = []
        # (container, pending key, container is a mapping, its anchor) of the enclosing collections
        stack: list = []
        root = cur = key = anchor = None
        root_line = 0
        in_map = False
        item_level = -1  # len(stack) at which the items of marks start
        item = -1  # the item being read, for marks
        while True:
            event = get()
            kind = type(event)
            if kind is ScalarEvent:
                text = event.value
                tag = event.tag
                if tag is None or tag == "!":
                    # Resolver.resolve for a stream without path resolvers.
                    tag = STR
                    if event.implicit[0]:
                        for rtag, regexp in resolvers.get(text[0] if text else "", ()):
                            if regexp.match(text):
                                tag = rtag
                                break
                if tag not in values and tag != STR and tag != MERGE:
                    _drain(get, tag, event.start_mark.line + 1)
                if in_map and key is None:
                    if event.anchor is not None or text in cur:
                        raise _NotPlain  # anchored keys, duplicates
                    if tag == STR:
                        if respelled and (id(cur), text) in respelled:
                            raise _NotPlain
                    elif tag == MERGE:
                        key = _Merge()
                        pending_merges += 1
                        continue
                    else:
                        canon = key_canon[tag](text)  # KeyError: a foreign tag; ValueError: a bad int
                        if canon != text:
                            if canon in cur or (id(cur), canon) in respelled:
                                raise _NotPlain  # the same key to kubectl
                            respelled.add((id(cur), canon))
                        elif respelled and (id(cur), text) in respelled:
                            raise _NotPlain
                    # Keys repeat in every item (apiVersion, metadata, name, ...): one shared string each
                    # instead of one per occurrence is a good part of the parsed input's memory.
                    key = intern(text)
                    continue
                if len(stack) == item_level:
                    marks.starts.append(event.start_mark.index)
                    item += 1
                if tag == STR:
                    # Short values repeat too (kinds, API versions, image and container names).
                    value = intern(text) if len(text) <= 64 else text
                else:
                    value = values[tag](text)  # KeyError: a foreign tag
                if event.anchor is not None:
                    if event.anchor in anchors or event.anchor in open_anchors:
                        raise _NotPlain  # a duplicate anchor is an error to PyYAML
                    anchors[event.anchor] = (value, 1, event.end_mark.index - event.start_mark.index, item)
            elif kind is MappingStartEvent or kind is SequenceStartEvent:
                tag = event.tag
                if (in_map and key is None) or len(stack) + 1 >= max_depth:
                    raise _NotPlain  # a collection as a key; nesting near the limit
                if not (tag is None or tag == "!" or tag == (MAP if kind is MappingStartEvent else SEQ)):
                    if tag not in CORE_TAGS:
                        _drain(get, tag, event.start_mark.line + 1)
                    raise _NotPlain
                depth = len(stack)
                if depth == 0:
                    root_line = event.start_mark.line
                if depth == item_level:
                    marks.starts.append(event.start_mark.index)
                    item += 1
                elif (
                    depth == 1 and marks is not None and key == "items" and not docs
                    and kind is SequenceStartEvent and not event.flow_style and not marks.starts
                ):
                    item_level = 2
                stack.append((cur, key, in_map, anchor))
                anchor = None
                if event.anchor is not None:
                    if event.anchor in anchors or event.anchor in open_anchors:
                        raise _NotPlain
                    anchor = (event.anchor, event.start_mark.index, counts.bytes)
                    open_anchors.add(event.anchor)
                in_map = kind is MappingStartEvent
                cur = {} if in_map else []
                key = None
                continue
            elif kind is MappingEndEvent or kind is SequenceEndEvent:
                value = cur
                if pending_merges and kind is MappingEndEvent:
                    value, pending_merges = _merged(value, pending_merges)
                if anchor is not None:
                    name, start, bytes_before = anchor
                    open_anchors.discard(name)
                    nodes = _expanded_nodes(value, known)
                    known[id(value)] = nodes
                    anchors[name] = (value, nodes, event.end_mark.index - start + counts.bytes - bytes_before, item)
                if len(stack) == item_level:
                    marks.end = event.start_mark.index
                    item_level = item = -1
                cur, key, in_map, anchor = stack.pop()
            elif kind is AliasEvent:
                if in_map and key is None:
                    raise _NotPlain  # an alias as a key
                name = event.anchor
                found = anchors.get(name)
                line = event.start_mark.line + 1
                if found is None:
                    if name in open_anchors:
                        raise YAMLInputError("recursive alias", line)
                    raise _NotPlain  # undefined
                if len(stack) == item_level:
                    marks.starts.append(event.start_mark.index)
                    item += 1
                value, nodes, size, where = found
                counts.alias(nodes, size, limits, line)
                if where != item and marks is not None:
                    marks.ok = False  # an item whose text needs another's anchor
            elif kind is DocumentStartEvent or kind is StreamStartEvent:
                continue
            elif kind is DocumentEndEvent:
                docs.append(root)
                if lines is not None:
                    lines.append(root_line + 1)
                root = None
                anchors, known = {}, {}
                continue
            elif kind is StreamEndEvent:
                return docs
            else:
                raise _NotPlain
            if cur is None:
                root = value
                if kind is ScalarEvent or kind is AliasEvent:  # a collection's line is its start's
                    root_line = event.start_mark.line
            elif in_map:
                cur[key] = value
                key = None
            else:
                cur.append(value)
    except YAMLInputError:
        raise
    except yaml.MarkedYAMLError as e:
        if not loader_bounds_nesting():
            raise _NotPlain from None  # the careful path may read with another parser
        # A syntax error: the careful path would meet it the same way, after holding all before it.
        raise _marked_error(e, limits) from None
    except Exception:
        raise _NotPlain from None
    finally:
        loader.dispose()


def _drain(get, tag: str, line: int):
    """A foreign tag at `line`: the error, unless a syntax error comes first before the document ends
    (the careful path composes the whole document before it looks at tags). Raises either way."""
    if tag in CORE_TAGS:
        raise _NotPlain  # a core tag where it does not fit: the careful path words it
    while not isinstance(get(), (DocumentEndEvent, StreamEndEvent)):
        pass
    raise foreign_tag(tag, line)


def load_all(text: str | bytes, limits: Limits = DEFAULT_LIMITS, marks=None, lines=None) -> list:
    """Every document of a YAML stream, checked against `limits`. Raises YAMLInputError.

    `marks`, when given, gets where the top-level `items` of the first document start in the text
    (for pass-through: see `item_texts`); left empty when the careful path had to read the stream.
    `lines`, when given (a list), gets the 1-based line where each document's root starts, one per
    document returned: the line kpt_fn.lines would find for the whole object by composing the text
    again, known here for nothing."""
    source = decode(text, limits)
    if isinstance(text, bytes) and not text.startswith(UTF8_BOM):
        # The parser reads the bytes as they are (UTF-8 was just checked), so the decoded copy need
        # not live while parsing; a BOM is left to the decoded text.
        source = text
    try:
        # Its own list: a stream the careful path ends up reading must not leave half its lines.
        found = [] if lines is not None else None
        docs = _load_plain(source, limits, marks, found)
        if lines is not None:
            lines.extend(found)
        return docs
    except _NotPlain:
        pass
    if marks is not None:
        marks.starts, marks.end, marks.ok = [], None, False
    return _load_careful(decode(text, limits), limits, lines)


def _marked_error(e: yaml.MarkedYAMLError, limits: Limits) -> YAMLInputError:
    mark = e.problem_mark or e.context_mark
    msg = " ".join(x for x in (e.context, e.problem) if x) or str(e)
    line = mark.line + 1 if mark else None
    if "maximum nesting depth" in msg:  # libyaml's own limit of 1000 levels
        if limits.max_depth < 1000:
            return too_deep(limits, line)
        return YAMLInputError("nesting deeper than the YAML parser's limit of 1000 levels", line, "max_depth")
    return YAMLInputError(msg, line)




def _load_careful(text: str, limits: Limits, lines=None) -> list:
    """load_all for any stream: compose each document, check its node graph, then construct it."""
    cls = Loader if loader_bounds_nesting() or not may_nest_deeply(text) else PyLoader
    loader = cls(text)
    counts = Counts()
    docs = []
    try:
        while loader.check_node():
            node = loader.get_node()
            check_graph(node, limits, counts)
            docs.append(loader.construct_document(node))
            if lines is not None:
                lines.append(node.start_mark.line + 1)
    except YAMLInputError:
        raise
    except yaml.reader.ReaderError as e:
        line = text.count("\n", 0, e.position) + 1 if isinstance(e.position, int) else None
        char = e.character if isinstance(e.character, int) else ord(e.character[:1] or "\0")
        raise YAMLInputError(f"unacceptable character #x{char:04x}: {e.reason}", line) from None
    except yaml.MarkedYAMLError as e:
        raise _marked_error(e, limits) from None
    except yaml.YAMLError as e:
        raise YAMLInputError(str(e)) from None
    except RecursionError:
        raise too_deep(limits) from None
    except (ValueError, TypeError, KeyError, OverflowError):
        # A core tag on a value it cannot hold (`!!int abc`, `!!bool maybe`). The value is not
        # repeated: it may be a secret (a `secretSeed: !!int ...`), and which one is not known here.
        raise YAMLInputError("invalid value for its tag (a core tag such as !!int, !!float or !!bool on a value it cannot hold; the value is not shown)") from None
    finally:
        loader.dispose()
    return docs



class _JSONProblem(ValueError):
    pass


def _json_object(pairs):
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise _JSONProblem(f"duplicate key {k!r}")
        obj[k] = v
    return obj


def _json_int(text: str) -> int:
    if len(text) > MAX_INT_DIGITS:
        raise _JSONProblem(f"integer of {len(text)} digits is too large (at most {MAX_INT_DIGITS})")
    return int_1_2(text)  # as go-yaml reads the same number (kpt and kustomize read JSON as YAML)


def _json_constant(name: str):
    raise _JSONProblem(f"{name} is not a JSON value")


_SURROGATE_ESCAPE = r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}"  # compiled on first use


def load_json(text: str | bytes, limits: Limits = DEFAULT_LIMITS):
    """One JSON value, held to the same rules as YAML (no duplicate keys, depth). Raises YAMLInputError."""
    text = decode(text, limits)
    try:
        doc = json.loads(text, object_pairs_hook=_json_object, parse_int=_json_int, parse_constant=_json_constant)
    except _JSONProblem as e:
        raise YAMLInputError(str(e)) from None
    except json.JSONDecodeError as e:
        raise YAMLInputError(f"{e.msg} (column {e.colno})", e.lineno) from None
    except RecursionError:
        raise too_deep(limits) from None
    check_limits(doc, limits)
    if re.search(_SURROGATE_ESCAPE, text):
        # json.loads pairs surrogate escapes where it can and keeps lone ones, which no UTF-8 writer
        # (nor YAML) can represent.
        try:
            json.dumps(doc, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise YAMLInputError("a string holds an unpaired UTF-16 surrogate escape (\\uD800-\\uDFFF)") from None
    return doc


def load(text: str | bytes, limits: Limits = DEFAULT_LIMITS):
    docs = load_all(text, limits)
    if len(docs) != 1:
        raise YAMLInputError(f"expected one YAML document, found {len(docs)}")
    return docs[0]

