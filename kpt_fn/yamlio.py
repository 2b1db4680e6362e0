"""YAML that means the same thing to every reader in the pipeline.

kpt and kustomize speak YAML 1.2, PyYAML speaks 1.1 and Argo CD reads with a 1.1 parser that also takes
y/n as booleans. Reading with the 1.2 core schema keeps `on`, `yes`, `2024-01-01` and `0755`-style
scalars that kpt sends unquoted as the strings they are; dumping quotes every string that *any* of
those readers would take for something else (krm-clients.md §5.4).

Loading is also where hostile input is stopped, before any Python object is built: size and encoding
on the bytes; nesting depth, alias expansion, duplicate keys and tags on the composed node graph. Only
the JSON-compatible core tags are accepted (str, int, float, bool, null, map, seq and `<<` merge keys):
`!!python/...`, `!!binary`, `!!set`, `!!timestamp`, local tags such as `!foo` are errors, so nothing but
plain data ever comes out of a document.

Two paths give the same result. Plain data (what kpt and every other writer sends) is built straight
from the parser's events (_load_plain), without a node graph; anything it is not sure of -- aliases,
merge keys, explicit foreign tags, duplicate or non-string-like keys, nesting near the limit, any
error -- goes to the careful path (_load_careful), which composes, checks and constructs each document
and alone decides errors and their messages.

Deep nesting never reaches a recursion the interpreter cannot catch. libyaml's own parser stops at
1000 levels in the version PyYAML's wheels bundle; with a libyaml that does not (older system builds),
PyYAML's C composer would recurse once per level in C, so a cheap pre-scan bounds the nesting a text
can have and sends anything that might nest deeper than _SCAN_DEPTH to the pure-Python loader, whose
recursion is bounded by the interpreter (RecursionError becomes a YAMLInputError). JSON goes through
json.loads, whose recursion is bounded the same way, and is then held to the same limits.
"""

from __future__ import annotations

import functools
import json
import re
from sys import intern

import yaml

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BaseDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_1_1_ONLY = {
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:timestamp",
    "tag:yaml.org,2002:value",
}


def _without(resolvers: dict, tags: set) -> dict:
    return {ch: [(tag, rx) for tag, rx in lst if tag not in tags] for ch, lst in resolvers.items()}


def _add(resolvers: dict, tag: str, regexp: re.Pattern, first: str) -> None:
    for ch in first:
        resolvers.setdefault(ch, []).append((tag, regexp))


