"""What the controller's typed round-trip does to the objects it applies (the apply configurations of pkg/runtime/framework/plugins/jobset/builder.go and pkg/apply/apply.go at v2.3.0).

Upstream decodes the runtime template into Go types and encodes it into server-side-apply
configurations. Visible effects reproduced here, in place on the render's private copies:

* nulls disappear;
* empty lists disappear (every apply-configuration list is `omitempty`);
* empty Go maps (labels, annotations, nodeSelector, limits, requests) disappear, and so do the
  no-op `resources: {}` / `metadata: {}` structs the encoder emits (they change nothing the API
  server stores); "presence" objects such as `emptyDir: {}` or `torch: {}` stay;
* every resource quantity is printed in canonical form (kpt_fn/quantity.py), exactly as upstream prints it.

Unknown fields are deliberately kept: the strict schema validation reports them to the user
instead of the engine dropping them silently.
"""

from __future__ import annotations

from kpt_fn import quantity

# Keys whose empty dict value carries no meaning in the apply body.
_EMPTY_DICT_DROPPED = frozenset({"resources", "metadata", "labels", "annotations", "nodeSelector",
                                 "limits", "requests"})
# Keys whose dict values are resource lists (name -> quantity).
_RESOURCE_LISTS = frozenset({"limits", "requests", "overhead", "minResources"})
# Keys holding a single quantity.
_QUANTITIES = frozenset({"sizeLimit", "divisor"})
# Keys put first (in this order) in every mapping, so that output reads the way reviewers expect:
# identity before content, `metadata` before `spec`; a replicated job's name, group, replicas and
# dependencies, then its template; a Job's parallelism and completions before its pod template; a
# container's image, command, args, env and ports before the rest. Other keys keep their order.
_LEADING = ("apiVersion", "kind", "name", "namespace", "metadata", "groupName", "replicas", "dependsOn",
            "parallelism", "completions", "image", "command", "args", "env", "envFrom", "ports")
_RANK = {key: rank for rank, key in enumerate(_LEADING)}


class QuantityProblem(ValueError):
    """A quantity that does not parse; carries the field path for the error report."""

    def __init__(self, message: str, path: str):
        super().__init__(message)
        self.path = path


class _Bad(Exception):
    """A quantity that does not parse, on its way up to normalize(): each level adds its part of the
    path, so that paths are only built for the one that is reported."""

    def __init__(self, message: str, part: str):
        super().__init__(message)
        self.parts = [part]  # innermost first; keys as they are, indexes and resource names as "[...]"
        self.keys = [False]  # whether each part is a key


def _canonical(value, part: str) -> str:
    try:
        return quantity.canonicalize(value)
    except (ValueError, TypeError) as exc:
        raise _Bad(f"{exc}", part) from exc


def normalize(obj, path: str = ""):
    """Normalise `obj` in place (dicts and lists); returns it for convenience."""
    try:
        if isinstance(obj, dict):
            _normalize_dict(obj)
        elif isinstance(obj, list):
            _normalize_list(obj)
    except _Bad as bad:
        for part, is_key in zip(reversed(bad.parts), reversed(bad.keys)):
            path = (f"{path}.{part}" if path else part) if is_key else f"{path}{part}"
        raise QuantityProblem(str(bad), path) from bad.__cause__
    return obj


def _normalize_dict(obj: dict) -> None:
    # Whether the leading keys already lead, in their order: noted on the way through the keys.
    ordered, last, others = True, -1, False
    for key in list(obj):
        rank = _RANK.get(key)
        if rank is None:
            others = True
        elif others or rank < last:
            ordered = False
        else:
            last = rank
        value = obj[key]
        if value is None:
            del obj[key]
            continue
        if isinstance(value, dict):
            try:
                if key in _RESOURCE_LISTS:
                    for name, q in value.items():
                        if q is not None and not isinstance(q, (dict, list, bool)):
                            value[name] = _canonical(q, f"[{name}]")
                if value:
                    _normalize_dict(value)
            except _Bad as bad:
                bad.parts.append(key)
                bad.keys.append(True)
                raise
            if not value and key in _EMPTY_DICT_DROPPED:
                del obj[key]
        elif isinstance(value, list):
            if value:
                try:
                    _normalize_list(value)
                except _Bad as bad:
                    bad.parts.append(key)
                    bad.keys.append(True)
                    raise
            if not value:
                del obj[key]
        elif key in _QUANTITIES and not isinstance(value, bool):
            try:
                obj[key] = _canonical(value, "")
            except _Bad as bad:
                bad.parts[0], bad.keys[0] = key, True
                raise
    if not ordered:
        _lead(obj)


def _normalize_list(obj: list) -> None:
    for i, item in enumerate(obj):
        if isinstance(item, dict):
            normalize_item = _normalize_dict
        elif isinstance(item, list):
            normalize_item = _normalize_list
        else:
            continue
        try:
            normalize_item(item)
        except _Bad as bad:
            bad.parts.append(f"[{i}]")
            bad.keys.append(False)
            raise


def _lead(obj: dict) -> None:
    leading = [k for k in _LEADING if k in obj]
    items = list(obj.items())
    obj.clear()
    values = dict(items)
    for key in leading:
        obj[key] = values[key]
    for key, value in items:
        if key not in obj:
            obj[key] = value


def normalize_jobset_spec(spec: dict) -> dict:
    return normalize(spec, "spec.template.spec")
