"""Strategic merge patch as Trainer v2.3.0 applies it to runtime templates (apimachinery v0.36.2).

Only the behaviour reachable from a typed patch is implemented: merge options "merge parallel lists"
and "ignore unmatched nulls" are on, and patches carry no directives. Callers reject directive keys
with `find_directive_keys` first (plugins/jobset.py, recommendation/runtime-patch-directive); `strategic_merge`
raises MergeError when the patch has one anywhere.

Semantics, per key of a patch map:
  * null deletes the key;
  * a key missing from the original, or whose original value has a different JSON type, takes the
    patch value (nulls nested in it dropped);
  * two objects merge recursively; two lists merge when the field's patch strategy is "merge"
    (retainKeys is inert without its directive) and are replaced otherwise; scalars are replaced.
List merge: patch items update the original item with the same merge-key value in place, unknown
ones are appended; then items named in the patch are ordered as in the patch, the rest as in the
original, and both sequences are interleaved the way upstream does it, which puts new items before
the remaining original-only items. Lists of scalars (finalizers) are unions.

The per-field metadata (child types, strategies, merge keys) comes from the release bundle's
patch_meta.json, generated from Trainer's swagger.json by `scripts/generate.py patch-meta`.

Results are new dicts; unchanged sub-objects are shared with the inputs (not copied), so treat the
result as read-only or copy what you mutate.
"""

from __future__ import annotations

import re

from kpt_fn import upstream
from kpt_fn.resource import without_nulls

_DIRECTIVE = "$patch"
_RETAIN_KEYS = "$retainKeys"
_SET_ORDER_PREFIX = "$setElementOrder/"
_DELETE_PRIMITIVE_PREFIX = "$deleteFromPrimitiveList/"
_PLAIN_KEY = r"[A-Za-z_][A-Za-z0-9_]*"  # compiled on first use


class MergeError(ValueError):
    """The merge failed the way upstream's strategic merge fails (the reconcile errors out)."""

    def __init__(self, message: str, path: str = ""):
        super().__init__(f"{path}: {message}" if path else message)
        self.message = message
        self.path = path


class _FieldMeta:
    __slots__ = ("child", "merge", "key")

    def __init__(self, child, merge, key):
        self.child = child  # schema for values below this field (type name, "map:<T>" or None)
        self.merge = merge  # list field with patch strategy "merge"
        self.key = key  # merge key or None


_NO_META = _FieldMeta(None, False, None)


def _metadata(bundle: upstream.Bundle) -> tuple[dict, dict]:
    """(roots, {type: {field: _FieldMeta}}) of a release bundle's patch_meta.json, built once per bundle."""
    return bundle.derived("smp.fields", lambda: _fields(bundle.patch_meta()))


def _fields(raw: dict) -> tuple[dict, dict]:
    types = {}
    for name, fields in raw["types"].items():
        table = {}
        for field, meta in fields.items():
            strategies = meta.get("strategy", "").split(",")
            if "values" in meta:
                child = "map:" + meta["values"]
            else:
                child = meta.get("type") or meta.get("items")
            table[field] = _FieldMeta(child, "merge" in strategies, meta.get("key"))
        types[name] = table
    return raw["roots"], types


def _lookup(types: dict, schema: str | None, key: str) -> _FieldMeta:
    if schema is None:
        return _NO_META
    if schema.startswith("map:"):
        return _FieldMeta(schema[4:], False, None)
    return types.get(schema, {}).get(key, _NO_META)


def resolve_type(type_name: str, bundle: upstream.Bundle) -> str:
    """Full schema name for a short root name ("PodSpec") or a full swagger name."""
    roots, types = _metadata(bundle)
    if type_name in roots:
        return roots[type_name]
    if type_name in types:
        return type_name
    raise KeyError(f"no strategic-merge metadata for type {type_name!r}")


# ----------------------------------------------------------------------------------------------
# Paths and directive detection


# A path is built lazily while merging (it is only needed for errors): either a rendered string
# (the root) or a pair (parent path, key or list index).