_BOOL_1_2 = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
# Numbers as go-yaml (v2 and v3 alike: kpt, kustomize, kubectl, Argo CD) reads them: a scalar that
# starts with a sign or a digit is a number if it is one once every "_" is dropped, with Go's prefixes
# 0x, 0o, 0b and the YAML 1.1 octal 0777 (so `defaultMode: 0400` is 256 to every Go client); one that
# starts with "." is a float only as written (.5, .5e3). `_*` between the characters is "underscores
# anywhere".
_INT_GO = re.compile(
    r"^(?=[-+0-9])[-+]?_*(?:0_*[xX]_*(?:[0-9a-fA-F]_*)+|0_*[oO]_*(?:[0-7]_*)+|0_*[bB]_*(?:[01]_*)+|(?:[0-9]_*)+)$"
)
_FLOAT_GO = re.compile(
    r"^(?:(?=[-+0-9])[-+]?_*(?:\.(?:[0-9]_*)+|(?:[0-9]_*)+(?:\._*(?:[0-9]_*)*)?)(?:[eE]_*[-+]?_*(?:[0-9]_*)+)?"
    r"|\.[0-9]+(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_DIGITS = "-+0123456789."
_INT64_MIN, _UINT64_MAX = -(1 << 63), (1 << 64) - 1


# Integers longer than this are refused: Python cannot print back a decimal of more than 4300 digits
# by default, and no Kubernetes field holds one.
MAX_INT_DIGITS = 1000


class Loader(_BaseLoader):
    """Safe loader with the YAML 1.2 core schema (no 1.1 booleans, sexagesimals or timestamps)."""

    yaml_implicit_resolvers = _without(_BaseLoader.yaml_implicit_resolvers, _1_1_ONLY)


class PyLoader(yaml.SafeLoader):
    """The same loader in pure Python, for text that might nest deeper than the C composer can take."""

    yaml_implicit_resolvers = _without(yaml.SafeLoader.yaml_implicit_resolvers, _1_1_ONLY)


def _int_1_2(text: str):
    """The number go-yaml reads from a scalar _INT_GO matches. Raises ValueError (also for more than
    MAX_INT_DIGITS characters).

    Where Go gives up on an integer, the result follows it too: a prefixed number beyond 64 bits stays
    the string it is, a 0777-style one beyond 64 bits is read as the decimal float Go falls back to.
    `08` and `09` (not octal) are the integers 8 and 9 (Go: the floats 8.0 and 9.0, the same number)."""
    if len(text) > MAX_INT_DIGITS:
        raise ValueError(f"integer of {len(text)} digits is too large (at most {MAX_INT_DIGITS})")
    plain = text.replace("_", "")
    body = plain.lstrip("+-")
    sign = -1 if plain[0] == "-" else 1
    prefix = body[:2].lower()
    if prefix in ("0x", "0o", "0b"):
        value = sign * int(body[2:], {"x": 16, "o": 8, "b": 2}[prefix[1]])
        return value if _INT64_MIN <= value <= _UINT64_MAX else text
    if len(body) > 1 and body[0] == "0" and body.isdigit() and "8" not in body and "9" not in body:
        value = sign * int(body, 8)
        return value if _INT64_MIN <= value <= _UINT64_MAX else float(plain)
    return sign * int(body)


def _float_1_2(text: str) -> float:
    low = text.lower()
    if low.endswith(".inf"):
        return float("-inf") if low.startswith("-") else float("inf")
    if low.endswith(".nan"):
        return float("nan")
    return float(text.replace("_", ""))


def _construct_int_1_2(loader, node):
    text = loader.construct_scalar(node)
    if len(text) > MAX_INT_DIGITS:
        raise yaml.constructor.ConstructorError(
            None, None, f"integer of {len(text)} digits is too large (at most {MAX_INT_DIGITS})", node.start_mark
        )
    return _int_1_2(text)


def _construct_float_1_2(loader, node):
    return _float_1_2(loader.construct_scalar(node))


def _construct_mapping(loader, node, deep=False):
    """Mappings with string keys only, each key the text it is written as: `True:`, `~:` or `0x1F:`
    stay "True", "~" and "0x1F", as kpt and kustomize (which keep a key's text) read them.

    Kubernetes objects are JSON, whose keys are strings; a Python int or bool key would also break
    validation and dumping. Keys that kubectl and Argo CD (go-yaml v2, then JSON) would read as the same
    key (`true` and `True`) are refused by _check_graph before anything is constructed.
    """
    if isinstance(node, yaml.MappingNode):
        loader.flatten_mapping(node)
    mapping = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if not isinstance(key, str) or key_node.tag != _STR:
            if not isinstance(key_node, yaml.ScalarNode):
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark, "found a non-scalar key", key_node.start_mark
                )
            key = key_node.value
        mapping[key] = loader.construct_object(value_node, deep=deep)
    return mapping


_KEY_CANON = {
    "tag:yaml.org,2002:null": lambda text: "null",
    "tag:yaml.org,2002:bool": lambda text: text.lower(),
    "tag:yaml.org,2002:int": lambda text: str(_int_1_2(text)),
    "tag:yaml.org,2002:float": lambda text: text,
}


def _key_canon(tag: str, text: str) -> str:
    """The JSON key kubectl and Argo CD make of a scalar key (go-yaml v2 types it, sigs.k8s.io/yaml
    prints the value): `True` and `true` are both "true", `~` and `null` "null", `0x1F` "31"."""
    canon = _KEY_CANON.get(tag)
    return text if canon is None else canon(text)


def _same_key_error(first: str, second: str, canon: str, line: int | None) -> "YAMLInputError":
    return YAMLInputError(
        f"keys {first!r} and {second!r} are the same key {canon!r} to kubectl and Argo CD (go-yaml v2); "
        "write it once (quote a key that is meant as text)",
        line,
    )


