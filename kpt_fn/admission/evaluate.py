"""One policy and its bindings judged on one created object, as the API server's validating
admission policy plugin judges a CREATE request, and the decisions as problems.Problems.

k8s.io/apiserver v0.36.3:
- pkg/admission/plugin/policy/validating/dispatcher.go Dispatch (:97-300): the policy's
  matchConstraints, then each binding of it: its matchResources, its params (generic
  CollectParams), then the validator per param; a configuration error is a denial under
  failurePolicy Fail (default) and nothing under Ignore (addConfigError, :99-138); each denied
  decision goes through the binding's validationActions: Deny refuses the request
  ("ValidatingAdmissionPolicy '<p>' with binding '<b>' denied request: <message>", :286-292), Warn
  adds a warning ("Validation failed for ValidatingAdmissionPolicy '<p>' with binding '<b>': ...",
  :240), Audit writes the validation_failure audit annotation. Deny is an error here, Warn a
  warning, Audit an info.
- pkg/admission/plugin/policy/generic/policy_dispatcher.go CollectParams (:267-380).
- pkg/admission/plugin/policy/validating/validator.go Validate (:84-260): matchConditions first
  (webhook/matchconditions/matcher.go Match: a false condition skips the policy; errors follow the
  failure policy), then every validation; a result other than true is a denial with the
  messageExpression's string (trimmed; not empty, not multi-line, at most 5 KiB), else `message`,
  else "failed expression: <expression>"; reason Invalid unless given. Evaluation errors follow
  the failure policy. auditAnnotations: a string is published, null or empty excluded, an error
  a denial under Fail.

What cannot be known offline is stated, never passed: the authorizer's answers (an Unknown result),
a Namespace or param not among the inputs (kpt_fn.admission.match, CollectParams here).
"""

from __future__ import annotations

from kpt_fn import resource as res
from kpt_fn.admission import match
from kpt_fn.problems import ERROR, INFO, WARNING, Problem

RULE = "admission/validating-policy"
OFFLINE = "admission/offline"
_SEVERITY = {"Deny": ERROR, "Warn": WARNING, "Audit": INFO}
_RANK = {ERROR: 0, WARNING: 1, INFO: 2}


class Decision:
    """A denial (or a statement of what cannot be known) of one policy and binding for one object."""

    __slots__ = ("message", "reason", "index", "offline", "config")

    def __init__(self, message, reason="", index=None, offline=False, config=False):
        self.message, self.reason, self.index, self.offline, self.config = message, reason, index, offline, config


