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

The target fails on a rule cel-python cannot parse or kpt_fn.validation.cel's compiler does not handle:
the function has no interpreter to fall back on, so such a rule must be met here, at build time.
"""

from __future__ import annotations

import json

from kpt_fn import upstream
from kpt_fn.validation import cel, structural

PER_RELEASE = True
FORMAT = 1


def rule_texts(bundle) -> dict[str, list]:
    """Every CEL text the validator may compile for the bundle's schemas -> the schema nodes it sits on."""
    texts: dict[str, list] = {}
    for entry in bundle.schema_entries().values():
        for rule in structural.cel_rules_of(bundle.schema(entry), entry.kind):
            texts.setdefault(rule.rule, []).append(rule.schema)
            if rule.message_expression:
                texts.setdefault(rule.message_expression, []).append(rule.schema)
    return texts


class Uncompilable(Exception):
    """A shipped rule the function could not evaluate."""


def check_compiles(text: str, tree: dict, schemas: list) -> None:
    if cel.mentions_old_self(text):
        return  # transition rules are not evaluated (there is no old object offline)
    for schema in schemas:
        try:
            cel._Compiler().expr(cel._from_plain(tree), {"self": schema})
        except cel.Unsupported as exc:
            raise Uncompilable(f"kpt_fn.validation.cel cannot compile the rule {text!r} ({exc}): "
                               "teach its compiler the construct") from None


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

    bundle = upstream.Bundle(ctx.release.name, str(ctx.bundle_dir), None, {})  # fresh: not a cached, older copy; data only
    parser = celpy.CELParser()
    lines = []
    for text, schemas in sorted(rule_texts(bundle).items()):
        tree = plain(parser.parse(text))  # a rule the parser rejects fails the generator
        check_compiles(text, tree, schemas)
        lines.append(f"{json.dumps(text)}: {json.dumps(tree, separators=(',', ':'))}")
    text = (f'{{"generated": {json.dumps(ctx.marker)}, "format": {FORMAT}, "trees": {{\n'
            + ",\n".join(lines) + "\n}}\n")
    return {ctx.output("cel_trees.json"): text}
