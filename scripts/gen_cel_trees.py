#!/usr/bin/env python3
"""Build kpt_fn/validation/cel_trees.json: the parse trees of every CEL rule in the generated schemas.

Building cel-python's parser (lark LALR tables) costs about a third of a second, several times a
whole run of the function on a small package. The CRDs' rules are fixed at build time, so they are
parsed here, with cel-python's own parser, and the runtime reads the trees from this file; it only
builds the parser for a rule text it does not find (see kpt_fn.validation.cel.parse).

The rules are enumerated exactly as the validator does (structural.cel_rules of every schema entry:
each rule text and messageExpression). Format, one rule per line, sorted by rule text:

    {"format": 1, "trees": {
    "<rule text>": TREE,
    ...
    }}

    TREE  = {"data": "<rule name>", "children": [TREE | TOKEN, ...]}
    TOKEN = {"type": "<terminal>", "value": "<source text>"}
            plus "string": "<decoded>" for STRING_LIT/MLSTRING_LIT and "bytes": "<hex>" for BYTES_LIT,
            so that the runtime decodes no escapes itself.

Keys keep the order above (no sorting), so re-running the script reproduces the file byte for byte
(with the same cel-python).

    python scripts/gen_cel_trees.py [OUTPUT_JSON]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = REPO / "kpt_fn" / "validation" / "cel_trees.json"
FORMAT = 1

sys.path.insert(0, str(REPO))

from kpt_fn.validation import schemas, structural  # noqa: E402


def rule_texts() -> list[str]:
    """Every CEL text the validator may compile for the generated schemas, sorted."""
    texts = set()
    for entry in schemas.entries().values():
        for rule in structural.cel_rules(entry):
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


def generate() -> str:
    import celpy

    parser = celpy.CELParser()
    lines = []
    for text in rule_texts():
        try:
            tree = parser.parse(text)
        except Exception:  # left out: the runtime parses it again and reports the compile error
            continue
        lines.append(f"{json.dumps(text)}: {json.dumps(plain(tree), separators=(',', ':'))}")
    return f'{{"format": {FORMAT}, "trees": {{\n' + ",\n".join(lines) + "\n}}\n"


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else DEFAULT_OUTPUT
    out.write_text(generate(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
