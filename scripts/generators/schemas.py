"""`scripts/generate.py schemas`: the strict JSON Schemas of a release from the upstream CRDs and
Trainer's OpenAPI document, as files for kubeconform at the repository's top level (`schemas/<release>/`,
and the default release's also at `schemas/` itself) and as the bundle's schemas.json, which the
function reads. Both are written from the same documents in one run: no copy to drift.

Output layout follows kubeconform's `-schema-location` template
`schemas/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json`. kubeconform takes `{{.Group}}`
from the part of apiVersion before the slash, so for the core group (apiVersion `v1`) it is `v1`:
ConfigMap lands in `schemas/v1/configmap_v1.json`.

Conversion from a CRD's OpenAPI v3 structural schema to JSON Schema (draft 4, kubeconform's default):
- descriptions are dropped; `x-kubernetes-*` markers, `default`, `format` and `x-kubernetes-validations`
  are kept (JSON Schema validators ignore unknown keywords and formats; kpt_fn.validation reads them
  for CEL, list-map uniqueness, defaults and error wording);
- every object schema without `additionalProperties` and without `x-kubernetes-preserve-unknown-fields`
  gets `additionalProperties: false`, the root included: unknown fields are errors, which is how the
  API server's strict field validation treats them;
- `x-kubernetes-int-or-string` becomes `type: [integer, string]` (its `anyOf` is dropped),
  `nullable: true` adds "null" to `type`;
- the root `metadata` ({type: object} in every CRD) is replaced by ObjectMeta from the OpenAPI
  document, so names, labels and annotations are type-checked too;
- `apiVersion` and `kind` are required and pinned to the one value the file is for;
- a property with a schema default is removed from its parent's `required` list, because the API
  server fills defaults before it validates.

Typed built-in objects (ConfigMap, Secret, ObjectMeta) are decoded by the API server into Go structs,
where `null` means "zero value"; their optional properties therefore accept null, like the schemas
kubeconform ships.

schemas.json (in the bundle, kpt_fn/upstream/v<release>/) is what the function reads: every schema in one
document, each subtree that repeats stored once (scripts/generators/subtrees.py), and the index
(apiVersion, kind, file, scope and source of each schema). Every file carries the generator's marker
(`$comment` in a schema: a keyword draft 4 validators ignore).
"""

from __future__ import annotations

import json

import yaml

from generators import subtrees
from generators.releases import DEFAULT, local

PER_RELEASE = True

# (logical upstream source, path in it)
CRDS = [
    ("trainer", "manifests/base/crds/trainer.kubeflow.org_trainjobs.yaml"),
    ("trainer", "manifests/base/crds/trainer.kubeflow.org_trainingruntimes.yaml"),
    ("trainer", "manifests/base/crds/trainer.kubeflow.org_clustertrainingruntimes.yaml"),
    ("jobset", "jobset.x-k8s.io_jobsets.yaml"),
    ("scheduler-plugins", "scheduling.x-k8s.io_podgroups.yaml"),
    ("volcano", "scheduling.volcano.sh_podgroups.yaml"),
]
SWAGGER = ("trainer", "api/openapi-spec/swagger.json")
CORE_KINDS = {
    "ConfigMap": "io.k8s.api.core.v1.ConfigMap",
    "Secret": "io.k8s.api.core.v1.Secret",
}
OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
DRAFT4 = "http://json-schema.org/draft-04/schema#"

# Keywords carried over unchanged from an OpenAPI v3 schema node.
PLAIN_KEYWORDS = (
    "enum", "pattern", "minLength", "maxLength", "minItems", "maxItems", "uniqueItems",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minProperties", "maxProperties", "default", "format",
    "x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-map-type",
    "x-kubernetes-validations", "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource", "x-kubernetes-int-or-string",
)


