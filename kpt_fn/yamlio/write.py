"""Writing: block YAML for plain data, written directly (block, dump_all): the same text as PyYAML with
kpt_fn.yamlio.schema's Dumper, which stays the oracle for each scalar and the fallback (pyyaml_dump).

Writing the output was half of a large run, nearly all of it PyYAML's Python representer and emitter
walking every node. The layout of block YAML is simple (two-space mappings, indentless sequences under
a key, `{}`/`[]` when empty); what is subtle is how each scalar must be written so that every reader in
the pipeline reads it back as it was. That decision stays PyYAML's: each distinct scalar is written once
by PyYAML with the project's Dumper, and its text is reused. tests/unit/yamlio/test_write.py holds the two to
the same bytes on generated data.

Anything outside that layout (keys that are not strings or need `? ` complex-key syntax, block scalars
that keep trailing newlines, data that is not plain) is written by PyYAML itself.
"""

from __future__ import annotations

import functools
import re

import yaml

from kpt_fn.yamlio.schema import BOOL, INT, MAP, NULL, SEQ, STR, Dumper


class _Unsupported(Exception):
    """The data needs something this writer does not do: PyYAML writes it."""


_OTHER_BREAKS = ("\r", "\x85", "\u2028", "\u2029")


def _value_text(value) -> tuple:
    """("inline", text) for a scalar written on its key's line, or ("block", header, [lines]) for a
    literal block scalar whose lines are relative to the key's indentation plus two."""
    if type(value) is str and _WORD.match(value):
        # What PyYAML's emitter writes of a word (_WORD), without running it: the word as it is, or
        # in single quotes when the Dumper's implicit resolvers would read it as something else
        # (`'19'`, `'5e-4'`, `'true'`): numbers in args and env values, quantities, flags.
        return ("inline", f"'{value}'" if _retyped(value) else value)
    text = pyyaml_dump({"k": value})
    if not text.startswith("k: "):
        raise _Unsupported
    body = text[3:]
    if any(ch in body for ch in _OTHER_BREAKS):
        raise _Unsupported  # line breaks other than \n: their continuation lines depend on the context
    if body.endswith("\n...\n"):
        raise _Unsupported  # `|+` at the document's end: PyYAML closes the document
    first, _, rest = body.partition("\n")
    if not rest:
        return ("inline", first)
    if first[:1] not in ("|", ">"):
        raise _Unsupported  # a quoted scalar folded over lines
    lines = rest.split("\n")
    if lines[-1] == "":
        lines.pop()
    return ("block", first, tuple(line[2:] if line.startswith("  ") else line for line in lines))


_string_text = functools.lru_cache(maxsize=1 << 16)(_value_text)

# Text that starts with a letter, `/` or a dash and a letter, and holds only letters, digits and
# `._/:@-` without ending in `:` (most names, label keys, image references, paths, flags) has nothing PyYAML's emitter must quote in block
# context; it is written plain unless the Dumper's own implicit resolvers read it as something else
# (`y`, `True`, `NULL`, ...), which they are asked directly: no need to emit it.
# tests/unit/yamlio/test_write.py checks this rule against PyYAML.
_PLAIN_WORD = re.compile(r"(?:[A-Za-z/]|-[A-Za-z])[A-Za-z0-9._/:@-]*(?<!:)\Z")
# A wider class, for values only (not keys: a key's text has other rules), asked after the one above:
# also a digit or `_` first, `--` and a letter or digit first, `_=+` inside. PyYAML's emitter sees
# nothing to quote in any of it either (no indicator first, no space, no `: ` or ` #`, not `---`):
# it writes such a word plain, or single-quoted when a resolver would retype it (_value_text).
_WORD = re.compile(r"(?:[A-Za-z0-9/_]|--?[A-Za-z0-9])[A-Za-z0-9._/:@=+-]*(?<!:)\Z")
# The Dumper's implicit resolvers that can read a text as something else, by its first character
# (BaseResolver.resolve looks them up by the first character, then those registered for any).
_ANY_FIRST = tuple(regexp for _, regexp in Dumper.yaml_implicit_resolvers.get(None, ()))
_BY_FIRST = {first: tuple(regexp for _, regexp in resolvers) + _ANY_FIRST
             for first, resolvers in Dumper.yaml_implicit_resolvers.items() if first is not None}


