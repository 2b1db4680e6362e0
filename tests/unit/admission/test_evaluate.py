"""kpt_fn.admission.evaluate: a policy and its bindings on one created object (upstream's validator
table is ported in tests/upstream/apiserver/test_policy_validator.py); CEL by cel-python's stand-in."""

from __future__ import annotations

import pytest

from kpt_fn.admission import children, evaluate, inputs
from kpt_fn.problems import ERROR, INFO, WARNING
from support import celpy_admission

PODS = {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"], "operations": ["CREATE"]}]}


def pod(namespace="team-a", labels=None, image="reg/x:1"):
    return children.Child({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": namespace, "labels": labels or {}},
                           "spec": {"containers": [{"name": "c", "image": image}]}}, "Pod `p`", children.JOB_CONTROLLER)


def policy(validations, **spec):
    return {"apiVersion": inputs.API_VERSION, "kind": inputs.POLICY, "metadata": {"name": "pol"},
            "spec": {"matchConstraints": PODS, "validations": validations, **spec}}


def binding(actions=("Deny",), **spec):
    return {"apiVersion": inputs.API_VERSION, "kind": inputs.BINDING, "metadata": {"name": "bind"},
            "spec": {"policyName": "pol", "validationActions": list(actions), **spec}}


def judge(pol, bindings, child, objects=(), cel=celpy_admission):
    found, _ = inputs.gather([pol, *bindings, *objects])
    return evaluate.Judge(cel, found, children.USERS).judge(pol, bindings, child, found.namespaces.get(child.request["namespace"]))


NS = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a", "labels": {"tier": "gpu"}}}
IMAGES = [{"expression": "object.spec.containers.all(c, c.image.startsWith('reg/'))", "message": "images from reg/"}]


def test_pass_and_deny():
    assert judge(policy(IMAGES), [binding()], pod()) == []
    [(b, d)] = judge(policy(IMAGES), [binding()], pod(image="docker.io/x"))
    assert d.message == "images from reg/" and d.reason == "Invalid" and d.index == 0
    assert evaluate.severity(b, d) == ERROR
    assert evaluate.wording(policy(IMAGES), b, d, ERROR) == \
        "ValidatingAdmissionPolicy 'pol' with binding 'bind' denied request: images from reg/"


@pytest.mark.parametrize("actions,severity,start", [
    (["Warn"], WARNING, "Validation failed for ValidatingAdmissionPolicy 'pol' with binding 'bind': "),
    (["Audit"], INFO, "audit: "),
    (["Deny", "Audit"], ERROR, "ValidatingAdmissionPolicy 'pol' with binding 'bind' denied request"),
])
def test_validation_actions(actions, severity, start):
    [(b, d)] = judge(policy(IMAGES), [binding(actions)], pod(image="x"))
    assert evaluate.severity(b, d) == severity
    assert evaluate.wording(policy(IMAGES), b, d, severity).startswith(start)


def test_message_expression_and_default_message():
    v = [{"expression": "false", "messageExpression": "'pod ' + object.metadata.name"}, {"expression": "1 == 2"}]
    assert [d.message for _, d in judge(policy(v), [binding()], pod())] == ["pod p", "failed expression: 1 == 2"]


def test_variables_are_lazy_and_composited():
    v = [{"expression": "variables.fromRegistry"}]
    pol = policy(v, variables=[{"name": "image", "expression": "object.spec.containers[0].image"},
                               {"name": "fromRegistry", "expression": "variables.image.startsWith('reg/')"}])
    assert judge(pol, [binding()], pod()) == []
    assert len(judge(pol, [binding()], pod(image="x"))) == 1


def test_match_conditions_skip():
    pol = policy([{"expression": "false"}], matchConditions=[{"name": "gpu", "expression": "'gpu' in object.metadata.labels"}])
    assert judge(pol, [binding()], pod()) == []
    assert len(judge(pol, [binding()], pod(labels={"gpu": "1"}))) == 1


def test_namespace_selector_reads_the_namespace_or_says_it_cannot():
    pol = policy([{"expression": "false"}], matchConstraints={**PODS, "namespaceSelector": {"matchLabels": {"tier": "gpu"}}})
    [(_, d)] = judge(pol, [binding()], pod())
    assert d.offline and "Namespace 'team-a', which is not among the inputs" in d.message
    assert len(judge(pol, [binding()], pod(), [NS])) == 1
    assert judge(pol, [binding()], pod(namespace="team-b"), [NS]) != []  # team-b unknown: stated


def test_binding_match_resources():
    other = binding(matchResources={"resourceRules": [{"apiGroups": ["batch"], "apiVersions": ["v1"], "resources": ["jobs"],
                                                       "operations": ["CREATE"]}]})
    assert judge(policy([{"expression": "false"}]), [other], pod()) == []


def test_params_from_the_inputs():
    pol = policy([{"expression": "object.spec.containers.all(c, c.image.startsWith(params.data.prefix))",
                   "messageExpression": "'not from ' + params.data.prefix"}],
                 paramKind={"apiVersion": "v1", "kind": "ConfigMap"})
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "registry", "namespace": "team-a"}, "data": {"prefix": "corp/"}}
    ref = binding(paramRef={"name": "registry", "parameterNotFoundAction": "Deny"})
    [(_, d)] = judge(pol, [ref], pod(), [cm])
    assert d.message == "not from corp/"
    [(_, d)] = judge(pol, [ref], pod())
    assert d.offline and "ConfigMap team-a/registry is not among the inputs" in d.message and d.reason == "Deny"
    selected = binding(paramRef={"selector": {"matchLabels": {"x": "y"}}})
    [(_, d)] = judge(pol, [selected], pod(), [cm])
    assert d.offline