for _cls in (Loader, PyLoader):
    _cls.construct_mapping = _construct_mapping
    _add(_cls.yaml_implicit_resolvers, "tag:yaml.org,2002:bool", _BOOL_1_2, "tTfF")
    _add(_cls.yaml_implicit_resolvers, "tag:yaml.org,2002:int", _INT_GO, _DIGITS)
    _add(_cls.yaml_implicit_resolvers, "tag:yaml.org,2002:float", _FLOAT_GO, _DIGITS)
    _cls.add_constructor("tag:yaml.org,2002:int", _construct_int_1_2)
    _cls.add_constructor("tag:yaml.org,2002:float", _construct_float_1_2)


class Dumper(_BaseDumper):
    """Safe dumper that quotes any string a YAML 1.1, 1.2 or sigs.k8s.io/yaml reader would retype."""

    yaml_implicit_resolvers = {ch: list(lst) for ch, lst in _BaseDumper.yaml_implicit_resolvers.items()}

    def ignore_aliases(self, data):
        # Shared sub-objects must be written out in full: kpt, kustomize and Argo CD all read plain
        # documents, and anchors in rendered manifests only confuse review.
        return True


_add(Dumper.yaml_implicit_resolvers, "tag:yaml.org,2002:bool", re.compile(r"^(?:y|Y|n|N)$"), "yYnN")
_add(Dumper.yaml_implicit_resolvers, "tag:yaml.org,2002:float", _FLOAT_GO, _DIGITS)
_add(Dumper.yaml_implicit_resolvers, "tag:yaml.org,2002:int", _INT_GO, _DIGITS)
_add(Dumper.yaml_implicit_resolvers, "tag:yaml.org,2002:int", re.compile(r"^(?:0o[0-7]+|[-+]?0[0-9]+)$"), "-+0")
# go-yaml v2 (sigs.k8s.io/yaml, Argo CD) drops every "_" before trying a number, so "0_E0" or "1_0"
# read as numbers there; quote anything that is a number once its underscores are gone.
_add(
    Dumper.yaml_implicit_resolvers,
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?[0-9._]*_[0-9._]*(?:[eE][-+]?[0-9_]+)?$|^[-+]?0[xXoObB][0-9a-fA-F_]+$"),
    _DIGITS + "_",
)


def _represent_str(dumper, data):
    if "\n" in data:
        return dumper.represent_scalar(_STR, data, style="|")
    return dumper.represent_scalar(_STR, data)


Dumper.add_representer(str, _represent_str)


class YAMLInputError(ValueError):
    """Input that is not acceptable YAML; `line` is 1-based when known; `limit` names the Limits field
    that was exceeded, if that is what is wrong."""

    def __init__(self, message: str, line: int | None = None, limit: str | None = None):
        super().__init__(message)
        self.line = line
        self.limit = limit

    def __str__(self) -> str:
        msg = self.args[0]
        return f"line {self.line}: {msg}" if self.line else msg


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

_CORE = "tag:yaml.org,2002:"
_CORE_TAGS = frozenset(_CORE + t for t in ("str", "int", "float", "bool", "null", "map", "seq", "merge"))


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_CORE) :] if tag.startswith(_CORE) else tag


def _too_deep(limits: Limits, line: int | None = None) -> YAMLInputError:
    return YAMLInputError(f"nesting deeper than {limits.max_depth} levels (maxDepth)", line, "max_depth")


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


class _Counts:
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


def _check_graph(root, limits: Limits, counts: _Counts) -> None:
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
        if node.tag not in _CORE_TAGS:
            # Checked before anything is constructed: no constructor ever runs for a foreign tag.
            raise _foreign_tag(node.tag, node.start_mark.line + 1)
        if depth > limits.max_depth:
            raise _too_deep(limits, node.start_mark.line + 1)
        if isinstance(node, yaml.ScalarNode):
            expanded[nid] = (1, node.end_mark.index - node.start_mark.index)
            continue
        stack.append((node, depth, (counts.nodes, counts.bytes)))
        if isinstance(node, yaml.MappingNode):
            texts: set[str] = set()
            canons: dict[str, str] = {}  # JSON key -> the key's text
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and k.tag != "tag:yaml.org,2002:merge":
                    if k.value in texts:
                        raise YAMLInputError(f"duplicate key {k.value!r}", k.start_mark.line + 1)
                    texts.add(k.value)
                    try:
                        canon = _key_canon(k.tag, k.value)
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
                raise _too_deep(limits)
            continue
        if oid in open_ids:
            raise YAMLInputError("recursive data")
        if depth > limits.max_depth:
            raise _too_deep(limits)
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
_DEEP_INDENT = re.compile(r"^(?:[ \t]|[-?:](?=[ \t]))" + "{%d}" % _SCAN_DEPTH, re.M)
_BRACKET = re.compile(r"[\[\]{}]")