# Asked for every string written; most repeat (keys' values such as names, images, label values), so
# the answer is kept for the most recent ones (strings only: callers check the type first).
@functools.lru_cache(maxsize=1 << 14)
def _is_plain_word(value: str) -> bool:
    return _PLAIN_WORD.match(value) is not None and not _retyped(value)


def _retyped(value: str) -> bool:
    """Whether the Dumper's implicit resolvers read a (non-empty) text as something else than a string."""
    return any(regexp.match(value) for regexp in _BY_FIRST.get(value[0], _ANY_FIRST))


@functools.lru_cache(maxsize=1 << 14)
def _key_text(key) -> str:
    if not isinstance(key, str):
        raise _Unsupported
    if len(key) < 128 and _is_plain_word(key):  # a simple key (PyYAML: shorter than 128), written plain
        return key
    text = pyyaml_dump({key: None})
    if any(ch in text for ch in _OTHER_BREAKS):
        raise _Unsupported
    if not text.endswith(": null\n") or text.startswith("? ") or text.count("\n") != 1:
        raise _Unsupported
    return text[: -len(": null\n")]


def _scalar(value, out: list, indent: str) -> None:
    """Append " text" (after a `key:` or `-`) for a scalar, or its block header and indented lines."""
    if value is None:
        out.append(" null\n")
        return
    if value is True:
        out.append(" true\n")
        return
    if value is False:
        out.append(" false\n")
        return
    if type(value) is int:
        out.append(f" {value}\n")
        return
    if type(value) not in (str, float):
        raise _Unsupported
    # Floats are not cached: 0.0 and -0.0 are equal keys with different texts (and rare anyway).
    if type(value) is str and _is_plain_word(value):
        out.append(f" {value}\n")
        return
    kind = _string_text(value) if type(value) is str else _value_text(value)
    if kind[0] == "inline":
        out.append(f" {kind[1]}\n")
        return
    out.append(f" {kind[1]}\n")
    inner = indent + "  "
    for line in kind[2]:
        out.append(f"{inner}{line}\n" if line else "\n")


def _mapping(data: dict, out: list, indent: str) -> None:
    for k, v in data.items():
        t = type(v)
        if (t is str and _is_plain_word(v)) or t is int:  # most values: on the key's line, as _scalar writes them
            out.append(f"{indent}{_key_text(k)}: {v}\n")
            continue
        out.append(indent)
        out.append(_key_text(k))
        out.append(":")
        _value(v, out, indent, in_mapping=True)


def _value(v, out: list, indent: str, in_mapping: bool) -> None:
    t = type(v)
    if t is dict:
        if not v:
            out.append(" {}\n")
            return
        out.append("\n")
        _mapping(v, out, indent + "  ")
    elif t is list:
        if not v:
            out.append(" []\n")
            return
        out.append("\n")
        # A sequence under a key is not indented; one inside a sequence is.
        _sequence(v, out, indent if in_mapping else indent + "  ")
    else:
        _scalar(v, out, indent)


def _sequence(data: list, out: list, indent: str) -> None:
    for x in data:
        t = type(x)
        if t is dict and x:
            first = True
            for k, v in x.items():
                lead = f"{indent}- " if first else f"{indent}  "
                first = False
                vt = type(v)
                if (vt is str and _is_plain_word(v)) or vt is int:  # as in _mapping
                    out.append(f"{lead}{_key_text(k)}: {v}\n")
                    continue
                out.append(lead)
                out.append(_key_text(k))
                out.append(":")
                _value(v, out, indent + "  ", in_mapping=True)
        elif t is list and x:
            out.append(f"{indent}-")
            inner: list = []
            _sequence(x, inner, indent + "  ")
            # `- - a`: the nested sequence starts on the dash's line.
            inner[0] = " " + inner[0].lstrip(" ")
            out.extend(inner)
        else:
            out.append(f"{indent}-")
            _value(x, out, indent, in_mapping=False)


