"""Argo CD's RespectIgnoreDifferences=true for a custom resource, re-implemented for tests: what a
sync applies when an Application ignores some fields.

argo-cd v3.5 `controller/sync.go`:
* `normalizeTargetResources` (:421-491): the ignored fields are deleted from live and from the target
  (`util/argo/normalizers/diff_normalizer.go`: a JSON pointer removes one field, a jq path expression
  runs `del(PATH)`); the JSON merge patch from normalized live to live (only the ignored values, since
  a custom resource has no Go struct: `getMergePatch` :495-510 uses `jsonpatch.CreateMergePatch`) is
  applied to the normalized target (`applyMergePatch`, `jsonpatch.MergePatch`). `status` is left out.
* `restoreNonIgnoredFields` (:548-588): walking maps only, a value the normalizer left alone in the
  target (normalized == original) gets the target's value back. A list is one value: a JSON merge patch
  replaces it whole, and it is restored or not as a whole.

Only the jq paths the project ever printed are supported: `.a.b[].c...` (fields and `[]` over a list).
"""

from __future__ import annotations

import copy

from lifecycle.mergepatch import create_merge_patch, merge_patch


def _delete_pointer(obj: dict, pointer: str) -> None:
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.lstrip("/").split("/")]
    holder = obj
    for part in parts[:-1]:
        holder = holder.get(part) if isinstance(holder, dict) else None
    if isinstance(holder, dict):
        holder.pop(parts[-1], None)


def _delete_jq(value, steps: list) -> None:
    """del(.a.b[].c): `steps` are field names, "[]" for every element of a list."""
    step, rest = steps[0], steps[1:]
    if step == "[]":
        for item in value if isinstance(value, list) else []:
            if rest:
                _delete_jq(item, rest)
        return
    if not isinstance(value, dict):
        return
    if not rest:
        value.pop(step, None)
    elif step in value:
        _delete_jq(value[step], rest)


def _jq_steps(expression: str) -> list:
    steps = []
    for part in expression.lstrip(".").split("."):
        name, brackets = part, 0
        while name.endswith("[]"):
            name, brackets = name[:-2], brackets + 1
        steps += ([name] if name else []) + ["[]"] * brackets
    return steps


def normalize(obj: dict | None, ignore: dict) -> dict | None:
    """`obj` without the fields of one ignoreDifferences entry (jsonPointers, jqPathExpressions)."""
    if obj is None:
        return None
    out = copy.deepcopy(obj)
    for pointer in ignore.get("jsonPointers") or []:
        _delete_pointer(out, pointer)
    for expression in ignore.get("jqPathExpressions") or []:
        _delete_jq(out, _jq_steps(expression))
    return out


def _restore_non_ignored(patched: dict, original: dict, normalized_target: dict, normalized_live: dict | None) -> None:
    for key, original_value in original.items():
        patched_value = patched.get(key)
        normalized_value = normalized_target.get(key)
        if isinstance(patched_value, dict) and isinstance(original_value, dict) and isinstance(normalized_value, dict):
            live_value = (normalized_live or {}).get(key)
            _restore_non_ignored(patched_value, original_value, normalized_value,
                                 live_value if isinstance(live_value, dict) else None)
            continue
        if key in normalized_target and normalized_value == original_value and (key not in patched or patched_value != original_value):
            patched[key] = copy.deepcopy(original_value)
    for key in list(patched):
        if key not in original and key in (normalized_live or {}):
            del patched[key]


def target_to_apply(target: dict, live: dict | None, ignore: dict) -> dict:
    """What Argo CD applies for `target` under RespectIgnoreDifferences=true."""
    if live is None:
        return copy.deepcopy(target)
    normalized_target = normalize(target, ignore)
    live_for_patch = {k: v for k, v in live.items() if k != "status"}
    normalized_live = {k: v for k, v in normalize(live, ignore).items() if k != "status"}
    patched = merge_patch(copy.deepcopy(normalized_target), create_merge_patch(normalized_live, live_for_patch))
    _restore_non_ignored(patched, target, normalized_target, normalized_live)
    return patched
