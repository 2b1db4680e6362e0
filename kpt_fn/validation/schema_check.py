"""JSON Schema validation (jsonschema-rs) with errors worded as the Kubernetes API server words them.

The API server validates custom resources with kube-openapi and turns each failure into a field
error (apiextensions-apiserver `kubeOpenAPIResultToFieldErrors`); its details name the field the
kube-openapi way (`spec.x[0].y`, map keys as `.key`) followed by "in body". An unknown field is
reported as strict field validation (kubectl's default, `--validate=strict`) reports it: the whole path
from the root in quotes, `unknown field "spec.mlPolicy.torch.envInjection"` (see `unknown_field`).
"""

from __future__ import annotations

from kpt_fn import openapi
from kpt_fn.problems import Problem
from kpt_fn.validation import precheck
from kpt_fn.apimachinery.field import (
    INVALID,
    REQUIRED,
    TOO_LONG,
    TOO_MANY,
    UNSUPPORTED,
    body,
    child,
    go_json,
    go_number,
    go_quote,
    index,
    key,
)
from kpt_fn.numbers import MAX_JSON_INTEGER
from kpt_fn.upstream import SchemaEntry, schema as load, validator


def unknown_field(name: str, builtin: bool = False) -> str:
    """The API server's text for a field the schema does not declare, at `name` (the kube-openapi
    path from the root: fields joined by `.`, map keys too, list items as `[i]`).

    apiextensions-apiserver v0.36.3: pruning records each field it drops with that path
    (pkg/apiserver/schema/pruning/algorithm.go:57-113, the path built by
    pkg/apiserver/schema/options.go:38-67), the metadata decoder does the same for ObjectMeta
    (pkg/apiserver/schema/objectmeta/coerce.go:60-82), and the custom resource decoder words each path
    as `unknown field "%s"` (pkg/apiserver/customresource_handler.go:1340) in the strict decoding
    error the request fails with; the path goes in as it is, unescaped (`%s`). Built-in kinds
    (`builtin`: ConfigMap, Secret) are decoded by sigs.k8s.io/json's strict unmarshal instead
    (apimachinery v0.36.3 pkg/runtime/serializer/json/json.go:292-295), whose error reads the same
    with the path quoted by strconv.Quote (sigs.k8s.io/json@cfa47c3
    internal/golang/encoding/json/kubernetes_patch.go:127-141).
    """
    return f"unknown field {go_quote(name)}" if builtin else f'unknown field "{name}"'


# Our words for a value the API server never sees: YAML's .inf/.nan have no JSON form, so kubectl's
# YAML-to-JSON step refuses the whole object ("json: unsupported value: +Inf").
NOT_FINITE = "must be a finite number: JSON has no infinity or NaN, so kubectl and the API server refuse the object"


def rule_id(entry: SchemaEntry) -> str:
    kind = entry.kind.lower()
    return f"schema/{kind}.{entry.group}" if entry.group else f"schema/{kind}"


# The first objects of each kind are tried with the pure-Python precheck, so that a short run over
# valid objects neither imports jsonschema-rs nor compiles a validator; past this many the compiled
# validator is faster. The count only chooses between two checks that accept the same objects
# (errors always come from jsonschema-rs), so results never depend on it. It is kept with the
# release's bundle, beside the validator it stands in for (the bundle's one cache idiom), not in
# this module.
PRECHECK_BUDGET = 32


def check(obj: dict, entry: SchemaEntry) -> list[Problem]:
    prechecked = entry.bundle.derived("schema_check.prechecked", dict)
    done = prechecked.get(entry, 0)
    if done < PRECHECK_BUDGET:
        prechecked[entry] = done + 1
        if precheck.is_valid(obj, load(entry)):
            return []
    v = validator(entry)
    schema = load(entry)
    try:
        if v.is_valid(obj):
            return []
        errors = list(v.iter_errors(obj))
    except ValueError:
        # jsonschema-rs takes at most JSONSCHEMA_RS_DEPTH levels; maxDepth allows up to 1000
        checked = within_reach(obj, schema)
        if v.is_valid(checked):
            return []
        errors = list(v.iter_errors(checked))
    rule = rule_id(entry)
    builtin = entry.group == ""
    out: list[Problem] = []
    for err in errors:
        node, path, name = _locate(schema, err.instance_path)
        if err.instance is None and type(err.kind).__name__ == "Type" and err.instance_path:
            # jsonschema-rs hands a non-finite float over as null; it is no null to kubectl or the
            # API server: JSON cannot carry it (sigs.k8s.io/yaml's YAML-to-JSON step fails on it).
            actual = _value_at(obj, err.instance_path)
            if isinstance(actual, float):
                out.append(Problem(body(INVALID, actual, NOT_FINITE), path, subject=obj, rule=rule))
                continue
        if err.instance is None and type(err.kind).__name__ == "Type" and err.instance_path \
                and isinstance(err.instance_path[-1], str):
            # The API server prunes a null field value (not a null list item) of a non-nullable field;
            # only a required one is then missed.
            if _required_by_parent(schema, err.instance_path):
                out.append(Problem(body(REQUIRED), path, subject=obj, rule=rule))
            continue
        if type(err.kind).__name__ == "FalseSchema":
            # `additionalProperties: false` on an object that declares no properties (a plugin policy
            # such as v2.2.1's mlPolicy.torch, jax, xgboost): jsonschema-rs reports one FalseSchema error
            # with the first unknown value at the object's own path. The API server's strict field
            # validation names each unknown field instead, as for any other object.
            parent = _unknown_fields_of(schema, obj, err.instance_path[:-1] if _is_property_path(
                schema, err.instance_path) else err.instance_path, builtin)
            if parent is not None:
                seen_paths = {p.path for p in out}
                for p, message in parent:
                    if p not in seen_paths:
                        out.append(Problem(message, p, subject=obj, rule=rule))
                continue
        for p, message in _describe(err, node, path, name, builtin):
            out.append(Problem(message, p, subject=obj, rule=rule))
    return out


