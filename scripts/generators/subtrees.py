"""Each repeated subtree of a set of JSON documents stored once: the form of a bundle's schemas.json.

The strict schemas repeat whole subtrees: the pod template spec is in the TrainJob's runtimePatches,
in both runtimes and in the JobSet, and ObjectMeta in every schema. Stored once each, the eight schemas
of a release are ~70 KB of JSON instead of ~310 KB, which is what a render parses
(kpt_fn.upstream.Bundle reads schemas.json and puts every shared subtree back in place).

    {"shared": [subtree, ...],       # each subtree that occurs more than once, stored once
     "links": [[n, path], ...],      # the placeholder at `path` (keys and list indices from the
                                     # document's root) stands for shared[n]
     ...}                            # the documents, with {"$shared": n} where a shared subtree was

A placeholder is a leaf of the text around it, so no link's path goes through another placeholder:
the loader (kpt_fn.upstream.linked) may put the subtrees in place in any order, and where a subtree
occurs twice it gives both places the same object.
"""

from __future__ import annotations

import json

# A subtree shorter than this (as compact JSON) is written out wherever it occurs: a link costs the
# loader about what parsing a few hundred bytes does.
MIN_SHARED = 512
PLACEHOLDER = "$shared"


def compact(node) -> str:
    """A JSON value as the compact, key-sorted text a bundle stores (and by which subtrees are compared)."""
    return json.dumps(node, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _children(node):
    return sorted(node.items()) if isinstance(node, dict) else enumerate(node)


def share(documents: dict, under: str) -> dict:
    """`documents` (name -> JSON value) as {under: {name: value}, "shared": [...], "links": [...]}:
    every subtree of at least MIN_SHARED characters that occurs more than once (anywhere below a
    document's root) stored once. Deterministic: the documents and keys are visited in sorted order."""
    _assert_no_placeholder(documents)
    # How often each long subtree occurs, counting a subtree inside a repeated one once: the second
    # occurrence of a subtree is not looked into.
    count: dict = {}

    def tally(node) -> None:
        if not isinstance(node, (dict, list)):
            return
        text = compact(node)
        if len(text) >= MIN_SHARED:
            count[text] = count.get(text, 0) + 1
            if count[text] > 1:
                return
        for _, sub in _children(node):
            tally(sub)

    for _, doc in sorted(documents.items()):
        for _, sub in _children(doc):  # a document's root is never shared
            tally(sub)

    shared: list = []
    number: dict = {}  # text -> its index in shared
    links: list = []

    def rebuilt(node, path: list):
        if not isinstance(node, (dict, list)):
            return node
        text = compact(node)
        if count.get(text, 0) > 1:
            if text not in number:
                number[text] = len(shared)
                shared.append(None)
                shared[number[text]] = inside(node, ["shared", number[text]])
            links.append([number[text], path])
            return {PLACEHOLDER: number[text]}
        return inside(node, path)

    def inside(node, path: list):
        if isinstance(node, dict):
            return {key: rebuilt(sub, [*path, key]) for key, sub in sorted(node.items())}
        return [rebuilt(sub, [*path, i]) for i, sub in enumerate(node)]

    out = {name: inside(doc, [under, name]) for name, doc in sorted(documents.items())}
    return {under: out, "shared": shared, "links": links}


def _assert_no_placeholder(node) -> None:
    """A document that holds the placeholder key itself could not be told from a shared subtree."""
    if isinstance(node, dict):
        if PLACEHOLDER in node:
            raise ValueError(f"a document holds the key {PLACEHOLDER!r}")
        for sub in node.values():
            _assert_no_placeholder(sub)
    elif isinstance(node, list):
        for sub in node:
            _assert_no_placeholder(sub)
