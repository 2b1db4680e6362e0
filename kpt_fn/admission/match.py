"""Which policy and which binding apply to one admission request: Kubernetes 1.36's matching.

k8s.io/apiserver v0.36.3 (the staging repository of Kubernetes 1.36):
- pkg/admission/plugin/policy/matching/matching.go `Matches` (:75-126): namespace selector, then
  object selector, then excludeResourceRules, then resourceRules (none: every resource matches);
  a selector's error counts only once the resource rules matched. `matchesResourceRules` (:128-193):
  a rule matches, then resourceNames (empty: every name); matchPolicy Equivalent then retries the
  request's equivalent resources (the same resource served at another group or version).
- pkg/admission/plugin/webhook/predicates/rules/rules.go `Matcher.Matches` (:36-42): scope,
  operation, group, version, resource (`*`, `res/*`, `*/sub`).
- pkg/admission/plugin/webhook/predicates/namespace/matcher.go `MatchNamespaceSelector` (:95-126):
  a cluster-scoped request other than a Namespace always matches; an empty selector matches; a
  Namespace the server cannot find is an error (NotFound).
- pkg/admission/plugin/webhook/predicates/object/matcher.go: the object's labels (oldObject is null
  on CREATE).
- k8s.io/apimachinery pkg/apis/meta/v1/helpers.go LabelSelectorAsSelector and pkg/labels/selector.go:
  a null selector selects nothing, an empty one everything; matchLabels and matchExpressions (In,
  NotIn, Exists, DoesNotExist) are ANDed; keys must be qualified names, values label values.
- k8s.io/api admissionregistration/v1 defaults (pkg/apis/admissionregistration/v1/defaults.go
  SetDefaults_MatchResources): the selectors default to {} and matchPolicy to Equivalent, which
  `defaulted` applies to what comes from Git before matching.

Offline, a Namespace that is not among the inputs is neither found nor missing: UNKNOWN_NAMESPACE
is answered in place of a decision, and the caller states it (kpt_fn.admission.evaluate).
"""

from __future__ import annotations

from kpt_fn.apimachinery.validation import is_label_value, is_qualified_name

# A request as matching reads it, plain data (kpt_fn.admission.children.request builds it):
#   {"group", "version", "resource", "subResource", "namespace", "name", "operation", "kind"}
# `kind` is the request's kind; `kind_group`/`kind_version` default to the resource's.

UNKNOWN_NAMESPACE = "unknown-namespace"
_OPERATORS = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}


class SelectorError(ValueError):
    """A label selector the API server cannot parse (LabelSelectorAsSelector's errors)."""


def defaulted(criteria) -> dict:
    """SetDefaults_MatchResources on a copy: the selectors {} and matchPolicy Equivalent."""
    out = dict(criteria) if isinstance(criteria, dict) else {}
    for key in ("namespaceSelector", "objectSelector"):
        if out.get(key) is None:
            out[key] = {}
    out.setdefault("matchPolicy", "Equivalent")
    return out


def _requirements(selector: dict) -> list:
    """[(key, operator, values)] of a selector, checked as LabelSelectorAsSelector checks them."""
    out = []
    for key, value in (selector.get("matchLabels") or {}).items():
        out.append((key, "In", [value]))
    for expr in selector.get("matchExpressions") or ():
        expr = expr if isinstance(expr, dict) else {}
        out.append((expr.get("key"), expr.get("operator"), list(expr.get("values") or [])))
    for key, op, values in out:
        if op not in _OPERATORS:
            raise SelectorError(f'"{op}" is not a valid label selector operator')
        errors = is_qualified_name(key) if isinstance(key, str) else ("must be a string",)
        if errors:
            raise SelectorError(f"key: Invalid value: {key!r}: {'; '.join(errors)}")
        if op in ("In", "NotIn") and not values:
            raise SelectorError(f"values: Invalid value: {values}: for 'in', 'notin' operators, values set can't be empty")
        if op in ("Exists", "DoesNotExist") and values:
            raise SelectorError(f"values: Invalid value: {values}: values set must be empty for exists and does not exist")
        for v in values:
            errors = is_label_value(v) if isinstance(v, str) else ("must be a string",)
            if errors:
                raise SelectorError(f"values[0][{key}]: Invalid value: {v!r}: {'; '.join(errors)}")
    return out


