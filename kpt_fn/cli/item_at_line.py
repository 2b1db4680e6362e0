"""Which item of a ResourceList a line of it belongs to, for a YAML error in one item.

kpt and kustomize serialise the package into one ResourceList, so the parser's line number is a line
of that stream, which the user never sees. The item around the line is found in the text itself (the
stream did not parse): its `- ` entry under `items:`, its kind and metadata.name, and the file kpt
recorded in its path annotation (`internal.config.kubernetes.io/path`, or the older
`config.kubernetes.io/path`). Best effort: what cannot be found is left out.
"""

from __future__ import annotations

import re

_ITEMS = re.compile(r"^items:\s*$")
_ENTRY = re.compile(r"^(\s*)- ")
_TOP_LEVEL = re.compile(r"^[A-Za-z_\"']")
_PATH = re.compile(r"""(?:internal\.)?config\.kubernetes\.io/path['"]?:\s*['"]?([^'"\n]+?)['"]?\s*$""")


def _value(line: str, key: str) -> str | None:
    m = re.match(rf"^\s*(?:- )?{key}:\s*['\"]?([^'\"#\n]+?)['\"]?\s*$", line)
    return m.group(1) if m else None


def _child_name(lines: list) -> str | None:
    """metadata's own `name`: at the indentation of metadata's first field, not a `name` key deeper
    down (a label or annotation called name)."""
    indent = None
    for x in lines:
        body = x.lstrip(" ")
        if not body or body.startswith("#"):
            continue
        depth = len(x) - len(body)
        if indent is None:
            indent = depth
        if depth < indent:
            return None
        if depth == indent and (v := _value(x, "name")):
            return v
    return None


def describe(text: str, line: int) -> str | None:
    """'ConfigMap settings (in cm.yaml)' for 1-based `line` of the ResourceList text, or None when the
    line is not inside an item. (The line in the file is not known: kpt adds its annotations.)"""
    lines = text.splitlines()
    start_items = next((i for i, ln in enumerate(lines) if _ITEMS.match(ln)), None)
    if start_items is None or not start_items < line - 1 < len(lines):
        return None
    indent = None
    start = end = None
    number = -1  # the item's index in items
    for i in range(start_items + 1, len(lines)):
        ln = lines[i]
        m = _ENTRY.match(ln)
        if m and (indent is None or len(m.group(1)) == indent):
            indent = len(m.group(1))
            if i <= line - 1:
                start, number = i, number + 1
            elif start is not None:
                end = i
                break
        elif indent is not None and _TOP_LEVEL.match(ln) and not ln.startswith(" " * (indent + 1)):
            if i > line - 1:
                end = i
                break
            start = None  # past the items
    if start is None:
        return None
    chunk = lines[start:end]
    kind = next((v for ln in chunk if (v := _value(ln, "kind"))), None)
    name = None
    for i, ln in enumerate(chunk):
        if re.match(r"^\s*(?:- )?metadata:\s*$", ln):
            name = _child_name(chunk[i + 1:])
            break
    path = next((m.group(1) for ln in chunk if (m := _PATH.search(ln))), None)
    who = " ".join(x for x in (kind, name) if x) or f"items[{number}]"
    return f"{who} (in {path})" if path else who