def _may_nest_deeply(text: str) -> bool:
    """False only when `text` cannot nest deeper than about 3 * _SCAN_DEPTH levels.

    Quotes and comments are ignored, so brackets inside strings can only make the answer True.
    """
    if _DEEP_INDENT.search(text):
        return True
    if text.count("[") + text.count("{") <= _SCAN_DEPTH:
        return False
    level = 0
    for m in _BRACKET.finditer(text):
        if m.group() in "[{":
            level += 1
            if level > _SCAN_DEPTH:
                return True
        elif level:
            level -= 1
    return False


@functools.cache
def _loader_bounds_nesting() -> bool:
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


def _decode(text: str | bytes, limits: Limits) -> str:
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


_BOOL = "tag:yaml.org,2002:bool"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_NULL = "tag:yaml.org,2002:null"
_BOOL_VALUES = {"true": True, "false": False}
# Tag -> value of a scalar's text, for the tags a plain document's scalars can have.
_SCALAR_VALUES = {
    _NULL: lambda text: None,
    _BOOL: lambda text: _BOOL_VALUES[text.lower()],
    _INT: _int_1_2,
    _FLOAT: _float_1_2,
}
_KEY_TAGS = frozenset({_STR, _INT, _FLOAT})  # keys whose dict key is their text as written
_MERGE = "tag:yaml.org,2002:merge"
_UTF8_BOM = b"\xef\xbb\xbf"


class _NotPlain(Exception):
    """The stream needs the careful path: foreign tags, deep nesting, anchored keys, an error."""


class _Merge:
    """A `<<` key while its mapping is being read (a new one per key: a mapping may merge twice)."""

    __slots__ = ()


class ItemMarks:
    """Where each item of a ResourceList's `items` (a block sequence in the first document) starts in
    the source text (character offsets), and where the sequence ends: what pass-through needs
    (see `item_texts`). `ok` is False when an alias in one item refers to an anchor outside it, so
    that no item's text stands alone."""

    __slots__ = ("starts", "end", "ok")

    def __init__(self):
        self.starts: list[int] = []
        self.end: int | None = None
        self.ok = True


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


