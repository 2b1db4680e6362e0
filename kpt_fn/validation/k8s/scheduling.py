"""Where a pod may run: nodeSelector, tolerations, affinity, topology spread constraints.

Kubernetes v1.36 pkg/apis/core/validation/validation.go ValidateTolerations, validateTaintEffect,
validateAffinity (validateNodeAffinity, ValidateNodeSelector, ValidateNodeSelectorRequirement,
ValidateNodeFieldSelectorRequirement, ValidatePreferredSchedulingTerms, validatePodAffinityTerm,
validateWeightedPodAffinityTerms, validateMatchLabelKeysAndMismatchLabelKeys),
validateTopologySpreadConstraints; label selectors as apimachinery v0.36 pkg/apis/meta/v1/validation
ValidateLabelSelector and ValidateLabels. MatchLabelKeysInPodAffinity is GA and locked on since 1.33
(pkg/features/kube_features.go), so matchLabelKeys / mismatchLabelKeys are judged.
"""

from __future__ import annotations

from kpt_fn.apimachinery import validation as utilvalidation
from kpt_fn.apimachinery.field import child, index
from kpt_fn.validation.k8s.findings import as_dict, as_int, as_list, as_str

TOLERATIONS = "k8s/tolerations"
AFFINITY = "k8s/affinity"
SPREAD = "k8s/topology-spread"
NODE_SELECTOR = "k8s/node-selector"

EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
WHEN_UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")
INCLUSION_POLICIES = ("Honor", "Ignore")
# validation.go isNotPositiveErrorMsg, ValidatePositiveField's detail (maxSkew and minDomains)
POSITIVE = "must be greater than zero"


def label_name(value: str, path: str, rule: str, f) -> None:
    for msg in utilvalidation.is_qualified_name(value):
        f.invalid(rule, path, value, msg)


def labels(mapping, path: str, rule: str, f) -> None:
    """ValidateLabels: qualified-name keys, label values."""
    for k, v in as_dict(mapping).items():
        if not isinstance(k, str):
            continue
        label_name(k, path, rule, f)
        if isinstance(v, str):
            for msg in utilvalidation.is_label_value(v):
                f.invalid(rule, path, v, msg)


