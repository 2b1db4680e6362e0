"""Checks the API server runs on a custom resource besides its JSON Schema: list-type uniqueness
(`x-kubernetes-list-type: map|set`) and the CEL rules (`x-kubernetes-validations`); plus label and
annotation syntax of embedded object metadata (Job and Pod templates, which the JobSet and Job
controllers would otherwise only reject later).

A schema is turned into a small tree holding only the nodes that carry such checks and the paths to
them, so one walk over an object visits just those parts. The tree grows as objects reach its parts.
"""

from __future__ import annotations

import functools
import re

from kpt_fn.problems import Problem
from kpt_fn.validation import cel, names
from kpt_fn.apimachinery.field import DUPLICATE, INVALID, body, child, go_json, index, key
from kpt_fn.upstream import SchemaEntry, schema as load

LIST_TYPE_RULE = "schema/list-type"
_MISSING = object()

# The catalog slug of every rule the CRDs carry, keyed by the rule's CEL expression: what is checked,
# not how the message words it (a reworded message keeps its id). Root rules also name the field
# they are about. A rule missing here (new in regenerated schemas) gets a slug from its message, and
# tests/behaviour/test_stable_rule_ids.py fails until it is listed.
_SLUGS = {
    "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')": ("metadata.name", "dns1035"),
    "size(self.metadata.name) <= 63": ("metadata.name", "max-length"),
    "self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')": (None, "uri"),
    "self in ['trainer.kubeflow.org/trainjob-controller', 'kueue.x-k8s.io/multikueue']":
        (None, "supported-manager"),
    "has(self.lastUpdatedTime)": (None, "last-updated-time"),
    "self >= 1": (None, "min-1"),
    "!self.exists(c, c == 'node')": (None, "no-node-container"),
    "[has(self.torch), has(self.mpi), has(self.jax), has(self.xgboost),has(self.flux)].filter(x, x).size() <= 1":
        (None, "one-policy"),
    "!(has(self.startupPolicy) && self.startupPolicy.startupPolicyOrder == 'InOrder' && "
    "self.replicatedJobs.exists(x, has(x.dependsOn)))": (None, "startup-policy-depends-on"),
    "self.templates.all(t, !has(t.metadata.namespace) || size(t.metadata.namespace) == 0)":
        (None, "template-namespace"),
}


# CelRule and Node are plain classes: a dataclass costs more start-up than building a tree.

class CelRule:
    """One non-transition rule of a schema node; its programs are compiled on first use."""

    __slots__ = ("id", "rule", "message", "message_expression", "field_path", "schema", "schema_path",
                 "subject_path", "_program", "_message_program")

    def __init__(self, id: str, rule: str, message: str, message_expression: str, field_path: str,
                 schema: dict, schema_path: str = "", subject_path: str = ""):
        self.id = id
        self.rule = rule
        self.message = message
        self.message_expression = message_expression
        self.field_path = field_path
        self.schema = schema
        self.schema_path = schema_path
        # Root rules about one field are reported at that field (the API server says `<nil>`).
        self.subject_path = subject_path
        self._program = None
        self._message_program = _MISSING

    def __repr__(self):
        return f"CelRule(id={self.id!r}, rule={self.rule!r})"

    @property
    def program(self) -> cel.Program:
        if self._program is None:
            self._program = _compiled(self.rule, self.schema)
        return self._program

    @property
    def message_program(self) -> cel.Program | None:
        if self._message_program is _MISSING:
            self._message_program = (_compiled(self.message_expression, self.schema)
                                     if self.message_expression else None)
        return self._message_program

    @property
    def error_name(self) -> str:
        """ruleErrorString: the message when there is one, else the rule text."""
        return self.message.strip() or self.rule.strip()


# (CEL text, id(schema node)) -> (the node, its Program). The release bundles share subtrees among
# their schemas (the pod template spec of the TrainJob, both runtimes and the JobSet is one object), so
# a rule sits on one node in several trees and is compiled once; the node is kept so that its id
# cannot be reused while its program is.
_programs: dict[tuple, tuple] = {}


def _compiled(text: str, schema: dict) -> cel.Program:
    key = (text, id(schema))
    found = _programs.get(key)
    if found is None or found[0] is not schema:
        found = _programs[key] = (schema, cel.compile_rule(text, schema))
    return found[1]


