#!/usr/bin/env python3
"""Pin the function image every shipped snippet names to a published tag and digest.

    python scripts/pin_image.py TAG DIGEST [--root DIR]     e.g. v0.2.0 sha256:<64 hex>
    python scripts/pin_image.py --print                      the reference now pinned

deploy/image.lock holds the one reference (kpt_fn.IMAGE:TAG@DIGEST); every file of SNIPPETS that names
the image names exactly that reference. This rewrites the lock and each copy, and refuses a tag that is
not a release tag or a digest that is not sha256 (a tag alone would let whoever pushes it change what
runs). The release workflow (deploy/github/release.yaml) runs it with the digest of the image it pushed
and opens a pull request with the result; tests/behaviour/test_pinned_sources.py checks the copies.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCK = "deploy/image.lock"
IMAGE = "ghcr.io/expand-trainjobs/expand-trainjobs"  # kpt_fn.IMAGE (the test holds them equal)
TAG = re.compile(r"v\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?")
DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
# Every reference to the image, pinned or not, as it can appear in YAML, Markdown or a shell line.
REFERENCE = re.compile(re.escape(IMAGE) + r"(?::[\w.-]+)?(?:@[\w:]+)?")
# The files that name the image by reference (the catalog's metadata.yaml names it without a tag: not here).
SNIPPETS = (
    "examples/kustomize-generator/expand-trainjobs.yaml",
    "examples/kustomize-transformer/expand-trainjobs.yaml",
    "examples/kpt-package/Kptfile",
    "examples/kpt-package/README.md",
    "deploy/argocd/repo-server-sidecar.yaml",
    "docs/clients.md",
)


def reference(tag: str, digest: str) -> str:
    if not TAG.fullmatch(tag):
        raise ValueError(f"not a release tag (vMAJOR.MINOR.PATCH): {tag!r}")
    if not DIGEST.fullmatch(digest):
        raise ValueError(f"not a sha256 digest (sha256:<64 lower-case hex>): {digest!r}")
    return f"{IMAGE}:{tag}@{digest}"


def locked(root: Path = ROOT) -> str:
    """The reference deploy/image.lock pins (its one line that is not a comment)."""
    lines = [line.strip() for line in (root / LOCK).read_text().splitlines()]
    refs = [line for line in lines if line and not line.startswith("#")]
    if len(refs) != 1:
        raise ValueError(f"{LOCK} must hold exactly one image reference, found {len(refs)}")
    return refs[0]


def pin(root: Path, new: str) -> list[str]:
    """Write `new` into the lock and every snippet; the files changed."""
    old = locked(root)
    changed = []
    for rel in (LOCK, *SNIPPETS):
        path = root / rel
        text = path.read_text()
        if old not in text:
            raise ValueError(f"{rel} does not name the pinned image {old}")
        path.write_text(text.replace(old, new))
        changed.append(rel)
    return changed


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tag", nargs="?")
    parser.add_argument("digest", nargs="?")
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--print", action="store_true", dest="show")
    args = parser.parse_args(argv)
    if args.show:
        print(locked(args.root))
        return 0
    if not (args.tag and args.digest):
        parser.error("TAG and DIGEST are required (or --print)")
    try:
        for rel in pin(args.root, reference(args.tag, args.digest)):
            print(f"pinned {rel}")
    except ValueError as e:
        print(f"pin_image.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