def test_param_configuration_errors_follow_the_failure_policy():
    pol = policy([{"expression": "true"}], paramKind={"apiVersion": "v1", "kind": "ConfigMap"})
    bad = binding(paramRef={"name": "a", "selector": {}})
    [(_, d)] = judge(pol, [bad], pod())
    assert d.config and "mutually exclusive" in d.message
    assert judge({**pol, "spec": {**pol["spec"], "failurePolicy": "Ignore"}}, [bad], pod()) == []


def test_compile_and_evaluation_errors():
    [(_, d)] = judge(policy([{"expression": "object.("}]), [binding()], pod())
    assert "compilation failed" in d.message
    [(_, d)] = judge(policy([{"expression": "object.nope == 1"}]), [binding()], pod())
    assert d.message.startswith("expression 'object.nope == 1' resulted in error")
    assert judge(policy([{"expression": "object.nope == 1"}], failurePolicy="Ignore"), [binding()], pod()) == []


def test_missing_match_constraints_is_a_configuration_error():
    pol = policy([{"expression": "true"}])
    del pol["spec"]["matchConstraints"]
    [(b, d)] = judge(pol, [binding()], pod())
    assert b is None and "no match constraints" in d.message


class UnknownCel:
    """The engine's answer for the authorizer: an Unknown."""

    EvalError, CompileError, Lazy, Unknown = (celpy_admission.EvalError, celpy_admission.CompileError,
                                              celpy_admission.Lazy, celpy_admission.Unknown)
    PER_CALL_LIMIT = RUNTIME_CEL_COST_BUDGET = RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS = 10**6
    MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES = 5120
    OUT_OF_BUDGET = "out"

    @staticmethod
    def admission_variables(**_):
        return {}

    @staticmethod
    def compile(text, variables, return_types=None):
        class P:
            expression, output_type = text, "bool"

            def run(self, activation, limit):
                return celpy_admission.Evaluation(activation["authorizer"], 1)
        return P()


def test_authorizer_is_stated_not_passed():
    [(_, d)] = judge(policy([{"expression": "authorizer.group('').resource('pods').check('create').allowed()"}]),
                     [binding()], pod(), cel=UnknownCel)
    assert d.offline and "cannot be decided offline" in d.message
    assert evaluate.severity(None, d) == WARNING


def test_request_is_the_creating_controller():
    request = evaluate.Judge(celpy_admission, None, {**children.USERS})._request(pod())
    assert request["userInfo"]["username"] == children.USERS[children.JOB_CONTROLLER]
    assert "system:serviceaccounts:kube-system" in request["userInfo"]["groups"]
    assert (request["operation"], request["dryRun"], request["resource"]["resource"]) == ("CREATE", False, "pods")


def test_match_conditions_see_no_namespace_object_validations_do():
    pol = policy([{"expression": "namespaceObject.metadata.labels.tier == 'gpu'"}],
                 matchConditions=[{"name": "no-namespace", "expression": "namespaceObject == null"}])
    assert judge(pol, [binding()], pod(), [NS]) == []
    pol = policy([{"expression": "false"}], matchConditions=[{"name": "ns", "expression": "namespaceObject != null"}])
    assert judge(pol, [binding()], pod(), [NS]) == []


def test_a_policy_is_compiled_once_per_run():
    found, _ = inputs.gather([policy(IMAGES), binding()])
    compiled = []
    real = celpy_admission.compile

    class Counting:
        def __getattr__(self, name):
            return getattr(celpy_admission, name)

        @staticmethod
        def compile(text, variables, return_types=None):
            compiled.append(text)
            return real(text, variables, return_types=return_types)

    cel = Counting()
    for _ in range(3):  # a Judge per TrainJob, as check.check makes them
        evaluate.Judge(cel, found, children.USERS).judge(found.policies["pol"], found.bindings["pol"], pod(), None)
    assert compiled == [IMAGES[0]["expression"]]