class Node:
    """A schema node that carries checks, or has descendants that do. Its children are made on first
    use (`prop`, `items`, `additional`): an object reaches a small part of its schema (a pod names a
    few of the pod spec's fields), so the tree grows along the objects checked instead of being made
    whole up front for every run."""

    __slots__ = ("schema", "type", "rules", "list_type", "map_keys", "key_defaults", "embedded_meta",
                 "props", "_kind", "_path", "_root", "_carries", "_has_props", "_items", "_additional")

    def __init__(self, schema: dict, type: str | None, kind: str = "", path: str = "", *, root: bool = False,
                 carries: dict | None = None):
        self.schema = schema
        self.type = type
        self.rules: list[CelRule] = []
        self.list_type: str | None = None
        self.map_keys: tuple = ()
        self.key_defaults: dict = {}
        self.embedded_meta = False
        # name -> Node, or None for a property without checks at or below it; filled by prop()
        self.props: dict[str, Node | None] = {}
        self._kind, self._path, self._root = kind, path, root
        # (id(schema node), in metadata) -> whether checks sit at or below it: shared by the nodes of a
        # tree, and by the trees of a release (a schema node may sit at several places of a tree and in
        # several trees: kpt_fn.upstream shares subtrees)
        self._carries = {} if carries is None else carries
        self._has_props = self._items = self._additional = _UNSET

    def prop(self, name: str) -> Node | None:
        """The node of property `name`, or None when nothing is checked at or below it."""
        try:
            return self.props[name]
        except KeyError:
            pass
        sub = (self.schema.get("properties") or {}).get(name)
        node = None
        # The object's own metadata is checked by names.check_object_meta, not here.
        if isinstance(sub, dict) and not (self._root and name == "metadata"):
            node = self._made(sub, child(self._path, name))
        self.props[name] = node
        return node

    @property
    def has_props(self) -> bool:
        """Whether any property carries checks: the walk skips a map's keys otherwise. Asked once per
        node, of the memo alone (no node is made for a property no object has reached); any() stops at
        the first property that carries one (in a pod spec: after affinity)."""
        if self._has_props is _UNSET:
            self._has_props = any(
                isinstance(sub, dict) and not (self._root and name == "metadata")
                and _carries(sub, _ends_in_metadata(name), self._carries)
                for name, sub in (self.schema.get("properties") or {}).items())
        return self._has_props

    @property
    def items(self) -> Node | None:
        if self._items is _UNSET:
            sub = self.schema.get("items")
            self._items = (self._made(sub, f"{self._path}[]")
                           if self.type == "array" and isinstance(sub, dict) else None)
        return self._items

    @property
    def additional(self) -> Node | None:
        if self._additional is _UNSET:
            sub = self.schema.get("additionalProperties")
            self._additional = self._made(sub, f"{self._path}[*]") if isinstance(sub, dict) else None
        return self._additional

    def _made(self, schema: dict, path: str) -> Node | None:
        if not _carries(schema, path.endswith("metadata"), self._carries):
            return None
        return _node(schema, self._kind, path, root=False, carries=self._carries)


_UNSET = object()


def _schema_type(schema: dict) -> str | None:
    t = schema.get("type")
    if isinstance(t, list):
        t = [x for x in t if x != "null"]
        return t[0] if len(t) == 1 else None
    return t


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48].rstrip("-")


def _rule_id(kind: str, schema_path: str, rule: dict) -> str:
    text = rule.get("rule", "")
    subject, slug = _SLUGS.get(text, (None, None))
    if slug is None:
        slug = _slug(rule.get("message") or text)
    where = subject or schema_path or "self"
    return f"cel/{kind.lower()}/{where}-{slug}"


# A schema node without any of these keys carries no check of its own nor below it (most nodes are
# such leaves: they are answered without a look inside).
_STRUCTURE_KEYS = frozenset({"x-kubernetes-validations", "x-kubernetes-list-type", "properties", "items",
                             "additionalProperties"})


def _list_type(schema: dict, type_: str | None) -> str | None:
    list_type = schema.get("x-kubernetes-list-type") if type_ == "array" else None
    return list_type if list_type in ("map", "set") else None


def _own_rules(schema: dict):
    """The rules of a node that apply on create (transition rules only apply to updates)."""
    return [r for r in schema.get("x-kubernetes-validations") or () if not cel.mentions_old_self(r["rule"])]


def _carries(schema: dict, in_metadata: bool, memo: dict) -> bool:
    """Whether checks sit at `schema` (not a root) or below it; `in_metadata`: its path ends with
    "metadata" (embedded object metadata is checked). Asked once per schema node of a tree, and only
    of the nodes objects reach; the children (openapi.children: properties, then the items of an
    array, then additionalProperties) are looked at only until one carries. No paths are made here:
    most nodes asked about carry nothing."""
    if _STRUCTURE_KEYS.isdisjoint(schema):
        return False
    key = (id(schema), in_metadata)
    found = memo.get(key)
    if found is not None:
        return found
    type_ = _schema_type(schema)
    found = bool(_own_rules(schema) or _list_type(schema, type_) or (in_metadata and _is_object_meta(schema)))
    if not found:
        for name, sub in (schema.get("properties") or {}).items():
            if isinstance(sub, dict) and _carries(sub, _ends_in_metadata(name), memo):
                found = True
                break
        else:
            sub = schema.get("items")
            if type_ == "array" and isinstance(sub, dict) and _carries(sub, False, memo):
                found = True
            else:
                sub = schema.get("additionalProperties")
                found = isinstance(sub, dict) and _carries(sub, False, memo)
    memo[key] = found
    return found