# The deepest value jsonschema-rs converts from Python (its binding raises "Recursion limit reached"
# one level further; tests/unit/validation/test_schema_check_depth.py holds it to the figure).
JSONSCHEMA_RS_DEPTH = 255
_CHILD_KEYWORDS = ("properties", "additionalProperties", "items", "patternProperties", "allOf", "anyOf", "oneOf",
                   "not")


def within_reach(value, node):
    """`value` with every subtree the schema cannot see into replaced by an empty map or list: the value
    of an undeclared field (the error is the field's, whatever it holds), and a map or list where the
    schema expects no children (a type error, or a field that accepts anything). The errors are the same
    as for `value`, and what remains is no deeper than the schema, well within JSONSCHEMA_RS_DEPTH."""
    kind = type(value)
    if kind is not dict and kind is not list:
        return value
    if not isinstance(node, dict) or not any(isinstance(node.get(k), (dict, list)) for k in _CHILD_KEYWORDS):
        return kind()
    if node.get("allOf") or node.get("anyOf") or node.get("oneOf") or node.get("not") or node.get("patternProperties"):
        return value  # no CRD schema here combines these over deep values; left as they are
    if kind is list:
        items = openapi.item_node(node)
        return [within_reach(x, items) for x in value] if items is not None else []
    declared = node.get("properties") or {}
    values = node.get("additionalProperties")
    return {k: (within_reach(x, declared[k]) if k in declared else
                within_reach(x, values) if isinstance(values, dict) else kind())
            for k, x in value.items()}


def _is_property_path(schema: dict, instance_path) -> bool:
    """Whether jsonschema-rs pointed at the unknown field itself rather than at its object (the
    versions differ); the object is the step before, when that step is an object without properties."""
    if not instance_path or not isinstance(instance_path[-1], str):
        return False
    parent, _, _ = _locate(schema, instance_path[:-1])
    return parent.get("additionalProperties") is False and instance_path[-1] not in (parent.get("properties") or {})


def _unknown_fields_of(schema: dict, obj, instance_path, builtin: bool):
    """(path, message) of every field of the object at `instance_path` its schema does not declare,
    or None when that object has no `additionalProperties: false` to explain the error."""
    node, path, name = _locate(schema, instance_path)
    value = _value_at(obj, instance_path)
    if node.get("additionalProperties") is not False or not isinstance(value, dict):
        return None
    declared = node.get("properties") or {}
    unknown = [k for k in value if isinstance(k, str) and k not in declared]
    if not unknown:
        return None
    return [(child(path, k), unknown_field(child(name, k), builtin) + _did_you_mean(k, node, value)) for k in unknown]


def _value_at(obj, instance_path):
    """The value at a jsonschema-rs instance path, or None where the path cannot be followed (a map
    key that reads as a number, `annotations: {"0": null}`, comes as an int)."""
    for step in instance_path:
        if isinstance(obj, dict):
            obj = obj[step] if step in obj else obj.get(str(step))
        elif isinstance(obj, list) and isinstance(step, int) and 0 <= step < len(obj):
            obj = obj[step]
        else:
            return None
    return obj


def _required_by_parent(schema: dict, instance_path) -> bool:
    if not instance_path or not isinstance(instance_path[-1], str):
        return False
    parent, _, _ = _locate(schema, instance_path[:-1])
    return instance_path[-1] in (parent.get("required") or ())


def _locate(schema: dict, instance_path) -> tuple[dict, str, str]:
    """Schema node, Problem path (`a.b[0][key]`) and kube-openapi name (`a.b[0].key`) of a location."""
    node, path, name = schema, "", ""
    for step in instance_path:
        if isinstance(step, int):
            path, name = index(path, step), f"{name}[{step}]"
        else:
            # a property is a field of the path, any other key a map key
            path = child(path, step) if step in (node.get("properties") or {}) else key(path, step)
            name = child(name, step)
        node = openapi.child(node, step) or {}
    return node, path, name


