"""Server-side apply on a JobSet: the part of sigs.k8s.io/structured-merge-diff (v6) a JobSet needs.

The API server merges an applied configuration into the live object by the schema's list and map
types (structured-merge-diff `typed/merge.go`, `merge/update.go` Updater.Apply and Updater.Update):

* an object (struct or `additionalProperties` map, "granular") merges key by key;
* a list with `x-kubernetes-list-type: map` merges item by item, paired by its list-map keys
  (`typed/merge.go` mergeListMap... via `keyedAssociativeListItemToPathElement`);
* a list with `x-kubernetes-list-type: atomic` (and any list of a CRD without a list type), and a map
  with `x-kubernetes-map-type: atomic`, is one value: the applied value replaces it whole;
* every manager owns a set of field paths; an Apply makes the applier own exactly the fields of its
  configuration, removes the fields it owned before and no longer applies unless another manager owns
  them too (`merge/update.go` Apply -> prune), and reports a conflict when it sets a field another
  manager owns to a different value (`merge/conflict.go`), unless forced, which takes the field over;
* an Update (a controller's PUT, e.g. Kueue's admission) makes its manager own what it changed and
  takes those fields from the others (`merge/update.go` Update).

The list and map types of the JobSet v0.12 CRD are the table LIST_TYPES below (only the lists a
rendered JobSet holds); tests/lifecycle/test_ssa.py checks it against the CRD in ../shared and the
merge against structured-merge-diff's own test cases.
"""

from __future__ import annotations

import copy

from kpt_fn.lifecycle.jobset_update import same

_POD = "spec.replicatedJobs[].template.spec.template.spec"
_VCP = "spec.volumeClaimPolicies"
# path -> list-map keys, or "atomic" (lists and atomic maps); other objects are granular maps.
LIST_TYPES = {
    "spec.replicatedJobs": ("name",),
    "spec.replicatedJobs[].dependsOn": ("name",),
    "spec.successPolicy.targetReplicatedJobs": "atomic",
    _VCP: "atomic",
    _POD + ".containers": ("name",),
    _POD + ".initContainers": ("name",),
    _POD + ".containers[].env": ("name",),
    _POD + ".initContainers[].env": ("name",),
    _POD + ".containers[].ports": ("containerPort", "protocol"),
    _POD + ".initContainers[].ports": ("containerPort", "protocol"),
    _POD + ".containers[].volumeMounts": ("mountPath",),
    _POD + ".initContainers[].volumeMounts": ("mountPath",),
    _POD + ".containers[].args": "atomic",
    _POD + ".containers[].command": "atomic",
    _POD + ".initContainers[].args": "atomic",
    _POD + ".initContainers[].command": "atomic",
    _POD + ".containers[].envFrom": "atomic",
    _POD + ".initContainers[].envFrom": "atomic",
    _POD + ".volumes": ("name",),
    _POD + ".volumes[].configMap": "atomic",
    _POD + ".schedulingGates": ("name",),
    _POD + ".tolerations": "atomic",
    _POD + ".nodeSelector": "atomic",
    _POD + ".imagePullSecrets": ("name",),
}


class ApplyConflict(Exception):
    """Apply failed with conflicts (the API server answers 409; kubectl prints the fields)."""

    def __init__(self, fields: list):
        super().__init__("Apply failed with conflicts: " + ", ".join(f"{p} (owned by {m})" for p, m in fields))
        self.fields = fields


def _kind(schema_path: str, types: dict):
    return types.get(schema_path)


def _child(schema_path: str, key: str) -> str:
    return f"{schema_path}.{key}" if schema_path else key


# A list-map key the item leaves out is read with its schema default (smd `typed/helpers.go` :187-220
# getAssociativeKeyDefault: a port without a protocol is keyed as TCP, the CRD's default).
KEY_DEFAULTS = {"protocol": "TCP"}


def _item_key(item, keys: tuple):
    item = item if isinstance(item, dict) else {}
    return tuple((k, item.get(k, KEY_DEFAULTS.get(k))) for k in keys)


