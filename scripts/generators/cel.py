"""`scripts/generate.py cel`: cel_trees.json of a release bundle, the parse trees of every CEL rule in
the bundle's generated schemas (run `schemas` first).

Building cel-python's parser (lark LALR tables) costs about a third of a second, several times a
whole run of the function on a small package. The CRDs' rules are fixed at build time, so they are
parsed here, with cel-python's own parser (a test dependency), and the function reads the trees.

The rules are enumerated exactly as the validator does (structural.cel_rules of every schema entry:
each rule text and messageExpression). Format, one rule per line, sorted by rule text:

    {"generated": MARKER, "format": 1, "trees": {
    "<rule text>": TREE,
    ...
    }}

    TREE  = {"data": "<rule name>", "children": [TREE | TOKEN, ...]}
    TOKEN = {"type": "<terminal>", "value": "<source text>"}
            plus "string": "<decoded>" for STRING_LIT/MLSTRING_LIT and "bytes": "<hex>" for BYTES_LIT,
            so that the function decodes no escapes itself.

Keys keep the order above (no sorting), so re-running reproduces the file byte for byte (with the
same cel-python).
"""

from __future__ import annotations

import json

from kpt_fn import upstream
from kpt_fn.validation import structural

PER_RELEASE = True
FORMAT = 1


def rule_texts(bundle) -> list[str]:
    """Every CEL text the validator may compile for the bundle's schemas, sorted."""
    texts = set()
    for entry in bundle.schema_entries().values():
        for rule in structural.cel_rules_of(bundle.schema(entry), entry.kind):
            texts.add(rule.rule)
            if rule.message_expression:
                texts.add(rule.message_expression)
    return sorted(texts)


def plain(node) -> dict:
    """A lark Tree/Token from cel-python's parser as plain JSON data."""
    import lark
    from celpy.evaluation import celbytes, celstr

    if isinstance(node, lark.Token):
        out = {"type": node.type, "value": str(node.value)}
        if node.type in ("STRING_LIT", "MLSTRING_LIT"):
            out["string"] = str(celstr(node))
        elif node.type == "BYTES_LIT":
            out["bytes"] = bytes(celbytes(node)).hex()
        return out
    return {"data": str(node.data), "children": [plain(c) for c in node.children]}


def build(ctx) -> dict[str, str]:
    import celpy

    bundle = upstream.Bundle(ctx.release.name, str(ctx.bundle_dir))  # fresh: not a cached, older copy
    parser = celpy.CELParser()
    lines = []
    for text in rule_texts(bundle):
        tree = parser.parse(text)  # a rule the parser rejects fails the generator
        lines.append(f"{json.dumps(text)}: {json.dumps(plain(tree), separators=(',', ':'))}")
    text = (f'{{"generated": {json.dumps(ctx.marker)}, "format": {FORMAT}, "trees": {{\n'
            + ",\n".join(lines) + "\n}}\n")
    return {ctx.output("cel_trees.json"): text}