def kubeconform_path(api_version: str, kind: str) -> str:
    """Where kubeconform looks for a schema with our template (Group = apiVersion before '/')."""
    parts = api_version.split("/")
    return f"{parts[0]}/{kind.lower()}_{parts[-1]}.json"


def convert(node: dict, *, typed: bool = False) -> dict:
    """One OpenAPI v3 schema node (refs already inlined) to a strict JSON Schema node.

    typed: the node describes a Go-typed built-in object, where null decodes to the zero value.
    """
    out: dict = {}
    if node.get("x-kubernetes-int-or-string"):
        types = ["integer", "string"]
    elif "type" in node:
        types = [node["type"]]
    else:
        types = []
    if types and node.get("nullable"):
        types.append("null")
    if types:
        out["type"] = types[0] if len(types) == 1 else types
    for key in PLAIN_KEYWORDS:
        if key in node:
            out[key] = node[key]

    props = node.get("properties")
    if props is not None:
        required = set(node.get("required") or ())
        out["properties"] = {}
        for name in sorted(props):
            child = convert(props[name], typed=typed)
            if typed and name not in required:
                child = _nullable(child)
            out["properties"][name] = child
        req = [r for r in node.get("required") or () if "default" not in props.get(r, {})]
        if req:
            out["required"] = req
    elif node.get("required"):
        out["required"] = list(node["required"])

    addl = node.get("additionalProperties")
    if isinstance(addl, dict):
        out["additionalProperties"] = convert(addl, typed=typed)
    elif isinstance(addl, bool):
        out["additionalProperties"] = addl
    elif node.get("type") == "object" and not node.get("x-kubernetes-preserve-unknown-fields"):
        # A typed object without declared fields is raw JSON (FieldsV1); in a CRD it has no fields.
        if props is not None or not typed:
            out["additionalProperties"] = False

    if "items" in node:
        out["items"] = convert(node["items"], typed=typed)
    for key in ("allOf", "anyOf", "oneOf"):
        if key in node and not node.get("x-kubernetes-int-or-string"):
            out[key] = [convert(sub, typed=typed) for sub in node[key]]
    if "not" in node:
        out["not"] = convert(node["not"], typed=typed)
    return out


def _nullable(schema: dict) -> dict:
    t = schema.get("type")
    if t is None or t == "null" or (isinstance(t, list) and "null" in t):
        return schema
    schema = dict(schema)
    schema["type"] = [*t, "null"] if isinstance(t, list) else [t, "null"]
    return schema


