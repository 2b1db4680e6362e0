"""JSON merge patch (RFC 7386) and apimachinery's three-way JSON merge patch, re-implemented.

What `kubectl apply` (client-side) sends for a custom resource, and so what Argo CD's default sync
and `kpt live apply` send: kubectl's apply (`staging/src/k8s.io/kubectl/pkg/cmd/apply/patcher.go`
buildMergePatch) uses `jsonmergepatch.CreateThreeWayJSONMergePatch(original, modified, current)` for
types without a Go struct, where original is the last-applied-configuration annotation, modified the
new manifest and current the live object. An empty patch (`{}`) is "unchanged": nothing is sent.

* `create_merge_patch(a, b)`: the RFC 7386 patch turning a into b (evanphx/json-patch v4
  CreateMergePatch): changed or added keys with b's value, removed keys as null, nested objects
  recursively, every other value (lists included) replaced whole.
* `merge_patch(target, patch)`: RFC 7386 §2 MergePatch: a null deletes, an object merges recursively,
  anything else replaces; null members of objects inside a replacing value are pruned.
* `three_way(original, modified, current)`: k8s.io/apimachinery `pkg/util/jsonmergepatch/patch.go`
  :31-90 (v0.36.3): the additions and changes of current -> modified (nulls dropped, :109-150
  keepOrDeleteNullInObj with keepNull false) merged with the deletions of original -> modified (nulls
  only), refused when the two conflict (`pkg/util/mergepatch/util.go` HasConflicts :92-132).

Checked against upstream's own tables in tests/lifecycle/test_mergepatch.py.
"""

from __future__ import annotations

import copy

from kpt_fn.lifecycle.jobset_update import same


class Conflict(Exception):
    """mergepatch.ErrConflict: the changes and the deletions disagree."""


def create_merge_patch(a, b):
    if not (isinstance(a, dict) and isinstance(b, dict)):
        return copy.deepcopy(b)
    patch = {}
    for key, value in b.items():
        if key not in a:
            patch[key] = copy.deepcopy(value)
        elif isinstance(a[key], dict) and isinstance(value, dict):
            sub = create_merge_patch(a[key], value)
            if sub:
                patch[key] = sub
        elif not same(a[key], value):
            patch[key] = copy.deepcopy(value)
    for key in a:
        if key not in b:
            patch[key] = None
    return patch


def _pruned(value):
    if isinstance(value, dict):
        return {k: _pruned(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_pruned(v) for v in value]
    return value


def merge_patch(target, patch):
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict):
            out[key] = merge_patch(out.get(key), value)
        else:
            out[key] = _pruned(copy.deepcopy(value))
    return out


def keep_or_delete_null(patch: dict, keep_null: bool) -> dict:
    """jsonmergepatch keepOrDeleteNullInObj (patch.go :109-150)."""
    out = {}
    for key, value in patch.items():
        if value is None:
            if keep_null:
                out[key] = None
        elif isinstance(value, dict):
            if not value:  # an explicit empty map is a value, not an empty patch
                if not keep_null:
                    out[key] = {}
                continue
            sub = keep_or_delete_null(value, keep_null)
            if sub:
                out[key] = sub
        elif not keep_null:
            out[key] = value
    return out


def has_conflicts(left, right) -> bool:
    """mergepatch.HasConflicts (util.go :92-132)."""
    if isinstance(left, dict):
        if not isinstance(right, dict):
            return True
        return any(has_conflicts(v, right[k]) for k, v in left.items() if k in right)
    if isinstance(left, list):
        if not isinstance(right, list) or len(left) != len(right):
            return True
        return any(has_conflicts(a, b) for a, b in zip(left, right))
    return not same(left, right)


def three_way(original, modified, current) -> dict:
    """CreateThreeWayJSONMergePatch; None stands for an empty document."""
    original, modified, current = original or {}, modified or {}, current or {}
    add_and_change = keep_or_delete_null(create_merge_patch(current, modified), False)
    deletions = keep_or_delete_null(create_merge_patch(original, modified), True)
    if has_conflicts(add_and_change, deletions):
        raise Conflict(f"changes {add_and_change} and deletions {deletions} conflict")
    return _merge_patches(deletions, add_and_change)


def _merge_patches(first: dict, second: dict) -> dict:
    """jsonpatch.MergePatch(deletePatch, addAndChangePatch) on two patch documents: nulls of the
    first are kept (it is itself a patch), the second merged over it."""
    out = copy.deepcopy(first)
    for key, value in second.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge_patches(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out