def block(data) -> str:
    """Block YAML for `data`, byte for byte what pyyaml_dump writes."""
    try:
        out: list = []
        if type(data) is dict and data:
            _mapping(data, out, "")
        elif type(data) is list and data:
            _sequence(data, out, "")
        else:
            raise _Unsupported
        return "".join(out)
    except (_Unsupported, RecursionError):
        return pyyaml_dump(data)


def dump_all(docs) -> str:
    """A stream of documents, each after `---`: byte for byte what pyyaml_dump_all writes."""
    out = []
    for doc in docs:
        if type(doc) is not dict or not doc:
            return pyyaml_dump_all(docs)  # `--- value` on one line: PyYAML's business
        text = block(doc)
        if text.endswith("\n...\n"):
            return pyyaml_dump_all(docs)  # an open-ended scalar ends the document itself
        out.append("---\n")
        out.append(text)
    return "".join(out)


def pyyaml_dump(data) -> str:
    """Block YAML of `data`, exactly what yaml.dump writes with these options, without the node graph
    PyYAML's representer builds of all it dumps at once (hundreds of bytes per node: one item holding
    a list of a million numbers would take gigabytes): events go straight to the emitter, and memory
    grows with the nesting only."""
    import io
    from itertools import chain

    out = io.StringIO()
    dumper = Dumper(out, default_flow_style=False, sort_keys=False, width=1 << 30, allow_unicode=True)
    emit = dumper.emit
    resolve = dumper.resolve
    scalar_kind = yaml.ScalarNode
    try:
        emit(yaml.StreamStartEvent())
        emit(yaml.DocumentStartEvent(explicit=False))
        stack: list = [(iter((data,)), None)]
        while stack:
            values, end = stack[-1]
            for value in values:
                cls = value.__class__
                if cls is dict or (cls is not str and isinstance(value, dict)):
                    emit(yaml.MappingStartEvent(None, MAP, True, flow_style=False))
                    stack.append((chain.from_iterable(value.items()), yaml.MappingEndEvent))
                    break
                if cls is list or (cls is not str and isinstance(value, (list, tuple))):
                    emit(yaml.SequenceStartEvent(None, SEQ, True, flow_style=False))
                    stack.append((iter(value), yaml.SequenceEndEvent))
                    break
                style = None
                if cls is str:
                    tag, text = STR, value
                    if "\n" in value:
                        style = "|"
                elif cls is bool:
                    tag, text = BOOL, "true" if value else "false"
                elif cls is int:
                    tag, text = INT, str(value)
                elif value is None:
                    tag, text = NULL, "null"
                else:
                    node = dumper.represent_data(value)
                    tag, text, style = node.tag, node.value, node.style
                implicit = (tag == resolve(scalar_kind, text, (True, False)), tag == STR)
                emit(yaml.ScalarEvent(None, tag, implicit, text, style=style))
            else:
                stack.pop()
                if end is not None:
                    emit(end())
        emit(yaml.DocumentEndEvent(explicit=False))
        emit(yaml.StreamEndEvent())
    finally:
        dumper.dispose()
    return out.getvalue()


def pyyaml_dump_all(docs) -> str:
    """A stream of documents, each after `---`, written by PyYAML (dump_all's oracle and fallback)."""
    return yaml.dump_all(
        docs,
        Dumper=Dumper,
        sort_keys=False,
        default_flow_style=False,
        width=1 << 30,
        allow_unicode=True,
        explicit_start=True,
    )