def inline_refs(node, components: dict, seen: tuple = ()):
    """Resolve OpenAPI `$ref` / `allOf: [{$ref}]` so that each schema file stands alone."""
    if isinstance(node, list):
        return [inline_refs(x, components, seen) for x in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    all_of = node.get("allOf")
    if ref is None and isinstance(all_of, list) and len(all_of) == 1 and "$ref" in all_of[0]:
        ref = all_of[0]["$ref"]
        node = {k: v for k, v in node.items() if k != "allOf"}
    if ref is not None:
        name = ref.rsplit("/", 1)[-1]
        if name in seen:
            raise ValueError(f"recursive schema {name} cannot be inlined")
        target = inline_refs(components[name], components, seen + (name,))
        merged = dict(target)
        merged.update({k: v for k, v in node.items() if k != "$ref"})
        return merged
    return {k: inline_refs(v, components, seen) for k, v in node.items()}


def strip_descriptions(node):
    if isinstance(node, dict):
        return {k: strip_descriptions(v) for k, v in node.items() if k != "description"}
    if isinstance(node, list):
        return [strip_descriptions(x) for x in node]
    return node


def finish_root(schema: dict, api_version: str, kind: str, object_meta: dict) -> dict:
    schema = dict(schema)
    props = dict(schema["properties"])
    props["apiVersion"] = {"type": "string", "enum": [api_version]}
    props["kind"] = {"type": "string", "enum": [kind]}
    props["metadata"] = object_meta
    schema["properties"] = props
    schema["required"] = ["apiVersion", "kind"] + [
        r for r in schema.get("required", []) if r not in ("apiVersion", "kind")
    ]
    schema["additionalProperties"] = False
    return {"$schema": DRAFT4, **schema}


def _origin(ctx, relative: str) -> str:
    src = ctx.sources[-1]
    return f"{src['repository']}@{src['tag']}:{src['path']}"


def documents(ctx) -> tuple[dict[str, dict], list[dict]]:
    """({path in kubeconform's layout, relative to a release's schemas/: JSON Schema}, the index of the schemas)."""
    swagger_path = local(ctx.release, *SWAGGER)
    swagger = json.loads(ctx.read(swagger_path))
    swagger_origin = _origin(ctx, swagger_path)
    components = swagger["components"]["schemas"]
    object_meta = convert(strip_descriptions(inline_refs(components[OBJECT_META], components)), typed=True)

    files: dict[str, dict] = {}
    index = []
    for logical, path_in in CRDS:
        rel = local(ctx.release, logical, path_in)
        crd = yaml.safe_load(ctx.read(rel))
        origin = _origin(ctx, rel)
        group = crd["spec"]["group"]
        kind = crd["spec"]["names"]["kind"]
        scope = crd["spec"]["scope"]
        for version in crd["spec"]["versions"]:
            if not version.get("served", True):
                continue
            api_version = f"{group}/{version['name']}"
            raw = strip_descriptions(version["schema"]["openAPIV3Schema"])
            schema = finish_root(convert(raw), api_version, kind, object_meta)
            path = kubeconform_path(api_version, kind)
            files[path] = {"$comment": ctx.marker, **schema}
            index.append({"apiVersion": api_version, "kind": kind, "file": path, "scope": scope,
                          "source": origin})
    for kind, name in CORE_KINDS.items():
        raw = strip_descriptions(inline_refs(components[name], components))
        schema = finish_root(convert(raw, typed=True), "v1", kind, object_meta)
        path = kubeconform_path("v1", kind)
        files[path] = {"$comment": ctx.marker, **schema}
        index.append({"apiVersion": "v1", "kind": kind, "file": path, "scope": "Namespaced",
                      "source": f"{swagger_origin}#/components/schemas/{name}"})
    return files, sorted(index, key=lambda e: (e["apiVersion"], e["kind"]))


def dump(doc: dict) -> str:
    # Compact: the function loads these on every run, and indentation was two thirds of the bytes.
    return subtrees.compact(doc) + "\n"


def dump_shared(files: dict[str, dict], index: list[dict], marker: str) -> str:
    """schemas.json: the index, then one line per link list, schema and shared subtree (a diff of a
    regenerated bundle shows which schema changed)."""
    one = subtrees.compact
    packed = subtrees.share(files, "schemas")
    lines = ["{", f'"generated":{one(marker)},', f'"index":{one(index)},', f'"links":{one(packed["links"])},',
             '"schemas":{', ",\n".join(f"{one(name)}:{one(doc)}" for name, doc in packed["schemas"].items()), "},",
             '"shared":[', ",\n".join(map(one, packed["shared"])), "]", "}"]
    return "\n".join(lines) + "\n"


# The top-level directory kubeconform users point -schema-location at (docs/schemas.md).
TOP = "schemas"


def kubeconform_dirs(release: str) -> list[str]:
    """The repository-relative directories a release's schema files are written to: schemas/<release>,
    and schemas itself for the default release (the URL a user writes without a release)."""
    return [f"{TOP}/{release}", *([TOP] if release == DEFAULT else [])]


def build(ctx) -> dict[str, str]:
    files, index = documents(ctx)
    out = {f"{top}/{rel}": dump(doc) for top in kubeconform_dirs(ctx.release.name) for rel, doc in files.items()}
    out[ctx.output("schemas.json")] = dump_shared(files, index, ctx.marker)
    return out