def _render(path) -> str:
    segments = []
    while isinstance(path, tuple):
        path, segment = path
        segments.append(segment)
    text = path
    for segment in reversed(segments):
        if not isinstance(segment, str):
            text = f"{text}[{segment}]"
        elif re.fullmatch(_PLAIN_KEY, segment):
            text = f"{text}.{segment}" if text else segment
        else:
            text = f"{text}[{segment}]"
    return text


def _is_directive(key: str) -> bool:
    return (
        key == _DIRECTIVE
        or key == _RETAIN_KEYS
        or key.startswith(_SET_ORDER_PREFIX)
        or key.startswith(_DELETE_PRIMITIVE_PREFIX)
    )


def find_directive_keys(patch, path: str = "") -> list[str]:
    """Paths of every strategic-merge directive key ($patch, $retainKeys, $setElementOrder/...,
    $deleteFromPrimitiveList/...) anywhere in `patch`, e.g. `replicatedJobs[0].template.metadata.labels[$patch]`.

    A typed patch can only carry them as keys of free-form maps (labels, annotations, nodeSelector),
    where upstream would still interpret them; callers reject such patches.
    """
    found: list[str] = []
    _find_directives(patch, path, found)
    return found


def _find_directives(value, path, found: list) -> None:
    if type(value) is dict:
        for key, item in value.items():
            if type(key) is str and key[:1] == "$" and _is_directive(key):
                found.append(_render((path, key)))
            if type(item) is dict or type(item) is list:
                _find_directives(item, (path, key), found)
    elif type(value) is list:
        for index, item in enumerate(value):
            if type(item) is dict or type(item) is list:
                _find_directives(item, (path, index), found)


# ----------------------------------------------------------------------------------------------
# Go-flavoured helpers


_KINDS = {dict: "map", list: "slice", str: "string", bool: "bool", int: "float64", float: "float64",
          type(None): "nil"}


def _json_kind(value) -> str:
    """The Go type a JSON decoder would produce (what upstream compares with reflect.TypeOf)."""
    kind = _KINDS.get(type(value))
    if kind is not None:
        return kind
    if isinstance(value, dict):
        return "map"
    if isinstance(value, list):
        return "slice"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "float64"
    if value is None:
        return "nil"
    return type(value).__name__


def _key_token(value, path):
    """Hashable stand-in for Go interface equality of a merge-key value."""
    kind = _json_kind(value)
    if kind in ("map", "slice"):
        raise MergeError("merge key values must be scalars", _render(path))
    return (kind, value)