def _load_plain(source, limits: Limits, marks: ItemMarks | None = None) -> list:
    """Every document of a stream of plain data, built straight from the parser's events.

    Plain data -- only core tags, scalar keys without duplicates, nesting below the depth limit;
    aliases and merge keys included -- is what kpt and every other writer sends, and for it the
    careful path's node graph (about 30 times the size of the text, marks and all), its walk and
    PyYAML's constructor only cost time and memory: this builds the same dicts, lists and scalars in
    one pass over the events, an alias being the very object its anchor made (as PyYAML's constructor
    does). Alias limits (count, nodes and bytes added) are enforced here, as the careful path words
    them. Anything else, valid or not, raises _NotPlain (conservatively: when in doubt, the careful
    path decides), so that every other error message stays exactly the careful path's.

    `marks`, when given, gets where the items of the first document's top-level `items` start.
    """
    from yaml.events import (
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

    max_depth = limits.max_depth
    loader = Loader(source)
    try:
        get = loader.get_event
        resolvers = Loader.yaml_implicit_resolvers
        values = _SCALAR_VALUES
        key_canon = _KEY_CANON
        counts = _Counts()
        anchors: dict = {}  # name -> (object, nodes, bytes of text, item), per document
        open_anchors: set = set()  # of collections not finished yet: an alias to one is recursive
        known: dict = {}  # id(anchored collection) -> nodes it stands for
        pending_merges = 0  # `<<` keys of mappings not finished yet
        respelled: set = set()  # (id(mapping), JSON key) of keys spelt otherwise (`True:`, `~:`)
        docs: list = []
        # (container, pending key, container is a mapping, its anchor) of the enclosing collections
        stack: list = []
        root = cur = key = anchor = None
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
                    tag = _STR
                    if event.implicit[0]:
                        for rtag, regexp in resolvers.get(text[0] if text else "", ()):
                            if regexp.match(text):
                                tag = rtag
                                break
                if tag not in values and tag != _STR and tag != _MERGE:
                    _drain(get, tag, event.start_mark.line + 1)
                if in_map and key is None:
                    if event.anchor is not None or text in cur:
                        raise _NotPlain  # anchored keys, duplicates
                    if tag == _STR:
                        if respelled and (id(cur), text) in respelled:
                            raise _NotPlain
                    elif tag == _MERGE:
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
                if tag == _STR:
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
                if not (tag is None or tag == "!" or tag == (_MAP if kind is MappingStartEvent else _SEQ)):
                    if tag not in _CORE_TAGS:
                        _drain(get, tag, event.start_mark.line + 1)
                    raise _NotPlain
                depth = len(stack)
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
                root = None
                anchors, known = {}, {}
                continue
            elif kind is StreamEndEvent:
                return docs
            else:
                raise _NotPlain
            if cur is None:
                root = value
            elif in_map:
                cur[key] = value
                key = None
            else:
                cur.append(value)
    except YAMLInputError:
        raise
    except yaml.MarkedYAMLError as e:
        if not _loader_bounds_nesting():
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
    if tag in _CORE_TAGS:
        raise _NotPlain  # a core tag where it does not fit: the careful path words it
    from yaml.events import DocumentEndEvent, StreamEndEvent

    while not isinstance(get(), (DocumentEndEvent, StreamEndEvent)):
        pass
    raise _foreign_tag(tag, line)


def load_all(text: str | bytes, limits: Limits = DEFAULT_LIMITS, marks: ItemMarks | None = None) -> list:
    """Every document of a YAML stream, checked against `limits`. Raises YAMLInputError.

    `marks`, when given, gets where the top-level `items` of the first document start in the text
    (for pass-through: see `item_texts`); left empty when the careful path had to read the stream."""
    source = _decode(text, limits)
    if isinstance(text, bytes) and not text.startswith(_UTF8_BOM):
        # The parser reads the bytes as they are (UTF-8 was just checked), so the decoded copy need
        # not live while parsing; a BOM is left to the decoded text.
        source = text
    try:
        return _load_plain(source, limits, marks)
    except _NotPlain:
        pass
    if marks is not None:
        marks.starts, marks.end, marks.ok = [], None, False
    return _load_careful(_decode(text, limits), limits)


def _marked_error(e: yaml.MarkedYAMLError, limits: Limits) -> YAMLInputError:
    mark = e.problem_mark or e.context_mark
    msg = " ".join(x for x in (e.context, e.problem) if x) or str(e)
    line = mark.line + 1 if mark else None
    if "maximum nesting depth" in msg:  # libyaml's own limit of 1000 levels
        if limits.max_depth < 1000:
            return _too_deep(limits, line)
        return YAMLInputError("nesting deeper than the YAML parser's limit of 1000 levels", line, "max_depth")
    return YAMLInputError(msg, line)


def _foreign_tag(tag: str, line: int) -> YAMLInputError:
    return YAMLInputError(
        f"unsupported YAML tag {_short_tag(tag)!r}: only plain data is accepted "
        "(!!str, !!int, !!float, !!bool, !!null, !!map, !!seq)",
        line,
    )


def _load_careful(text: str, limits: Limits) -> list:
    """load_all for any stream: compose each document, check its node graph, then construct it."""
    cls = Loader if _loader_bounds_nesting() or not _may_nest_deeply(text) else PyLoader
    loader = cls(text)
    counts = _Counts()
    docs = []
    try:
        while loader.check_node():
            node = loader.get_node()
            _check_graph(node, limits, counts)
            docs.append(loader.construct_document(node))
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
        raise _too_deep(limits) from None
    except (ValueError, TypeError, KeyError, OverflowError):
        # A core tag on a value it cannot hold (`!!int abc`, `!!bool maybe`). The value is not
        # repeated: it may be a secret (a `secretSeed: !!int ...`), and which one is not known here.
        raise YAMLInputError("invalid value for its tag (a core tag such as !!int, !!float or !!bool on a value it cannot hold; the value is not shown)") from None
    finally:
        loader.dispose()
    return docs


class Verbatim:
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
        return len(self._bounds) - (0 if self._source is None else 1)

    def pack(self) -> None:
        """Hold each item's text compressed (as Frozen items are) instead of the whole input: a tenth
        of the memory while the function runs; the input itself can go."""
        import zlib

        packed = []
        source, bounds = self._source, self._bounds
        is_bytes = isinstance(source, (bytes, bytearray))
        for k in range(len(bounds) - 1):
            chunk = source[bounds[k] : bounds[k + 1]]
            packer = zlib.compressobj(1, zdict=_zdict())
            packed.append(packer.compress(chunk if is_bytes else chunk.encode("utf-8", "surrogatepass")) + packer.flush())
        self._source, self._bounds = None, packed

    def text(self, k: int) -> str:
        if self._source is None:
            import zlib

            unpacker = zlib.decompressobj(zdict=_zdict())
            chunk = (unpacker.decompress(self._bounds[k]) + unpacker.flush()).decode("utf-8", "surrogatepass")
        else:
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
    if is_bytes and source.startswith(_UTF8_BOM):
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
    return int(text)


def _json_constant(name: str):
    raise _JSONProblem(f"{name} is not a JSON value")


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def load_json(text: str | bytes, limits: Limits = DEFAULT_LIMITS):
    """One JSON value, held to the same rules as YAML (no duplicate keys, depth). Raises YAMLInputError."""
    text = _decode(text, limits)
    try:
        doc = json.loads(text, object_pairs_hook=_json_object, parse_int=_json_int, parse_constant=_json_constant)
    except _JSONProblem as e:
        raise YAMLInputError(str(e)) from None
    except json.JSONDecodeError as e:
        raise YAMLInputError(f"{e.msg} (column {e.colno})", e.lineno) from None
    except RecursionError:
        raise _too_deep(limits) from None
    check_limits(doc, limits)
    if _SURROGATE_ESCAPE.search(text):
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


_END_OF_DATA = object()


def _dump(data) -> str:
    """Block YAML of `data`, exactly what yaml.dump writes with these options, without the node graph
    PyYAML's representer builds of all it dumps at once (hundreds of bytes per node: one item holding
    a list of a million numbers would take gigabytes): events go straight to the emitter, and memory
    grows with the nesting only."""
    import io
    from itertools import chain

    from yaml.events import (
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

    out = io.StringIO()
    dumper = Dumper(out, default_flow_style=False, sort_keys=False, width=1 << 30, allow_unicode=True)
    emit = dumper.emit
    resolve = dumper.resolve
    scalar_kind = yaml.ScalarNode
    try:
        emit(StreamStartEvent())
        emit(DocumentStartEvent(explicit=False))
        stack: list = [(iter((data,)), None)]
        while stack:
            values, end = stack[-1]
            for value in values:
                cls = value.__class__
                if cls is dict or (cls is not str and isinstance(value, dict)):
                    emit(MappingStartEvent(None, _MAP, True, flow_style=False))
                    stack.append((chain.from_iterable(value.items()), MappingEndEvent))
                    break
                if cls is list or (cls is not str and isinstance(value, (list, tuple))):
                    emit(SequenceStartEvent(None, _SEQ, True, flow_style=False))
                    stack.append((iter(value), SequenceEndEvent))
                    break
                style = None
                if cls is str:
                    tag, text = _STR, value
                    if "\n" in value:
                        style = "|"
                elif cls is bool:
                    tag, text = _BOOL, "true" if value else "false"
                elif cls is int:
                    tag, text = _INT, str(value)
                elif value is None:
                    tag, text = _NULL, "null"
                else:
                    node = dumper.represent_data(value)
                    tag, text, style = node.tag, node.value, node.style
                implicit = (tag == resolve(scalar_kind, text, (True, False)), tag == _STR)
                emit(ScalarEvent(None, tag, implicit, text, style=style))
            else:
                stack.pop()
                if end is not None:
                    emit(end())
        emit(DocumentEndEvent(explicit=False))
        emit(StreamEndEvent())
    finally:
        dumper.dispose()
    return out.getvalue()


def dump(data) -> str:
    """Block YAML: "".join(dump_pieces(data))."""
    return "".join(dump_pieces(data))


class Frozen:
    """A list element already written: exactly the text `_dump([element])` makes (`- ...`).

    dump_pieces writes it verbatim where it is an element of a list under a top-level key (the items
    of a ResourceList): an item can be written to text as soon as nothing needs it as data any more.
    The text is held compressed (rendered manifests repeat themselves a lot: a tenth of the size, a
    twentieth of the dicts it stands for) until it is written."""

    __slots__ = ("_packed",)

    def __init__(self, text: str):
        import zlib  # a C module, imported on the first item frozen

        packer = zlib.compressobj(1, zdict=_zdict())
        self._packed = packer.compress(text.encode("utf-8", "surrogatepass")) + packer.flush()

    @property
    def text(self) -> str:
        import zlib

        unpacker = zlib.decompressobj(zdict=_zdict())
        return (unpacker.decompress(self._packed) + unpacker.flush()).decode("utf-8", "surrogatepass")

    def __repr__(self):
        return f"Frozen({self.text[:40]!r}...)"


@functools.lru_cache(maxsize=1)
def _zdict() -> bytes:
    from kpt_fn.zdict import SAMPLE

    return SAMPLE.encode("utf-8")


def _dump_block(data) -> str:
    """_dump's text, written by kpt_fn.yamlwrite: block layout directly, each distinct scalar's text
    still decided once by _dump (tests/test_yamlwrite.py holds the two to the same bytes)."""
    from kpt_fn import yamlwrite  # it imports this module

    return yamlwrite.dump(data)


def freeze(item):
    """`item` as a Frozen list element, or `item` itself where its text could not stand alone (an
    open-ended `|+` scalar at its end makes the emitter close the document with `...`)."""
    text = _dump_block([item])
    if text.endswith("\n...\n"):
        return item
    return Frozen(text)


# List elements that are text already.
_WRITTEN = (Frozen, Verbatim)

# Frozen text was dumped from checked data: reading it back needs no protection from hostile input.
_THAW_LIMITS = Limits(max_bytes=1 << 62, max_depth=1 << 20, max_nodes=1 << 62, max_aliases=1 << 62)


def _thawed(data):
    """`data` with every Frozen element (of a list under a top-level key) read back into data."""
    if isinstance(data, _WRITTEN):
        return load(data.text, _THAW_LIMITS)[0]
    if isinstance(data, dict):
        return {k: _thawed(v) if isinstance(v, list) else v for k, v in data.items()}
    if isinstance(data, list) and any(isinstance(x, _WRITTEN) for x in data):
        return [_thawed(x) if isinstance(x, _WRITTEN) else x for x in data]
    return data


def dump_pieces(data):
    """Block YAML in pieces, each made when it is asked for: a caller that writes each piece before
    asking for the next never holds the whole text.

    A top-level mapping is written key by key and its lists element by element (the text is the same:
    a list under a top-level key is written unindented): PyYAML builds a node graph of everything it
    dumps at once, and for a ResourceList of thousands of items that graph is many times the size of
    the data itself. Elements of those lists may be Frozen or Verbatim (written already)."""
    if not isinstance(data, dict) or not data:
        yield _dump(data)
        return
    written = 0
    for piece in _pieces(data):
        if piece.endswith("\n...\n"):
            # An open-ended scalar (`|+`) makes the emitter end the document with `...`, which must
            # not appear between pieces; rare enough to write the rest from the whole text, whose
            # beginning is what has been written already.
            yield _dump(_thawed(data))[written:]
            return
        written += len(piece)
        yield piece


_NULL_ITEM = "- null\n"


def _list_head(key) -> str | None:
    """What `key` and a non-empty list under it begin with before the first element's text (`key:\n`),
    or None under a complex key (`? key`, for long or multi-line keys), where the list is indented."""
    text = _dump({key: [None]})
    if text.startswith("?") or not text.endswith(_NULL_ITEM):
        return None
    return text[: -len(_NULL_ITEM)]


def _pieces(data: dict):
    for k, v in data.items():
        if isinstance(v, list) and v and (len(v) > 1 or isinstance(v[0], _WRITTEN)):
            head = _list_head(k)
            if head is not None:
                first = v[0]
                yield head + first.text if isinstance(first, _WRITTEN) else _dump_block({k: v[:1]})
                for x in v[1:]:
                    yield x.text if isinstance(x, _WRITTEN) else _dump_block([x])
                continue
            v = _thawed(v)
        yield _dump_block({k: v})


def dump_all(docs) -> str:
    return yaml.dump_all(
        docs,
        Dumper=Dumper,
        sort_keys=False,
        default_flow_style=False,
        width=1 << 30,
        allow_unicode=True,
        explicit_start=True,
    )