def _ends_in_metadata(name: str) -> bool:
    # What child(path, name).endswith("metadata") says, without a path (a name that needs quoting
    # ends its path with a bracket).
    return name.endswith("metadata") and child("", name).endswith("metadata")


def _node(schema: dict, kind: str, schema_path: str, *, root: bool, carries: dict | None = None) -> Node:
    type_ = _schema_type(schema)
    node = Node(schema, type_, kind, schema_path, root=root, carries=carries)
    node.rules = [
        CelRule(id=_rule_id(kind, schema_path, rule), rule=rule["rule"], message=rule.get("message", ""),
                message_expression=rule.get("messageExpression", ""), field_path=rule.get("fieldPath", ""),
                schema=schema, schema_path=schema_path or "self",
                subject_path=(_SLUGS.get(rule["rule"], (None, None))[0] or "") if root else "")
        for rule in _own_rules(schema)]
    node.list_type = _list_type(schema, type_)
    if node.list_type is not None:
        node.map_keys = tuple(schema.get("x-kubernetes-list-map-keys") or ())
        item_props = (schema.get("items") or {}).get("properties") or {}
        node.key_defaults = {k: item_props[k]["default"] for k in node.map_keys
                             if "default" in item_props.get(k, {})}
    node.embedded_meta = not root and schema_path.endswith("metadata") and _is_object_meta(schema)
    return node


def _is_object_meta(schema: dict) -> bool:
    props = schema.get("properties") or {}
    return "labels" in props and "annotations" in props


def build_tree(schema: dict, kind: str, carries: dict | None = None) -> Node:
    """The check tree of a root schema (`kind` names the CEL rule ids); it grows as objects are checked.
    `carries`: the memo of which schema nodes carry checks, when several trees share it (their schema
    nodes must then outlive it)."""
    return _node(schema, kind, "", root=True, carries=carries)


@functools.cache
def tree(entry: SchemaEntry) -> Node:
    # The trees of one release share the memo of which schema nodes carry checks: their schemas share
    # subtrees (kpt_fn.upstream), which the bundle keeps alive as long as the memo.
    return build_tree(load(entry), entry.kind, entry.bundle.derived("kpt_fn.validation.structural.carries", dict))


def cel_rules(entry: SchemaEntry) -> list[CelRule]:
    return _rules_below(tree(entry))


def cel_rules_of(schema: dict, kind: str) -> list[CelRule]:
    """The CEL rules of a root schema not (yet) in a bundle (the generator's view)."""
    return _rules_below(build_tree(schema, kind))


def _rules_below(root: Node) -> list[CelRule]:
    """Every rule of the tree, in schema order (this grows the whole tree)."""
    out = []

    def visit(node):
        if node is None:
            return
        out.extend(node.rules)
        for name in node.schema.get("properties") or {}:
            visit(node.prop(name))
        visit(node.items)
        visit(node.additional)

    visit(root)
    return out


# ----------------------------------------------------------------------------------------------
# Walking an object

_PY_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "integer": (int, float),
             "number": (int, float)}


def check(obj: dict, entry: SchemaEntry) -> list[Problem]:
    return check_tree(obj, tree(entry))


def check_tree(obj: dict, root: Node) -> list[Problem]:
    """List-type duplicates, then CEL failures, then embedded label syntax, like the API server."""
    dups: list[Problem] = []
    cel_problems: list[Problem] = []
    meta: list[Problem] = []
    _walk(obj, root, "", obj, dups, cel_problems, meta)
    return dups + cel_problems + meta


