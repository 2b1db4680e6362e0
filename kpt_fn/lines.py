"""Where a finding sits in its file: the line of a field path in the document a result names.

Results carry a file, a document index and a Kubernetes field path (`spec.trainer.env[2].name`,
`metadata.labels[app/x]`); reviewers and CI systems (SARIF, GitHub annotations) want a line. The line
is found after the run and only for results that name a file: the file is composed into YAML nodes,
which keep the position they were parsed at, and the path is walked as far as it goes. A path into a
generated object (a JobSet path on a TrainJob's result) does not exist in the TrainJob's document, so
the walk stops at the longest prefix that does and names that line: the document itself at worst.
The render path pays nothing for this; only a `validate --format ...` run with findings reads files
again, under the size bound the run itself read them with.
"""

from __future__ import annotations

import os
import re

import yaml

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# A segment of a field path: a name between dots, or a bracketed list index or map key.
_SEGMENT = r"\[([^\]]*)\]|([^.\[\]]+)"
# Empty documents are not items (sources.read drops them), so they do not count for the index.
_NULL_VALUES = ("", "~", "null", "Null", "NULL")


def segments(path: str) -> list:
    """`spec.trainer.env[2].name` -> ['spec', 'trainer', 'env', 2, 'name']; a bracketed key stays a string."""
    out: list = []
    if not path:  # the whole object (most results): no pattern compiled for it
        return out
    for m in re.finditer(_SEGMENT, path):
        bracket, name = m.groups()
        if bracket is not None:
            out.append(int(bracket) if bracket.isdigit() else bracket)
        else:
            out.append(name)
    return out


def _documents(text: str) -> list:
    try:
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except yaml.YAMLError:
        return []
    return [n for n in nodes if not (isinstance(n, yaml.ScalarNode) and n.tag.endswith(":null") and n.value in _NULL_VALUES)]


def _child(node, segment):
    """(key-or-item node, value node) for one segment, or None."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == str(segment):
                return key, value
    elif isinstance(node, yaml.SequenceNode) and isinstance(segment, int) and 0 <= segment < len(node.value):
        item = node.value[segment]
        return item, item
    return None


def line_in(text: str, index: int, path: str) -> int | None:
    """1-based line of `path` in document `index` of `text` (its longest existing prefix; the
    document's first line when nothing of it exists); None when there is no such document."""
    return line_of(_documents(text), index, path)


def line_of(docs: list, index: int, path: str) -> int | None:
    """line_in for a file already composed (`documents`)."""
    found = position_of(docs, index, path)
    return found[0] if found else None


def position_of(docs: list, index: int, path: str) -> tuple[int, int] | None:
    """(line, column), both 1-based, of `path` in document `index` of the composed `docs`: where its
    key (or list item) starts, as compilers and linters point at a token; None without the document."""
    if not 0 <= index < len(docs):
        return None
    node = docs[index]
    mark = node.start_mark
    for segment in segments(path):
        found = _child(node, segment)
        if found is None:
            break
        at, node = found
        mark = at.start_mark
    return mark.line + 1, mark.column + 1


def locate(results: list, root: str, documents=None) -> dict:
    """Set `lineno` and `column` on every result that names a file under `root` and has no line yet
    (a whole object's is known from the read that found it: kpt_fn.cli.plain.expand); returns the
    composed files (file -> documents), each composed once, to be handed on as `documents`."""
    documents = {} if documents is None else documents
    for r in results:
        if getattr(r, "file", "") and not getattr(r, "lineno", 0):
            r.lineno, r.column = position_of(composed(documents, root, r.file), r.index, r.field) or (0, 0)
    return documents


def _node_identity(node) -> tuple:
    """(apiVersion, kind, metadata.namespace, metadata.name) of a composed document: what says it is the item kpt handed over."""
    def value(mapping, key):
        if isinstance(mapping, yaml.MappingNode):
            for k, v in mapping.value:
                if isinstance(k, yaml.ScalarNode) and k.value == key:
                    return v
        return None

    scalar = lambda n: n.value if isinstance(n, yaml.ScalarNode) else None  # noqa: E731
    meta = value(node, "metadata")
    return (scalar(value(node, "apiVersion")), scalar(value(node, "kind")), scalar(value(meta, "namespace")),
            scalar(value(meta, "name")))


def confined(root: str, file: str) -> bool:
    """`file` names a regular file under `root` with no `..`, no absolute path and no link on the way
    (the limits plain mode reads an app with)."""
    if not file or os.path.isabs(file) or ".." in re.split(r"[\\/]", file):
        return False
    base = os.path.realpath(root)
    path = os.path.join(base, os.path.normpath(file))
    return os.path.realpath(path) == path and os.path.isfile(path)


def locate_items(results: list, root: str, items: dict, documents=None) -> dict:
    """locate() for results about items a client handed over with their file and index (kpt's path
    and index annotations) but not read by the function: `items` maps (file, index) to the item's
    identity; the file is looked for under `root` (kpt's working directory, which kpt gives the
    function, not the package's), and a line is set only where the document at that index is that
    item (same apiVersion, kind, namespace and name), never from a file of the same name that holds
    another, and only from a file `confined` under `root` (the limits plain mode reads an app with)."""
    documents = {} if documents is None else documents
    for r in results:
        if not getattr(r, "file", "") or getattr(r, "lineno", 0) or (r.file, r.index) not in items:
            continue
        if not confined(root, r.file):
            continue
        docs = composed(documents, root, r.file)
        if 0 <= r.index < len(docs) and _node_identity(docs[r.index]) == items[(r.file, r.index)]:
            r.lineno, r.column = position_of(docs, r.index, r.field) or (0, 0)
    return documents


def composed(documents: dict, root: str, file: str) -> list:
    """The documents of `file` (relative to `root`), composed once and kept in `documents`."""
    if file not in documents:
        documents[file] = _documents_of(os.path.join(root, file))
    return documents[file]


def _documents_of(path: str) -> list:
    """The file's documents as nodes; none for a file the loader refuses at the limits a run can be
    given (too large, too deep for maxDepth's maximum, too many aliases, not YAML): composing it again
    must not do what the loader guards against. A file as deep as the run's maxDepth admits gets its
    lines too (the default depth would refuse it)."""
    from kpt_fn.config import LIMIT_MAXIMA
    from kpt_fn.yamlio import DEFAULT_LIMITS, YAMLInputError, load_all

    try:
        with open(path, "rb") as f:
            data = f.read()
        load_all(data, DEFAULT_LIMITS.replace(max_depth=LIMIT_MAXIMA["max_depth"]))
    except (OSError, ValueError, YAMLInputError):
        return []
    return _documents(data.decode("utf-8", "replace"))
