"""Plain data read along its OpenAPI (CRD structural) schema: the one place that knows how a child
finds its schema node.

A map key's node is its `properties` entry, else the `additionalProperties` schema (when that is a
schema, not a boolean); a list item's node is `items`. Everything that walks a schema (the whole-
number fix in kpt_fn.numbers, the CRD defaults tree, the structural and CEL checks, the schema
errors' field paths) goes through these functions.
"""

from __future__ import annotations

# What a child of a schema node is (`children`).
PROPERTY = "property"
ITEMS = "items"
VALUES = "additionalProperties"


def value_node(node, key):
    """The schema node of the value at `key` of a map described by `node`, or None."""
    if not isinstance(node, dict):
        return None
    props = node.get("properties")
    if props and key in props:
        return props[key]
    addl = node.get("additionalProperties")
    return addl if isinstance(addl, dict) else None


def item_node(node):
    """The schema node of the items of a list described by `node`, or None."""
    items = node.get("items") if isinstance(node, dict) else None
    return items if isinstance(items, dict) else None


def child(node, step):
    """The schema node one step of a field path below `node` (an int: a list index), or None."""
    return item_node(node) if isinstance(step, int) else value_node(node, step)


def children(node: dict):
    """(kind, name, node) of every schema node directly below `node`: each property (kind PROPERTY,
    its name), then the list items' (ITEMS) and the map values' (VALUES) nodes, name None."""
    for name, sub in (node.get("properties") or {}).items():
        if isinstance(sub, dict):
            yield PROPERTY, name, sub
    for kind, sub in ((ITEMS, node.get("items")), (VALUES, node.get("additionalProperties"))):
        if isinstance(sub, dict):
            yield kind, None, sub


_NO_PROPERTIES: dict = {}


def walk(value, node, leaf, only: type | None = None):
    """`value` with every scalar that has a schema node replaced by `leaf(scalar, node)`; maps and
    lists are new only where something below them changed (the input is never changed), values
    without a schema node are left as they are. `only`: a type; scalars of any other type are left
    as they are without asking `leaf` (nor looking up their node)."""
    if isinstance(value, dict):
        # value_node, read once per map: a property's node, else additionalProperties'
        props = node.get("properties") or {}
        addl = node.get("additionalProperties")
        node_of, other, pairs, copy = props.get, addl if isinstance(addl, dict) else None, value.items(), dict
    elif isinstance(value, list):
        other = item_node(node)
        if other is None:
            return value
        node_of, pairs, copy = _NO_PROPERTIES.get, enumerate(value), list  # every item: the items' node
    else:
        return value if only is not None and type(value) is not only else leaf(value, node)
    out = None
    for k, v in pairs:
        if isinstance(v, (dict, list)):
            sub = node_of(k, other)
            if sub is None:
                continue
            new = walk(v, sub, leaf, only)
        elif only is not None and type(v) is not only:
            continue
        else:
            sub = node_of(k, other)
            if sub is None:
                continue
            new = leaf(v, sub)
        if new is not v:
            if out is None:
                out = copy(value)
            out[k] = new
    return value if out is None else out