def _walk(value, node: Node, path: str, subject, dups, cel_problems, meta):
    expected = _PY_TYPES.get(node.type)
    if expected is not None and (not isinstance(value, expected) or
                                 (value is True or value is False) and expected is not bool):
        return  # a type error the schema check reports
    for rule in node.rules:
        _evaluate(rule, value, path, subject, cel_problems)
    if expected is dict or (expected is None and isinstance(value, dict)):
        if node.embedded_meta:
            meta.extend(names.check_metadata_maps(value, path, subject))
        if node.has_props:
            props = node.props
            # In the object's own order, so problems come out in document order.
            for name, x in value.items():
                sub = props.get(name, _UNSET)
                if sub is _UNSET:
                    sub = node.prop(name)
                if sub is not None and x is not None:
                    _walk(x, sub, child(path, name), subject, dups, cel_problems, meta)
        additional = node.additional
        if additional is not None:
            declared = node.schema.get("properties") or {}
            for k, x in value.items():
                if k not in declared and x is not None:
                    _walk(x, additional, key(path, k), subject, dups, cel_problems, meta)
    elif expected is list or (expected is None and isinstance(value, list)):
        if node.list_type and len(value) > 1:
            dups.extend(_duplicates(value, node, path, subject))
        elif node.list_type == "map" and value and not isinstance(value[0], (dict, type(None))):
            dups.extend(_duplicates(value, node, path, subject))
        items = node.items
        if items is not None:
            for i, x in enumerate(value):
                if x is not None:
                    _walk(x, items, index(path, i), subject, dups, cel_problems, meta)


def _identity(value):
    """A hashable stand-in for a JSON value; like Go's map keys, 1 and 1.0 and true stay distinct."""
    if isinstance(value, (dict, list)):
        return go_json(value)
    return (type(value), value)


def _duplicates(items: list, node: Node, path: str, subject) -> list[Problem]:
    """The API server reports the second occurrence of each repeated key once."""
    if node.list_type == "map":
        for i, x in enumerate(items):
            if x is not None and not isinstance(x, dict):
                return [Problem(body(INVALID, x, "must be an object for an array of list-type map"),
                                index(path, i), subject=subject, rule=LIST_TYPE_RULE)]
    if len(items) <= 1:
        return []
    keys = node.map_keys
    defaults = node.key_defaults
    seen: dict = {}
    out = []
    for i, x in enumerate(items):
        if node.list_type == "map":
            x = x or {}
            if len(keys) == 1:
                v = x.get(keys[0])
                if v is None:
                    v = defaults.get(keys[0])
                ident = None if v is None else _identity(v)
            else:
                ident = tuple(_identity(x.get(k, defaults.get(k))) for k in keys)
        else:
            ident = _identity(x)
        times = seen.get(ident, 0)
        seen[ident] = times + 1
        if times == 1:
            out.append(Problem(body(DUPLICATE, _shown_key(x, node)), index(path, i), subject=subject,
                               rule=LIST_TYPE_RULE))
    return out


def _shown_key(item, node: Node):
    """What the API server prints for a duplicate: the item of a set, the key fields of a map."""
    if node.list_type != "map":
        return item
    shown = {}
    for k in node.map_keys:
        v = item.get(k)
        if v is None:
            v = node.key_defaults.get(k)
        if v is not None:
            shown[k] = v
    return shown


def _evaluate(rule: CelRule, value, path: str, subject, out: list):
    if rule.program.compile_error:
        out.append(Problem(f"rule compile error: {rule.program.compile_error}", path, subject=subject,
                           rule=rule.id))
        return
    try:
        ok = rule.program.evaluate(value)
    except cel.CelError as exc:
        text = str(exc)
        if text.startswith("no such overload"):
            detail = (f"'{text}': call arguments did not match a supported operator, function or "
                      f"macro signature for rule: {rule.error_name}")
        else:
            detail = f"{text} evaluating rule: {rule.error_name}"
        out.append(Problem(detail, child(path, rule.subject_path) if rule.subject_path else path,
                           subject=subject, rule=rule.id))
        return
    if ok is True:
        return
    detail = None
    if rule.message_program is not None:
        try:
            msg = rule.message_program.evaluate(value)
            if isinstance(msg, str) and msg.strip() and "\n" not in msg.strip():
                detail = msg.strip()
        except cel.CelError:
            pass
    if detail is None:
        detail = rule.message.strip() or f"failed rule: {rule.rule.strip()}"
    if rule.field_path:
        path = _with_field_path(path, rule.field_path)
    elif rule.subject_path:
        path = child(path, rule.subject_path)
    out.append(Problem(detail, path, subject=subject, rule=rule.id))


# One step of a rule's fieldPath; compiled by re's own cache on first use (only a failing rule with
# a fieldPath needs it).
_FIELD_PATH_STEP = r"\.([A-Za-z_][A-Za-z0-9_]*)|\['((?:[^'\\]|\\.)*)'\]"


def _with_field_path(path: str, field_path: str) -> str:
    """Append a rule's `fieldPath` (`.a.b`, `.a['x.y']`), normalised like the API server does."""
    step = re.compile(_FIELD_PATH_STEP)
    pos = 0
    while pos < len(field_path):
        m = step.match(field_path, pos)
        if not m:
            return path
        path = child(path, m.group(1) if m.group(1) is not None else m.group(2))
        pos = m.end()
    return path