def _types(node: dict) -> list[str]:
    t = node.get("type")
    if t is None:
        return []
    return [x for x in (t if isinstance(t, list) else [t]) if x != "null"]


def _json_type(value) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


def _type_error(node: dict, value, name: str) -> str | None:
    types = _types(node)
    actual = _json_type(value)
    if actual == "number" and "integer" in types and float(value).is_integer() and abs(value) <= MAX_JSON_INTEGER:
        return None  # a float with an integral value (up to 2^53) is an integer to the API server
    fmt = node.get("format")
    if fmt and not isinstance(value, (str, list)):
        # kube-openapi checks the format before the type for everything but strings and lists.
        actual_fmt = {"integer": "int64", "number": "float64"}.get(actual, "")
        return body(INVALID, actual_fmt, f"{name} in body must be of type {fmt}: {go_quote(actual_fmt)}")
    return body(INVALID, actual, f"{name} in body must be of type {','.join(types)}: {go_quote(actual)}")


def _did_you_mean(field: str, node: dict, value) -> str:
    """Our hint after the API server's text: the declared field a misspelt one most likely meant."""
    import difflib  # only on an error: difflib (and heapq) cost ~3 ms of every start-up

    declared = [p for p in node.get("properties") or () if not (isinstance(value, dict) and p in value)]
    close = [p for p in declared if p.lower() == field.lower()] or difflib.get_close_matches(field, declared, n=1, cutoff=0.75)
    return f'; did you mean "{close[0]}"?' if close else ""


def _describe(err, node: dict, path: str, name: str, builtin: bool):
    from kpt_fn.validation import hints  # an error's wording: runs without errors never import it

    kind = err.kind
    value = err.instance
    what = type(kind).__name__
    if what == "AdditionalProperties":
        for field in kind.unexpected:
            yield child(path, field), unknown_field(child(name, field), builtin) + _did_you_mean(field, node, value)
    elif what == "Required":
        yield child(path, kind.property), body(REQUIRED)
    elif what == "Type":
        message = _type_error(node, value, name)
        if message:
            wanted = [node["format"]] if node.get("format") and not isinstance(value, (str, list)) else _types(node)
            yield path, message + hints.type_hint(value, wanted, name.rsplit(".", 1)[-1])
    elif what == "Enum":
        allowed = ", ".join(go_quote(o if isinstance(o, str) else go_json(o)) for o in kind.options)
        yield path, body(UNSUPPORTED, value, f"supported values: {allowed}")
    elif what == "MaxLength":
        unit = "byte" if kind.limit == 1 else "bytes"
        yield path, body(TOO_LONG, detail=f"may not be more than {kind.limit} {unit}")
    elif what in ("MaxItems", "MaxProperties"):
        unit = "item" if kind.limit == 1 else "items"
        yield path, body(TOO_MANY, len(value), f"must have at most {kind.limit} {unit}")
    elif what == "MinLength":
        yield path, body(INVALID, value, f"{name} in body should be at least {kind.limit} chars long")
    elif what == "MinItems":
        yield path, body(INVALID, len(value), f"{name} in body should have at least {kind.limit} items")
    elif what == "MinProperties":
        yield path, body(INVALID, len(value), f"{name} in body should have at least {kind.limit} properties")
    elif what in ("Minimum", "ExclusiveMinimum", "Maximum", "ExclusiveMaximum"):
        exclusive = what.startswith("Exclusive") or bool(
            node.get("exclusiveMinimum" if "Minimum" in what else "exclusiveMaximum"))
        relation = {("Minimum", False): "greater than or equal to", ("Minimum", True): "greater than",
                    ("Maximum", False): "less than or equal to", ("Maximum", True): "less than"}
        bound = "Minimum" if "Minimum" in what else "Maximum"
        yield path, body(INVALID, value,
                         f"{name} in body should be {relation[(bound, exclusive)]} {go_number(kind.limit)}")
    elif what == "Pattern":
        if hints.is_quantity_pattern(kind.pattern):  # no regular expression for a person to decode
            yield path, body(INVALID, value, f"{name} in body {hints.QUANTITY_SHAPE}")
        else:
            yield path, body(INVALID, value, f"{name} in body should match '{kind.pattern}'")
    elif what == "Format":
        yield path, body(INVALID, value, f"{name} in body must be of type {kind.format}: {go_quote(str(value))}")
    elif what == "UniqueItems":
        yield path, body(INVALID, "", f"{name} in body shouldn't contain duplicates")
    elif what == "MultipleOf":
        yield path, body(INVALID, value, f"{name} in body should be a multiple of {go_number(kind.multiple_of)}")
    else:
        yield path, body(INVALID, value, err.message)