def leaves(value, schema_path: str = "", path: tuple = (), types: dict = LIST_TYPES) -> dict:
    """{field path: value} of every owned leaf: scalars, atomic lists and maps, and empty objects
    (smd owns an empty map as a value of its own)."""
    kind = _kind(schema_path, types)
    if isinstance(value, dict) and kind != "atomic":
        if not value:
            return {path: value}
        out = {}
        for k, v in value.items():
            out.update(leaves(v, _child(schema_path, k), path + (k,), types))
        return out
    if isinstance(value, list) and isinstance(kind, tuple):
        out = {}
        for item in value:
            key = _item_key(item, kind)
            out[path + (key,)] = "<item>"  # the item itself is owned (smd lists it as a path element)
            out.update(leaves(item, schema_path + "[]", path + (key,), types))
        return out
    return {path: value}


def merge(live, config, schema_path: str = "", types: dict = LIST_TYPES):
    """The applied configuration merged into the live value (no removals)."""
    kind = _kind(schema_path, types)
    if isinstance(live, dict) and isinstance(config, dict) and kind != "atomic":
        out = dict(live)
        for k, v in config.items():
            out[k] = merge(live.get(k), v, _child(schema_path, k), types) if k in live else copy.deepcopy(v)
        return out
    if isinstance(live, list) and isinstance(config, list) and isinstance(kind, tuple):
        by_key = {_item_key(i, kind): i for i in config}
        seen = set()
        out = []
        for item in live:
            key = _item_key(item, kind)
            if key in by_key:
                out.append(merge(item, by_key[key], schema_path + "[]", types))
                seen.add(key)
            else:
                out.append(item)
        out += [copy.deepcopy(i) for i in config if _item_key(i, kind) not in seen]
        return out
    return copy.deepcopy(config)


def remove(obj, path: tuple, schema_path: str = "", types: dict = LIST_TYPES):
    """obj without the field at `path` (a list-map item is named by its key tuple)."""
    if not path:
        return obj
    head, rest = path[0], path[1:]
    kind = _kind(schema_path, types)
    if isinstance(obj, dict) and isinstance(head, str) and head in obj:
        out = dict(obj)
        if rest:
            out[head] = remove(obj[head], rest, _child(schema_path, head), types)
        else:
            del out[head]
        return out
    if isinstance(obj, list) and isinstance(kind, tuple):
        out = []
        for item in obj:
            if _item_key(item, kind) != head:
                out.append(item)
            elif rest:
                out.append(remove(item, rest, schema_path + "[]", types))
        return out
    return obj


class Managed:
    """An object's managedFields: (manager, operation) -> set of owned field paths."""

    def __init__(self):
        self.sets: dict[tuple, set] = {}

    def owners(self, path: tuple, but: tuple | None = None) -> list:
        return [m for m, fields in self.sets.items() if m != but and path in fields]

    def take(self, path: tuple, new_owner: tuple) -> None:
        for m, fields in self.sets.items():
            if m != new_owner:
                fields.discard(path)


def apply(live: dict | None, config: dict, manager: str, managed: Managed, force: bool = False,
          types: dict = LIST_TYPES) -> dict:
    """Updater.Apply: the new object; updates `managed`. Raises ApplyConflict."""
    me = (manager, "Apply")
    live = live or {}
    applied = leaves(config, types=types)
    current = leaves(live, types=types)
    conflicts = []
    for path, value in applied.items():
        if path in current and not same(current[path], value):
            for owner in managed.owners(path, but=me):
                conflicts.append((".".join(map(str, path)), owner[0]))
    if conflicts and not force:
        raise ApplyConflict(conflicts)
    new = merge(live, config, types=types)
    before = managed.sets.get(me, set())
    for path in sorted(before - set(applied), key=len):  # an item before its fields
        if not managed.owners(path, but=me):
            new = remove(new, path, types=types)
    for path in applied:
        if path in current and not same(current[path], applied[path]):
            managed.take(path, me)
    managed.sets[me] = set(applied)
    return new


def update(live: dict, new: dict, manager: str, managed: Managed, types: dict = LIST_TYPES) -> dict:
    """Updater.Update: `manager` owns the fields it changed (and the ones it added)."""
    me = (manager, "Update")
    old, now = leaves(live, types=types), leaves(new, types=types)
    changed = {p for p, v in now.items() if p not in old or not same(old[p], v)}
    removed = set(old) - set(now)
    for path in changed | removed:
        managed.take(path, me)
    managed.sets.setdefault(me, set()).update(changed)
    managed.sets[me] -= removed
    return new
