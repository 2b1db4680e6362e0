"""Zero values the controller's Go types leave out (the `omitempty` tags of the v2.3.0 Go API types, pkg/apis/trainer/v1alpha1 and JobSet's api/jobset/v1alpha2).

The controller reads the runtime into typed structs and converts its JobSet template to the apply
form with apimachinery's unstructured converter (pkg/runtime/core/trainingruntime.go newRuntimeInfo,
apimachinery pkg/runtime/converter.go structToUnstructured/isEmpty), and json-marshals every typed
runtimePatch before the strategic merge (mergeRuntimePatches). Both skip a field tagged `omitempty`
whose value is its Go zero value, so e.g. a runtime env `value: ""`, `replicas: 0` or `groupName: ""`
and a patch's `tolerations: []`, env `value: ""` or `readOnly: false` are gone before anything else
sees them. Pointer fields keep their zero values (they are only left out when nil).

Which fields those are comes from the release bundle's omitempty.json, generated from the Go type
declarations by `scripts/generate.py omitempty` (tests/unit/engine/test_omitempty.py checks it against
Trainer's swagger.json).
"""

from __future__ import annotations

from kpt_fn import upstream
from kpt_fn.resource import dig


def _is_zero(kind: str, value) -> bool:
    if kind == "string":
        return value == "" and isinstance(value, str)
    if kind == "number":
        return not isinstance(value, bool) and isinstance(value, (int, float)) and value == 0
    if kind == "bool":
        return value is False
    if kind == "list":
        return isinstance(value, list) and not value
    if kind == "map":
        return isinstance(value, dict) and not value
    return False


def strip(value, root: str, bundle: upstream.Bundle):
    """Remove, in place, every omitempty zero value from `value` read as Go type `root`
    ("JobSetSpec" for a runtime template spec, "JobSetSpecPatch" for a runtimePatch's spec).
    Returns `value`. Values of an unexpected JSON kind are left alone (schema validation reports them)."""
    table = bundle.omitempty()
    _strip(value, table["roots"].get(root, root), table["types"])  # a root name or a full type name
    return value


def _strip(value, type_name: str, types: dict) -> None:
    fields = types.get(type_name)
    if fields is None or not isinstance(value, dict):
        return
    for key in [k for k in value if k in fields]:
        meta = fields[key]
        v = value[key]
        zero = meta.get("zero")
        if zero is not None and _is_zero(zero, v):
            del value[key]
            continue
        child = meta.get("type")
        if child is not None:
            if isinstance(v, dict):
                _strip(v, child, types)
            elif isinstance(v, list):
                for item in v:
                    _strip(item, child, types)
            continue
        child = meta.get("values")
        if child is not None and isinstance(v, dict):
            for item in v.values():
                _strip(item, child, types)


def typed_runtime(runtime: dict, bundle: upstream.Bundle) -> dict:
    """The runtime's JobSet template spec as the controller holds it (in place; returns `runtime`)."""
    spec = dig(runtime, "spec", "template", "spec")
    if isinstance(spec, dict):
        strip(spec, "JobSetSpec", bundle)
    return runtime


def typed_trainjob(trainjob: dict, bundle: upstream.Bundle) -> dict:
    """Every runtimePatch's template spec as json.Marshal writes it (in place; returns `trainjob`)."""
    patches = dig(trainjob, "spec", "runtimePatches")
    for patch in patches if isinstance(patches, list) else ():
        spec = dig(patch, "trainingRuntimeSpec", "template", "spec")
        if isinstance(spec, dict):
            strip(spec, "JobSetSpecPatch", bundle)
    return trainjob