def _operator(op, values: list, path: str, rule: str, f, numeric: bool) -> None:
    """A selector requirement's operator and how many values it takes (label selectors have no
    Gt/Lt; node selectors do)."""
    if op in ("In", "NotIn"):
        if not values:
            f.required(rule, child(path, "values"), "must be specified when `operator` is 'In' or 'NotIn'")
    elif op in ("Exists", "DoesNotExist"):
        if values:
            f.forbidden(rule, child(path, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")
    elif numeric and op in ("Gt", "Lt"):
        if len(values) != 1:
            f.required(rule, child(path, "values"), "must be specified single value when `operator` is 'Lt' or 'Gt'")
    else:
        f.invalid(rule, child(path, "operator"), op, "not a valid selector operator")


def label_selector(selector, path: str, rule: str, f) -> None:
    if not isinstance(selector, dict):
        return
    for i, expr in enumerate(as_list(selector.get("matchExpressions"))):
        expr = as_dict(expr)
        where = index(child(path, "matchExpressions"), i)
        op, values = expr.get("operator"), as_list(expr.get("values"))
        _operator(op, values, where, rule, f, numeric=False)
        k = as_str(expr.get("key"))
        if k is not None:
            label_name(k, child(where, "key"), rule, f)
        for j, v in enumerate(values):
            if isinstance(v, str):
                for msg in utilvalidation.is_label_value(v):
                    f.invalid(rule, index(child(where, "values"), j), v, msg)
    labels(selector.get("matchLabels"), child(path, "matchLabels"), rule, f)


def check_tolerations(tolerations, path: str, f) -> None:
    rule = TOLERATIONS
    for i, tol in enumerate(as_list(tolerations)):
        if not isinstance(tol, dict):
            continue
        where = index(path, i)
        k, op = as_str(tol.get("key")) or "", tol.get("operator") or ""
        effect, value = tol.get("effect") or "", tol.get("value") or ""
        if k:
            label_name(k, child(where, "key"), rule, f)
        if not k and op != "Exists":
            f.invalid(rule, child(where, "operator"), op,
                      "operator must be Exists when `key` is empty, which means \"match all values and all keys\"")
        if tol.get("tolerationSeconds") is not None and effect != "NoExecute":
            f.invalid(rule, child(where, "effect"), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set")
        if op in ("Equal", ""):
            if isinstance(value, str):
                errs = utilvalidation.is_label_value(value)
                if errs:
                    f.invalid(rule, child(where, "operator"), value, ";".join(errs))
        elif op == "Exists":
            if value:
                f.invalid(rule, child(where, "operator"), value, "value must be empty when `operator` is 'Exists'")
        else:
            f.unsupported(rule, child(where, "operator"), op, ("Equal", "Exists"))
        if effect and effect not in EFFECTS:
            f.unsupported(rule, child(where, "effect"), effect, EFFECTS)


def _node_selector_requirement(req: dict, path: str, allow_invalid_values: bool, f) -> None:
    op, values = req.get("operator"), as_list(req.get("values"))
    _operator(op, values, path, AFFINITY, f, numeric=True)
    label_name(as_str(req.get("key")) or "", child(path, "key"), AFFINITY, f)
    if not allow_invalid_values:
        for j, v in enumerate(values):
            if isinstance(v, str):
                for msg in utilvalidation.is_label_value(v):
                    f.invalid(AFFINITY, index(child(path, "values"), j), v, msg)


def _node_field_requirement(req: dict, path: str, f) -> None:
    op, values = req.get("operator"), as_list(req.get("values"))
    if op in ("In", "NotIn"):
        if len(values) != 1:
            f.required(AFFINITY, child(path, "values"),
                       "must be only one value when `operator` is 'In' or 'NotIn' for node field selector")
    else:
        f.invalid(AFFINITY, child(path, "operator"), op, "not a valid selector operator")
    if req.get("key") != "metadata.name":
        f.invalid(AFFINITY, child(path, "key"), req.get("key"), "not a valid field selector key")
    else:
        for j, v in enumerate(values):
            if isinstance(v, str):
                for msg in utilvalidation.is_dns1123_subdomain(v):
                    f.invalid(AFFINITY, index(child(path, "values"), j), v, msg)


def _node_selector_term(term: dict, path: str, allow_invalid_values: bool, f) -> None:
    for j, req in enumerate(as_list(term.get("matchExpressions"))):
        _node_selector_requirement(as_dict(req), index(child(path, "matchExpressions"), j), allow_invalid_values, f)
    for j, req in enumerate(as_list(term.get("matchFields"))):
        _node_field_requirement(as_dict(req), index(child(path, "matchFields"), j), f)


def _weight(value, path: str, f) -> None:
    weight = as_int(value)
    if weight is not None and not 0 < weight <= 100:
        f.invalid(AFFINITY, path, weight, "must be in the range 1-100")


# The labels the JobSet controller puts on every Job's pod template (labelAndAnnotateObject in
# pkg/controllers/jobset_controller.go, the same keys at v0.11.1 and v0.12.0). Left out: the
# coordinator label (only with spec.coordinator, which this check does not see) and
# job-restart-attempt (behind the RestartJob gate, off by default): a key missing here can only
# miss an error, never invent one.
JOBSET_POD_LABELS = frozenset({
    "jobset.sigs.k8s.io/jobset-name", "jobset.sigs.k8s.io/jobset-uid", "jobset.sigs.k8s.io/replicatedjob-name",
    "jobset.sigs.k8s.io/replicatedjob-replicas", "jobset.sigs.k8s.io/global-replicas", "jobset.sigs.k8s.io/job-index",
    "jobset.sigs.k8s.io/job-key", "jobset.sigs.k8s.io/job-global-index", "jobset.sigs.k8s.io/restart-attempt",
    "jobset.sigs.k8s.io/group-name", "jobset.sigs.k8s.io/group-replicas", "jobset.sigs.k8s.io/job-group-index"})


def _selector_keys(selector: dict) -> list:
    """The keys of a label selector in upstream's walk order: matchLabels, then each expression."""
    keys = list(as_dict(selector.get("matchLabels")))
    keys += [as_dict(e).get("key") for e in as_list(selector.get("matchExpressions"))]
    return [k for k in keys if isinstance(k, str)]  # another type is the schema check's


def _label_keys(term: dict, path: str, pod_labels, f, rule: str = AFFINITY) -> None:
    """validateMatchLabelKeysAndMismatchLabelKeys (pkg/apis/core/validation/validation.go), shared by
    pod (anti-)affinity terms and topology spread constraints (whose MatchLabelKeysInPodTopologySpread
    and ...SelectorMerge gates are beta and on, pkg/features/kube_features.go).

    The Job's template is validated as written; when the Job controller creates each Pod, the pod
    strategy (pkg/registry/core/pod/strategy.go applyMatchLabelKeysAndMismatchLabelKeys) first adds
    `key In (<the pod's value>)` to the labelSelector for every matchLabelKeys key the pod carries,
    and the same check runs again on the Pod. A key written both in matchLabelKeys and in the
    labelSelector therefore fails every Pod when the pod has that label (the template's labels and
    JobSet's own): that is reported too, with the same message and path."""
    selector = term.get("labelSelector")
    match_keys = [k for k in as_list(term.get("matchLabelKeys")) if isinstance(k, str)]
    mismatch_keys = [k for k in as_list(term.get("mismatchLabelKeys")) if isinstance(k, str)]
    for field, keys in (("matchLabelKeys", match_keys), ("mismatchLabelKeys", mismatch_keys)):
        if not keys:
            continue
        if not isinstance(selector, dict):
            f.forbidden(rule, child(path, field), "must not be specified when labelSelector is not set")
            continue
        for i, k in enumerate(keys):
            label_name(k, index(child(path, field), i), rule, f)
    if isinstance(selector, dict) and match_keys:
        position = {k: i for i, k in enumerate(match_keys)}
        written = _selector_keys(selector)
        merged = [k for k in match_keys if k in pod_labels]  # what the pod strategy appends
        seen: set = set()
        reported: set = set()
        for k in written + merged:
            if k in position and k in seen and k not in reported:
                # upstream's path: the term indexed by the key's place in matchLabelKeys
                # its blame: the matchLabelKeys entry the user wrote
                f.invalid(rule, index(path, position[k]), k, "exists in both matchLabelKeys and labelSelector",
                          hint=index(child(path, "matchLabelKeys"), position[k]))
                reported.add(k)
            seen.add(k)
    mismatched = set(mismatch_keys)
    for i, k in enumerate(match_keys):
        if k in mismatched:
            f.invalid(rule, index(child(path, "matchLabelKeys"), i), k, "exists in both matchLabelKeys and mismatchLabelKeys")


def _pod_affinity_term(term: dict, path: str, f, pod_labels=frozenset()) -> None:
    label_selector(term.get("labelSelector"), child(path, "labelSelector"), AFFINITY, f)
    label_selector(term.get("namespaceSelector"), child(path, "namespaceSelector"), AFFINITY, f)
    for ns in as_list(term.get("namespaces")):
        if isinstance(ns, str):
            for msg in utilvalidation.is_dns1123_label(ns):
                f.invalid(AFFINITY, child(path, "namespace"), ns, msg)
    _label_keys(term, path, pod_labels, f)
    topology = as_str(term.get("topologyKey")) or ""
    if not topology:
        f.required(AFFINITY, child(path, "topologyKey"), "can not be empty")
    label_name(topology, child(path, "topologyKey"), AFFINITY, f)


def _pod_affinity(affinity: dict, path: str, f, pod_labels) -> None:
    required = "requiredDuringSchedulingIgnoredDuringExecution"
    preferred = "preferredDuringSchedulingIgnoredDuringExecution"
    for i, term in enumerate(as_list(affinity.get(required))):
        _pod_affinity_term(as_dict(term), index(child(path, required), i), f, pod_labels)
    for i, weighted in enumerate(as_list(affinity.get(preferred))):
        weighted = as_dict(weighted)
        where = index(child(path, preferred), i)
        _weight(weighted.get("weight"), child(where, "weight"), f)
        _pod_affinity_term(as_dict(weighted.get("podAffinityTerm")), child(where, "podAffinityTerm"), f, pod_labels)


def _pod_labels(template_labels) -> frozenset:
    return JOBSET_POD_LABELS | {k for k in as_dict(template_labels) if isinstance(k, str)}


def check_affinity(affinity, path: str, f, template_labels=None) -> None:
    """`template_labels`: the pod template's labels (with JOBSET_POD_LABELS, what each Pod carries)."""
    if not isinstance(affinity, dict):
        return
    node = affinity.get("nodeAffinity")
    if isinstance(node, dict):
        where = child(path, "nodeAffinity")
        required = node.get("requiredDuringSchedulingIgnoredDuringExecution")
        if isinstance(required, dict):
            terms_path = child(child(where, "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms")
            terms = as_list(required.get("nodeSelectorTerms"))
            if not terms:
                f.required(AFFINITY, terms_path, "must have at least one node selector term")
            for i, term in enumerate(terms):
                _node_selector_term(as_dict(term), index(terms_path, i), False, f)
        for i, pref in enumerate(as_list(node.get("preferredDuringSchedulingIgnoredDuringExecution"))):
            pref = as_dict(pref)
            pw = index(child(where, "preferredDuringSchedulingIgnoredDuringExecution"), i)
            _weight(pref.get("weight"), child(pw, "weight"), f)
            # preferred terms may carry label values that are not valid (they can still match)
            _node_selector_term(as_dict(pref.get("preference")), child(pw, "preference"), True, f)
    pod_labels = _pod_labels(template_labels)
    for kind in ("podAffinity", "podAntiAffinity"):
        if isinstance(affinity.get(kind), dict):
            _pod_affinity(affinity[kind], child(path, kind), f, pod_labels)


def check_topology_spread(constraints, path: str, f, template_labels=None) -> None:
    rule = SPREAD
    pod_labels = _pod_labels(template_labels)
    items = [c if isinstance(c, dict) else {} for c in as_list(constraints)]
    for i, c in enumerate(items):
        where = index(path, i)
        # ValidatePositiveField: an absent maxSkew is 0 and refused; ValidateTopologyKey checks only
        # that the key is not empty (no label-name syntax); ValidateWhenUnsatisfiable refuses "" too
        skew = c.get("maxSkew", 0)
        skew = as_int(skew)
        if skew is not None and skew <= 0:
            f.invalid(rule, child(where, "maxSkew"), skew, POSITIVE)
        topology = as_str(c.get("topologyKey")) or ""
        if not topology:
            f.required(rule, child(where, "topologyKey"), "can not be empty")
        when = c.get("whenUnsatisfiable", "")
        if isinstance(when, str) and when not in WHEN_UNSATISFIABLE:
            f.unsupported(rule, child(where, "whenUnsatisfiable"), when, WHEN_UNSATISFIABLE)
        for other in items[i + 1:]:
            if other.get("topologyKey") == c.get("topologyKey") and other.get("whenUnsatisfiable") == when:
                f.duplicate(rule, child(where, "{topologyKey, whenUnsatisfiable}"), f"{{{topology}, {when}}}")
                break
        domains = as_int(c.get("minDomains"))
        if domains is not None:
            if domains <= 0:
                f.invalid(rule, child(where, "minDomains"), domains, POSITIVE)
            if when != "DoNotSchedule":
                f.invalid(rule, child(where, "minDomains"), domains,
                          f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {when}")
        for field in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            policy = c.get(field)
            if isinstance(policy, str) and policy not in INCLUSION_POLICIES:
                f.unsupported(rule, child(where, field), policy, INCLUSION_POLICIES)
        label_selector(c.get("labelSelector"), child(where, "labelSelector"), rule, f)
        _label_keys({k: c.get(k) for k in ("labelSelector", "matchLabelKeys")}, where, pod_labels, f, rule)


def check_node_selector(selector, path: str, f) -> None:
    for k, v in as_dict(selector).items():
        if isinstance(k, str):
            label_name(k, path, NODE_SELECTOR, f)
        if isinstance(v, str):
            for msg in utilvalidation.is_label_value(v):
                f.invalid(NODE_SELECTOR, path, v, msg)