def selector_matches(selector, labels: dict) -> bool:
    """Whether `labels` are selected by `selector` (None selects nothing, {} everything). Raises
    SelectorError for a selector the API server cannot parse."""
    if selector is None:
        return False
    if not isinstance(selector, dict):
        raise SelectorError(f"a label selector must be an object, not {type(selector).__name__}")
    labels = labels if isinstance(labels, dict) else {}
    for key, op, values in _requirements(selector):
        present = key in labels
        if op == "In" and not (present and labels[key] in values):
            return False
        if op == "NotIn" and present and labels[key] in values:  # an absent label is in no set
            return False
        if op == "Exists" and not present:
            return False
        if op == "DoesNotExist" and present:
            return False
    return True


def _exact_or_wildcard(items, requested: str) -> bool:
    return any(item in ("*", requested) for item in items or ())


def rule_matches(rule: dict, request: dict) -> bool:
    """rules.go Matcher.Matches: scope, operation, group, version, resource."""
    scope = rule.get("scope") or "*"
    namespace_request = request["resource"] == "namespaces" and request["group"] == "" and request["version"] == "v1"
    if scope == "Namespaced":
        if namespace_request or not request["namespace"]:
            return False
    elif scope == "Cluster":
        if not (namespace_request or not request["namespace"]):
            return False
    elif scope != "*":
        return False
    if not any(op in ("*", request["operation"]) for op in rule.get("operations") or ()):
        return False
    if not _exact_or_wildcard(rule.get("apiGroups"), request["group"]):
        return False
    if not _exact_or_wildcard(rule.get("apiVersions"), request["version"]):
        return False
    for text in rule.get("resources") or ():
        res, _, sub = str(text).partition("/")
        if res in ("*", request["resource"]) and sub in ("*", request["subResource"]):
            return True
    return False


def _named(rule: dict, request: dict) -> bool:
    names = rule.get("resourceNames") or []
    return not names or request["name"] in names


def _gvr(request: dict) -> tuple:
    return request["group"], request["version"], request["resource"]


def resource_rules_match(rules, match_policy, request: dict, equivalents=()) -> tuple | None:
    """matching.go matchesResourceRules: the (resource, kind) matched, or None. `equivalents`: the
    request's equivalent resources, [((group, version, resource), (group, version, kind))] (the
    API server's EquivalentResourceMapper; the objects a TrainJob creates have none in Kubernetes
    1.36: Pods, Jobs, ConfigMaps and Secrets are served at one version, JobSet, TrainJob and the
    PodGroups at the one their CRDs serve)."""
    rules = [r for r in rules or () if isinstance(r, dict)]
    for rule in rules:
        if rule_matches(rule, request) and _named(rule, request):
            return _gvr(request), request.get("gvk")
    if match_policy in (None, "Exact"):
        return None
    for rule in rules:
        for gvr, gvk in equivalents:
            if gvr == _gvr(request):
                continue
            other = {**request, "group": gvr[0], "version": gvr[1], "resource": gvr[2]}
            if rule_matches(rule, other) and _named(rule, request):
                return gvr, gvk
    return None


def matches(criteria, request: dict, object_labels: dict, namespace_labels, equivalents=()):
    """matching.go Matches for a (defaulted) matchConstraints or matchResources: (True, resource,
    kind), (False, None, None), or (UNKNOWN_NAMESPACE, None, None) when the decision needs the
    labels of a Namespace not among the inputs (`namespace_labels` None). Raises SelectorError for
    a selector the API server cannot parse, once the resource rules matched (as upstream does)."""
    criteria = criteria if isinstance(criteria, dict) else {}
    no = (False, None, None)
    ns_result, ns_error = True, None
    if request["namespace"] or request["resource"] == "namespaces":
        selector = criteria.get("namespaceSelector")
        try:
            if selector is None or _requirements(selector):  # a null selector selects nothing
                if selector is not None and namespace_labels is None:
                    ns_result = UNKNOWN_NAMESPACE
                else:
                    ns_result = selector_matches(selector, namespace_labels)
        except SelectorError as exc:
            ns_result, ns_error = None, exc
    if ns_result is False:
        return no
    obj_result, obj_error = True, None
    try:
        obj_result = selector_matches(criteria.get("objectSelector"), object_labels)
    except SelectorError as exc:
        obj_result, obj_error = None, exc
    if obj_result is False:
        return no
    policy = criteria.get("matchPolicy")
    if resource_rules_match(criteria.get("excludeResourceRules"), policy, request, equivalents):
        return no
    if criteria.get("resourceRules"):
        found = resource_rules_match(criteria["resourceRules"], policy, request, equivalents)
        if found is None:
            return no
    else:
        found = (_gvr(request), request.get("gvk"))
    if ns_error or obj_error:
        raise ns_error or obj_error
    return ns_result, found[0], found[1]