class Judge:
    """Compiles each policy once (per paramKind), then judges objects with it. `cel` is the CEL
    engine module (kpt_fn.admission.cel: compile, EvalError, CompileError, Lazy, Unknown,
    admission_variables and its budgets), passed in so that the judging is pure."""

    def __init__(self, cel, inputs, users: dict):
        self.cel, self.inputs, self.users = cel, inputs, users
        # a policy is compiled once per run, not once per TrainJob: the Inputs keep it
        self._compiled: dict = inputs.compiled if inputs is not None else {}

    # --- compiling ----------------------------------------------------------------------------

    def compiled(self, policy: dict) -> dict:
        key = (id(self.cel), res.name(policy))
        found = self._compiled.get(key)
        if found is None:
            found = self._compiled[key] = self._compile(policy)
        return found

    def _compile(self, policy: dict) -> dict:
        cel = self.cel
        spec = policy.get("spec") or {}
        has_params = spec.get("paramKind") is not None
        errors = []
        variables, declared = [], {}

        def env(authorizer=True):
            return cel.admission_variables(has_params=has_params, has_authorizer=authorizer, variables=dict(declared))

        def build(text, return_types, authorizer=True):
            if not isinstance(text, str):
                errors.append("expression must be a string")
                return None
            program = cel.compile(text, env(authorizer), return_types=return_types)
            if isinstance(program, cel.CompileError):
                errors.append(program.message)
                return None
            return program

        for var in spec.get("variables") or ():
            program = build(var.get("expression"), None)
            if program is not None:
                declared[var.get("name")] = program.output_type
                variables.append((var.get("name"), program))
        conditions = [(c.get("name"), build(c.get("expression"), ("bool",))) for c in spec.get("matchConditions") or ()]
        validations = []
        for v in spec.get("validations") or ():
            message_program = build(v["messageExpression"], ("string",), False) if v.get("messageExpression") else None
            validations.append((v, build(v.get("expression"), ("bool",)), message_program))
        audits = [(a, build(a.get("valueExpression"), ("string", "null_type"))) for a in spec.get("auditAnnotations") or ()]
        return {"variables": variables, "conditions": conditions, "validations": validations, "audits": audits,
                "error": "; ".join(errors)}

    # --- judging ------------------------------------------------------------------------------

    def judge(self, policy: dict, bindings: list, child, namespace) -> list:
        """[(binding or None, Decision)] of `policy` for `child` (a children.Child); `namespace`:
        the Namespace object of the child's namespace among the inputs (None: not among them)."""
        spec = policy.get("spec") or {}
        fail = spec.get("failurePolicy", "Fail") != "Ignore"
        ns_labels = res.dig(namespace, "metadata", "labels") or {} if namespace is not None else None
        labels = res.dig(child.obj, "metadata", "labels") or {}
        out = []

        def config_error(message, binding=None):
            if fail:
                what = "binding" if binding is not None else "policy"
                out.append((binding, Decision(f"failed to configure {what}: {message}", config=True)))

        if spec.get("matchConstraints") is None:  # policy_matcher.go DefinitionMatches (:67-71)
            config_error("policy contained no match constraints, a required field")
            return out
        try:
            matched = match.matches(match.defaulted(spec.get("matchConstraints")), child.request, labels, ns_labels)[0]
        except match.SelectorError as exc:
            config_error(str(exc))
            return out
        if matched is False:
            return out
        if matched == match.UNKNOWN_NAMESPACE:
            return [(None, _unknown_namespace(child))]
        compiled = self.compiled(policy)
        for binding in bindings:
            resources = (binding.get("spec") or {}).get("matchResources")
            try:  # generic/policy_matcher.go BindingMatches: no matchResources matches every request
                bound = True if resources is None else \
                    match.matches(match.defaulted(resources), child.request, labels, ns_labels)[0]
            except match.SelectorError as exc:
                config_error(str(exc), binding)
                continue
            if bound is False:
                continue
            if bound == match.UNKNOWN_NAMESPACE:
                out.append((binding, _unknown_namespace(child)))
                continue
            params, why = self._params(spec.get("paramKind"), (binding.get("spec") or {}).get("paramRef"), child)
            if why is not None:
                if isinstance(why, Decision):
                    out.append((binding, why))
                else:
                    config_error(why, binding)
                continue
            for param in params:
                out += [(binding, d) for d in self._validate(compiled, fail, child, param, namespace)]
        return out

    def _params(self, kind, ref, child):
        """(params, None), or ([], why): a configuration error's text, or an offline Decision."""
        if kind is None or ref is None:
            return [None], None
        namespaced = self.inputs.namespaced(kind)
        ref_ns = ref.get("namespace") or ""
        if ref_ns and not namespaced:
            return [], "paramRef.namespace must not be provided for a cluster-scoped `paramKind`"
        ns = ref_ns or child.request["namespace"]
        if namespaced and not ns:
            return [], "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources"
        candidates = [o for o in self.inputs.params(kind) if not namespaced or res.namespace(o) == ns]
        if ref.get("name"):
            if ref.get("selector") is not None:
                return [], "paramRef.name and paramRef.selector are mutually exclusive"
            found = [o for o in candidates if res.name(o) == ref["name"]][:1]
            wanted = f"{kind.get('kind')} {ns + '/' if namespaced else ''}{ref['name']}"
        elif ref.get("selector") is not None:
            try:
                found = [o for o in candidates if match.selector_matches(ref["selector"], res.dig(o, "metadata", "labels") or {})]
            except match.SelectorError as exc:
                return [], str(exc)
            wanted = f"{kind.get('kind')} objects{' in ' + ns if namespaced else ''} selected by paramRef.selector"
        else:
            return [], "one of name or selector must be provided"
        if found:
            return found, None
        action = ref.get("parameterNotFoundAction") or "Allow"
        return [], Decision(f"the {wanted} are not among the inputs" if wanted.endswith("selector") else
                            f"{wanted} is not among the inputs", offline=True, reason=action)

    def _validate(self, compiled, fail: bool, child, param, namespace) -> list:
        cel = self.cel
        if compiled["error"]:
            return [Decision(compiled["error"])] if fail else []
        budget = [cel.RUNTIME_CEL_COST_BUDGET]
        activation = {
            "object": child.obj, "oldObject": None, "params": param,
            "request": self._request(child), "namespaceObject": _namespace_object(namespace),
            "authorizer": cel.Unknown("the authorizer cannot be asked offline"),
        }
        activation["authorizer.requestResource"] = activation["authorizer"]

        def thunk(program):
            def run():
                result = program.run(activation, cel.PER_CALL_LIMIT)
                budget[0] -= result.cost
                return result.value
            return run

        activation["variables"] = {name: cel.Lazy(thunk(p)) for name, p in compiled["variables"]}

        class OutOfBudget(Exception):
            pass

        def run(program, limit=None):
            """(value, error message or None); OutOfBudget once the binding's budget is spent
            (activation.go: the budget is shared by the validations and then the messages)."""
            try:
                result = program.run(activation, min(cel.PER_CALL_LIMIT, max(budget[0], 0)) if limit is None else limit)
            except cel.EvalError as exc:
                return None, exc.for_expression(program.expression)
            if limit is None:
                budget[0] -= result.cost
                if budget[0] < 0:
                    raise OutOfBudget
            return result.value, None

        errors = []
        # matchconditions/matcher.go Match evaluates the conditions with no Namespace (ForInput's nil):
        # namespaceObject is null there, whatever the object's namespace.
        namespace_object, activation["namespaceObject"] = activation["namespaceObject"], None
        for name, program in compiled["conditions"]:
            value, error = run(program, cel.RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS)
            if error:
                errors.append(error)
            elif value is False:
                return []
            elif isinstance(value, cel.Unknown):
                return [Decision(f"matchCondition {name!r} cannot be decided offline: {value.reason}", offline=True)]
        if errors:  # matchconditions/matcher.go Match: errors and no false condition
            return [Decision("; ".join(errors))] if fail else []
        activation["namespaceObject"] = namespace_object
        results = []
        try:
            for v, program, _ in compiled["validations"]:
                results.append(run(program) if program is not None else (None, "expression must be a string"))
        except OutOfBudget:
            return [Decision(cel.OUT_OF_BUDGET)] if fail else []
        out = []
        for i, ((v, _, message_program), (value, error)) in enumerate(zip(compiled["validations"], results)):
            if error:
                if fail:
                    out.append(Decision(error, index=i))
                continue
            if value is True:
                continue
            if isinstance(value, cel.Unknown):
                out.append(Decision(f"validations[{i}] cannot be decided offline: {value.reason}", index=i, offline=True))
                continue
            message = ""
            if message_program is not None:
                try:
                    text, _ = run(message_program)
                except OutOfBudget:
                    if fail:
                        out.append(Decision(f"failed messageExpression: {cel.OUT_OF_BUDGET}", index=i))
                    continue
                if isinstance(text, str):
                    text = text.strip()
                    if len(text.encode()) <= cel.MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES and "\n" not in text:
                        message = text
            message = message or (v.get("message") or "").strip() or f"failed expression: {str(v.get('expression')).strip()}"
            out.append(Decision(message, v.get("reason") or "Invalid", i))
        for a, program in compiled["audits"]:  # a separate budget (validator.go: auditAnnotationFilter)
            value, error = run(program, cel.RUNTIME_CEL_COST_BUDGET)
            if error and fail:
                out.append(Decision(error))
            elif not error and value is not None and not isinstance(value, str):
                out.append(Decision(f"valueExpression '{a.get('valueExpression')}' resulted in unsupported return type: "
                                    f"{type(value).__name__}. Return type must be either string or null."))
        return [d for d in out if d.message]

    def _request(self, child) -> dict:
        """CreateAdmissionRequest (pkg/admission/plugin/cel/filter.go) for the creating request."""
        r = child.request
        user = self.users.get(child.creator, "")
        groups = ["system:authenticated"]
        if user.startswith("system:serviceaccount:"):
            groups = ["system:serviceaccounts", f"system:serviceaccounts:{user.split(':')[2]}", *groups]
        gvk = {"group": r["group"], "version": r["version"], "kind": r["kind"]}
        gvr = {"group": r["group"], "version": r["version"], "resource": r["resource"]}
        return {"kind": gvk, "resource": gvr, "subResource": "", "requestKind": gvk, "requestResource": gvr,
                "requestSubResource": "", "name": r["name"], "namespace": r["namespace"], "operation": "CREATE",
                "userInfo": {"username": user, "groups": groups}, "dryRun": False,
                "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"}}


