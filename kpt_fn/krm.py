"""KRM mode: a ResourceList on stdin, a ResourceList on stdout (kpt, kustomize KRM functions)."""

from __future__ import annotations

import json

from kpt_fn import function
from kpt_fn.problems import ERROR
from kpt_fn.yamlio import DEFAULT_LIMITS, Limits, YAMLInputError, dump, load_all

RESOURCE_LIST_VERSIONS = ("config.kubernetes.io/v1", "config.kubernetes.io/v1beta1")


class InputError(ValueError):
    """stdin is not a ResourceList we can work on at all."""


def parse_resource_list(data: bytes, limits: Limits = DEFAULT_LIMITS) -> dict:
    if len(data) > limits.max_bytes:
        raise InputError(f"input is {len(data)} bytes, more than the limit of {limits.max_bytes} (maxInputBytes)")
    stripped = data.lstrip()
    if not stripped:
        raise InputError("no input: expected a ResourceList on stdin")
    if stripped[:1] == b"{":
        try:
            docs = [json.loads(data.decode("utf-8"))]
        except UnicodeDecodeError as e:
            raise InputError(f"input is not UTF-8 (byte {e.start})") from None
        except (ValueError, RecursionError) as e:
            raise InputError(f"input is not valid JSON: {e}") from None
    else:
        try:
            docs = [d for d in load_all(data, limits) if d is not None]
        except YAMLInputError as e:
            raise InputError(f"input is not valid YAML: {e}") from None
    if len(docs) != 1 or not isinstance(docs[0], dict):
        raise InputError(f"expected one ResourceList object on stdin, found {len(docs)} document(s)")
    rl = docs[0]
    if rl.get("kind") != "ResourceList" or rl.get("apiVersion") not in RESOURCE_LIST_VERSIONS:
        raise InputError(
            f"expected kind ResourceList ({' or '.join(RESOURCE_LIST_VERSIONS)}), found "
            f"{rl.get('apiVersion')!r} {rl.get('kind')!r}"
        )
    items = rl.get("items")
    if items is None:
        rl["items"] = []
    elif not isinstance(items, list):
        raise InputError("ResourceList.items must be a list")
    return rl


def error_resource_list(message: str, items=None, api_version: str = RESOURCE_LIST_VERSIONS[0]) -> dict:
    return {
        "apiVersion": api_version,
        "kind": "ResourceList",
        "items": list(items or []),
        "results": [{"message": message, "severity": ERROR}],
    }


def process(data: bytes, limits: Limits = DEFAULT_LIMITS, base_dir: str = ".") -> tuple[str, list[str], int]:
    """(stdout, stderr lines, exit code) for one KRM invocation."""
    try:
        rl = parse_resource_list(data, limits)
    except InputError as e:
        message = f"expand-trainjobs: {e}"
        return dump(error_resource_list(str(e))), [message], 1
    outcome = function.run(rl["items"], rl.get("functionConfig"), base_dir=base_dir)
    out = {
        "apiVersion": rl.get("apiVersion"),
        "kind": "ResourceList",
        "items": outcome.items,
        "results": outcome.results,
    }
    return dump(out), stderr_lines(outcome), outcome.exit_code


def stderr_lines(outcome) -> list[str]:
    """The summary first (kpt shows 4 lines, kustomize and Argo CD only stderr), then each problem."""
    lines = [outcome.summary()]
    for r in outcome.results:
        if r.get("severity") not in (ERROR, "warning"):
            continue
        ref = r.get("resourceRef") or {}
        who = ""
        if ref:
            ns = f"{ref['namespace']}/" if ref.get("namespace") else ""
            who = f"{ref.get('kind')} {ns}{ref.get('name')} "
        fieldpath = (r.get("field") or {}).get("path")
        lines.append(f"  [{r['severity']}] {who}{fieldpath + ': ' if fieldpath else ''}{r['message']}")
    return lines