def _go_repr(value) -> str:
    """Approximation of Go's %v for decoded JSON, used only in error messages."""
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{_go_repr(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(_go_repr(v) for v in value) + "]"
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        number = float(value)
        if number.is_integer() and abs(number) < 1e6:
            return str(int(number))
        text = f"{number:g}" if abs(number) >= 1e6 or abs(number) < 1e-4 else repr(number)
        return text
    return str(value)


def _no_merge_key(item: dict, key: str, path) -> MergeError:
    return MergeError(f"map: {_go_repr(item)} does not contain declared merge key: {key}", _render(path))


# ----------------------------------------------------------------------------------------------
# The merge


def strategic_merge(original: dict, patch: dict, type_name: str, bundle: upstream.Bundle) -> dict:
    """Apply `patch` to `original` (both JSON-like dicts of schema type `type_name`).

    `type_name` is a root short name (JobSetSpec, PodTemplateSpec, PodSpec, Container,
    ResourceRequirements) or a full swagger type name. Neither input is modified.
    Raises MergeError (message + field path) where upstream's merge fails, e.g. a list item without
    its merge key.
    """
    schema = resolve_type(type_name, bundle)
    patch = patch or {}
    directives = find_directive_keys(patch)
    if directives:
        raise MergeError("strategic merge directives are not supported", directives[0])
    return _merge_map(original or {}, patch, schema, "", _metadata(bundle)[1])


def merge_jobset_spec(original: dict, patch: dict, bundle: upstream.Bundle) -> dict:
    """strategic_merge on a JobSet spec (`JobSetSpec` schema)."""
    return strategic_merge(original, patch, "JobSetSpec", bundle)


def _merge_map(original: dict, patch: dict, schema: str | None, path, types: dict) -> dict:
    result = dict(original)
    for key, patch_value in patch.items():
        if patch_value is None:
            result.pop(key, None)
            continue
        if key not in result:
            result[key] = without_nulls(patch_value)
            continue
        current = result[key]
        if type(current) is not type(patch_value) and _json_kind(current) != _json_kind(patch_value):
            result[key] = without_nulls(patch_value)
            continue
        kind = _json_kind(current)
        if kind == "map":
            meta = _lookup(types, schema, key)
            result[key] = _merge_map(current, patch_value, meta.child, (path, key), types)
        elif kind == "slice":
            meta = _lookup(types, schema, key)
            if meta.merge:
                result[key] = _merge_list(current, patch_value, meta, (path, key), types)
            else:
                result[key] = patch_value
        else:
            result[key] = patch_value
    return result


def _element_kind(original: list, patch: list, path) -> str:
    kind = None
    for item in original:
        kind = _check_kind(kind, item, path)
    for item in patch:
        kind = _check_kind(kind, item, path)
    return kind


def _check_kind(kind, item, path):
    item_kind = _json_kind(item)
    if kind is None:
        if item_kind == "slice":
            raise MergeError("lists of lists are not supported", _render(path))
        return item_kind
    if item_kind != kind:
        raise MergeError("list element types are not identical", _render(path))
    return kind


def _merge_list(original: list, patch: list, meta: _FieldMeta, path, types: dict) -> list:
    if not original and not patch:
        return original
    kind = _element_kind(original, patch, path)
    merge_key = meta.key
    if kind != "map":
        # Union of scalars; only membership matters here, the order is fixed below.
        merged = []
        seen = set()
        for item in original + patch:
            token = _key_token(item, path)
            if token not in seen:
                seen.add(token)
                merged.append(item)
        if merge_key:
            raise MergeError(f"expected a map[string]interface {{}}, but received a {kind}", _render(path))
        key_of = lambda item: _key_token(item, path)  # noqa: E731
    else:
        if not merge_key:
            raise MergeError(f"cannot merge lists without merge key for {meta.child or ''}", _render(path))

        def key_of(item):
            if merge_key not in item:
                raise _no_merge_key(item, merge_key, path)
            return _key_token(item[merge_key], path)

        merged = list(original)
        position = {}  # first position of each key among items that have one
        for index, item in enumerate(merged):
            if merge_key in item:
                position.setdefault(_key_token(item[merge_key], path), index)
        for index, item in enumerate(patch):
            token = key_of(item)
            hit = position.get(token)
            if hit is None:
                position[token] = len(merged)
                merged.append(item)
            else:
                merged[hit] = _merge_map(merged[hit], item, meta.child, (path, hit), types)

    # Order: patch items by patch position, original-only items by original position, interleaved.
    patch_order = {}
    for index, item in enumerate(patch):
        patch_order.setdefault(key_of(item), index)
    server_order = {}
    for index, item in enumerate(original):
        server_order.setdefault(key_of(item), index)
    patch_items = []
    server_items = []
    for item in merged:
        token = key_of(item)
        (patch_items if token in patch_order else server_items).append((token, item))
    patch_items.sort(key=lambda pair: patch_order[pair[0]])
    server_items.sort(key=lambda pair: server_order[pair[0]])

    out = []
    i = j = 0
    while i < len(server_items) and j < len(patch_items):
        left_pos = server_order.get(server_items[i][0])
        right_pos = server_order.get(patch_items[j][0])
        if left_pos is not None and right_pos is not None and left_pos < right_pos:
            out.append(server_items[i][1])
            i += 1
        else:
            out.append(patch_items[j][1])
            j += 1
    out.extend(item for _, item in server_items[i:])
    out.extend(item for _, item in patch_items[j:])
    return out


def merge_list_by_key(original: list, patch: list, merge_key: str, path: str = "") -> list:
    """Upstream's list merge for a field declared `patchStrategy:"merge" patchMergeKey:<merge_key>`
    whose items are plain maps (no nested metadata), e.g. Trainer's own ResourceRequirements.claims.
    """
    return _merge_list(original, patch, _FieldMeta(None, True, merge_key), path, {})