def _namespace_object(namespace):
    """CreateNamespaceObject (pkg/admission/plugin/cel/filter.go): the Namespace's metadata, spec and
    status; null for a cluster-scoped object."""
    if namespace is None:
        return None
    md = res.metadata(namespace)
    keep = ("name", "generateName", "namespace", "labels", "annotations", "uid", "creationTimestamp", "finalizers")
    return {"metadata": {k: md[k] for k in keep if k in md}, "spec": namespace.get("spec") or {},
            "status": namespace.get("status") or {}}


def _unknown_namespace(child) -> Decision:
    return Decision(f"its namespaceSelector needs the labels of Namespace {child.request['namespace']!r}, which is "
                    "not among the inputs (add the Namespace object, local-config, to judge it)", offline=True)


def severity(binding, decision: Decision) -> str:
    """The severity of a decision: a configuration error denies; otherwise the strongest of the
    binding's validationActions; what cannot be known offline is a warning."""
    if decision.offline:
        return WARNING
    if binding is None or decision.config:
        return ERROR
    actions = [_SEVERITY[a] for a in (binding.get("spec") or {}).get("validationActions") or () if a in _SEVERITY]
    return min(actions, key=_RANK.get) if actions else ERROR


def wording(policy: dict, binding, decision: Decision, sev: str) -> str:
    """The API server's words for a decision (dispatcher.go), or ours for what cannot be known."""
    p = res.name(policy)
    if decision.offline:
        named = f"ValidatingAdmissionPolicy '{p}'" + (f" with binding '{res.name(binding)}'" if binding is not None else "")
        return f"{named} cannot be judged offline: {decision.message}" + (
            f" (parameterNotFoundAction {decision.reason})" if decision.reason else "")
    if binding is None:
        return f"ValidatingAdmissionPolicy '{p}' denied request: {decision.message}"
    b = res.name(binding)
    if sev == WARNING:
        return f"Validation failed for ValidatingAdmissionPolicy '{p}' with binding '{b}': {decision.message}"
    if sev == INFO:
        return f"audit: ValidatingAdmissionPolicy '{p}' with binding '{b}' would record validation_failure: {decision.message}"
    reason = f" (reason {decision.reason})" if decision.reason and decision.reason != "Invalid" else ""
    return f"ValidatingAdmissionPolicy '{p}' with binding '{b}' denied request: {decision.message}{reason}"
