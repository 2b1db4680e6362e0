"""`scripts/generate.py patch-meta`: patch_meta.json of a release bundle, the strategic-merge metadata
the engine's SMP needs.

Reads Trainer's OpenAPI document (x-kubernetes-patch-strategy / x-kubernetes-patch-merge-key are
generated from the Go struct tags that upstream's strategic merge patch reads) and keeps, for every
object type reachable from the roots, only the fields the merge must know about:

    {"items": T, "strategy": "merge", "key": "name"}   list field (T only when items are objects)
    {"type": T}                                          object field
    {"values": T}                                        map field whose values are objects

Fields that are absent are scalars, maps of scalars or lists without a strategy (replaced whole).
Output is deterministic (sorted keys, one type per line), so re-running reproduces it byte for byte.
"""

from __future__ import annotations

import json

from generators.releases import local

PER_RELEASE = True

# Short names accepted by kpt_fn.engine.smp.strategic_merge(type_name=...).
ROOTS = {
    "JobSetSpec": "jobset.v1alpha2.JobSetSpec",
    "PodTemplateSpec": "io.k8s.api.core.v1.PodTemplateSpec",
    "PodSpec": "io.k8s.api.core.v1.PodSpec",
    "Container": "io.k8s.api.core.v1.Container",
    "ResourceRequirements": "io.k8s.api.core.v1.ResourceRequirements",
    # Trainer v2.2.1 merges runtimePatches job template by job template (kpt_fn.engine.v2_2_1).
    "JobTemplateSpec": "io.k8s.api.batch.v1.JobTemplateSpec",
}
REF_PREFIX = "#/components/schemas/"


def _ref(schema: dict) -> str | None:
    if "$ref" in schema:
        return schema["$ref"][len(REF_PREFIX):]
    for part in schema.get("allOf", ()):
        if "$ref" in part:
            return part["$ref"][len(REF_PREFIX):]
    return None


def _object_type(schemas: dict, schema: dict | None) -> str | None:
    """The referenced type name if `schema` points at a struct (a schema with properties)."""
    if not schema:
        return None
    name = _ref(schema)
    if name is not None and schemas[name].get("properties"):
        return name
    return None


def field_meta(schemas: dict, prop: dict) -> dict:
    meta: dict = {}
    if prop.get("type") == "array":
        item = _object_type(schemas, prop.get("items"))
        if item:
            meta["items"] = item
        if "x-kubernetes-patch-strategy" in prop:
            meta["strategy"] = prop["x-kubernetes-patch-strategy"]
        if "x-kubernetes-patch-merge-key" in prop:
            meta["key"] = prop["x-kubernetes-patch-merge-key"]
        if "items" in meta and "strategy" not in meta:
            # Replaced whole: the item type never matters to the merge.
            del meta["items"]
        return meta
    additional = prop.get("additionalProperties")
    if isinstance(additional, dict):
        values = _object_type(schemas, additional)
        if values:
            meta["values"] = values
        return meta
    target = _object_type(schemas, prop)
    if target:
        meta["type"] = target
    if "x-kubernetes-patch-strategy" in prop:
        meta["strategy"] = prop["x-kubernetes-patch-strategy"]
    return meta


def table(swagger: dict) -> dict:
    schemas = swagger["components"]["schemas"]
    types: dict[str, dict] = {}
    pending = list(ROOTS.values())
    seen = set(pending)
    while pending:
        name = pending.pop()
        fields = {}
        for field, prop in schemas[name].get("properties", {}).items():
            meta = field_meta(schemas, prop)
            if not meta:
                continue
            fields[field] = meta
            for child in (meta.get("type"), meta.get("items"), meta.get("values")):
                if child and child not in seen:
                    seen.add(child)
                    pending.append(child)
        types[name] = fields
    _prune(types)
    return {"roots": dict(sorted(ROOTS.items())), "types": dict(sorted(types.items()))}


def _prune(types: dict) -> None:
    """Drop references to types that need no metadata (the merge treats them as plain maps)."""
    while True:
        trivial = {name for name, fields in types.items() if not fields and name not in ROOTS.values()}
        if not trivial:
            return
        for fields in types.values():
            for field in list(fields):
                meta = fields[field]
                for slot in ("type", "items", "values"):
                    if meta.get(slot) in trivial:
                        del meta[slot]
                if not meta:
                    del fields[field]
        for name in trivial:
            del types[name]


def render(meta: dict, marker: str) -> str:
    dump = lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"))  # noqa: E731
    lines = ["{", f'"generated":{dump(marker)},', f'"roots":{dump(meta["roots"])},', '"types":{']
    items = list(meta["types"].items())
    for index, (name, fields) in enumerate(items):
        comma = "," if index < len(items) - 1 else ""
        lines.append(f"{dump(name)}:{dump(fields)}{comma}")
    lines += ["}", "}"]
    return "\n".join(lines) + "\n"


def build(ctx) -> dict[str, str]:
    swagger = json.loads(ctx.read(local(ctx.release, "trainer", "api/openapi-spec/swagger.json")))
    return {ctx.output("patch_meta.json"): render(table(swagger), ctx.marker)}
