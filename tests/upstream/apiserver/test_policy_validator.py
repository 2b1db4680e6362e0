"""k8s.io/apiserver v0.36.3 pkg/admission/plugin/policy/validating/validator_test.go TestValidate,
ported case by case as data (kpt_fn.admission.evaluate's validator). Upstream feeds the validator
scripted evaluation results; here each validation, messageExpression, audit annotation and match
condition is an expression text whose scripted result a fake CEL engine returns (ScriptedCel). A
case: failure policy, validations [(result, reason, message, messageExpression result)], audit
annotation results, the match condition's result, the cost budget, and the denials expected
[(message it contains, reason)] (upstream's admits are the validations not denied). `ERR` stands
for an evaluation error; `NO` for "no messageExpression".
"""

from __future__ import annotations

from collections import namedtuple

import pytest

from kpt_fn.admission import evaluate
from support import celpy_admission

ERR, NO = object(), object()
Evaluation = namedtuple("Evaluation", "value cost")


class ScriptedCel:
    """The engine's interface (kpt_fn.admission.cel), its programs returning scripted results."""

    EvalError, CompileError, Lazy, Unknown = (celpy_admission.EvalError, celpy_admission.CompileError,
                                              celpy_admission.Lazy, celpy_admission.Unknown)
    PER_CALL_LIMIT = celpy_admission.PER_CALL_LIMIT
    RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS = celpy_admission.RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS
    MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES = 5 * 1024
    OUT_OF_BUDGET = celpy_admission.OUT_OF_BUDGET

    def __init__(self, script, budget):
        self.script, self.RUNTIME_CEL_COST_BUDGET = script, budget

    def admission_variables(self, **_):
        return {}

    def compile(self, text, variables, return_types=None):
        script = self.script

        class Program:
            expression, output_type = text, "dyn"

            def run(self, activation, cost_limit):
                if script[text] is ERR:
                    raise celpy_admission.EvalError("")
                return Evaluation(script[text], 1)
        return Program()


F = "Forbidden"
CASES = [
    # name, failurePolicy, validations, audits, match condition, budget, denials expected
    ("test pass", None, [(True, None, "", NO)], [], True, 0, []),
    ("test multiple pass", None, [(True, None, "", NO), (True, None, "", NO)], [], True, 0, []),
    ("test error with failurepolicy ignore", "Ignore", [(ERR, None, "", NO)], [], True, 0, []),
    ("test error with failurepolicy nil", None, [(ERR, None, "", NO)], [], True, 0, [("", "")]),
    ("test fail with failurepolicy fail", "Fail", [(ERR, None, "", NO)], [], True, 0, [("", "")]),
    ("test fail with failurepolicy ignore with multiple validations", "Ignore",
     [(True, None, "", NO), (ERR, None, "", NO)], [], True, 0, []),
    ("test fail with failurepolicy nil with multiple validations", None,
     [(True, None, "", NO), (ERR, None, "", NO)], [], True, 0, [("", "")]),
    ("test fail with failurepolicy fail with multiple validations", "Fail",
     [(True, None, "", NO), (ERR, None, "", NO)], [], True, 0, [("", "")]),
    ("test fail with failurepolicy ignore with multiple failed validations", "Ignore",
     [(ERR, None, "", NO), (ERR, None, "", NO)], [], True, 0, []),
    ("test fail with failurepolicy nil with multiple failed validations", None,
     [(ERR, None, "", NO), (ERR, None, "", NO)], [], True, 0, [("", ""), ("", "")]),
    ("test fail with failurepolicy fail with multiple failed validations", "Fail",
     [(ERR, None, "", NO), (ERR, None, "", NO)], [], True, 0, [("", ""), ("", "")]),
    ("test reason for fail no reason set", "Fail", [(False, None, "", NO)], [], True, 0,
     [("failed expression: v0", "Invalid")]),
    ("test reason for fail reason set", "Fail", [(False, F, "", NO)], [], True, 0, [("failed expression: v0", F)]),
    ("test reason for failed validations multiple validations", "Fail",
     [(False, F, "", NO), (False, "Unauthorized", "", NO)], [], True, 0,
     [("failed expression: v0", F), ("failed expression: v1", "Unauthorized")]),
    ("test message for failed validations", "Fail", [(False, F, "test", NO)], [], True, 0, [("test", F)]),
    ("test message for failed validations multiple validations", "Fail",
     [(False, F, "test1", NO), (False, F, "test2", NO)], [], True, 0, [("test1", F), ("test2", F)]),
    ("test empty validations with non-empty audit annotations", "Fail", [], ["string value"], True, 0, []),
    ("test non-empty validations with non-empty audit annotations", "Fail", [(True, F, "test1", NO)],
     ["string value"], True, 0, []),
    ("test audit annotations with null return", "Fail", [], [None, "string value"], True, 0, []),
    ("test audit annotations with failPolicy=fail", "Fail", [], [ERR], True, 0, [("resulted in error", "")]),
    ("test audit annotations with failPolicy=ignore", "Ignore", [], [ERR], True, 0, []),
    ("messageExpression successful, empty message", None, [(False, F, "", "evaluated message")], [], True, 0,
     [("evaluated message", F)]),
    ("messageExpression for multiple validations", None,
     [(False, F, "I am not overwritten", NO), (False, F, "I am overwritten", "evaluated message")], [], True, 0,
     [("I am not overwritten", F), ("evaluated message", F)]),
    ("messageExpression successful, overwritten message", None, [(False, F, "I am overwritten", "evaluated message")],
     [], True, 0, [("evaluated message", F)]),
    ("messageExpression user failure", None, [(False, F, "test1", ERR)], [], True, 0, [("test1", F)]),
    ("messageExpression eval to empty", None, [(False, F, "test1", " ")], [], True, 0, [("test1", F)]),
    ("messageExpression eval to multi-line", None, [(False, F, "test1", "hello\nthere")], [], True, 0, [("test1", F)]),
    ("messageExpression eval result too long", None, [(False, F, "test1", "x" * (5 * 1024 + 1))], [], True, 0,
     [("test1", F)]),
    ("messageExpression eval to null", None, [(False, F, "test1", None)], [], True, 0, [("test1", F)]),
    ("messageExpression out of budget after successful eval of expression", None, [(False, F, "test1", "x")], [], True, 1,
     [("running out of cost budget", "")]),
    ("no match surpresses failure", "Fail", [(ERR, None, "", NO)], [], False, 0, []),
    ("match error => presumed match", "Fail", [(ERR, None, "", NO)], [], ERR, 0, [("", "")]),
]

NOT_PORTED = {
    "test filter error": "the evaluator failing as a whole (ForInput's error) has no counterpart: each expression "
                         "is run on its own here, and its error is that expression's",
    "test filter error multiple evaluations": "as `test filter error`",
    "TestContextCanceled": "no request context offline: an evaluation is bounded by its cost, not cancelled",
}


def _policy(case):
    _, failure, validations, audits, condition, _, _ = case
    spec = {"validations": [], "auditAnnotations": [{"key": f"k{i}", "valueExpression": f"a{i}"} for i in range(len(audits))],
            "matchConditions": [{"name": "c", "expression": "c"}]}
    if failure:
        spec["failurePolicy"] = failure
    for i, (_, reason, message, message_result) in enumerate(validations):
        v = {"expression": f"v{i}"}
        if reason:
            v["reason"] = reason
        if message:
            v["message"] = message
        if message_result is not NO:
            v["messageExpression"] = f"m{i}"
        spec["validations"].append(v)
    return {"metadata": {"name": "p"}, "spec": spec}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_validate(case):
    name, failure, validations, audits, condition, budget, expected = case
    script = {"c": condition}
    script.update({f"v{i}": v[0] for i, v in enumerate(validations)})
    script.update({f"m{i}": v[3] for i, v in enumerate(validations)})
    script.update({f"a{i}": a for i, a in enumerate(audits)})
    cel = ScriptedCel(script, budget or celpy_admission.RUNTIME_CEL_COST_BUDGET)
    policy = _policy(case)
    judge = evaluate.Judge(cel, None, {})
    child = type("Child", (), {"obj": {}, "creator": "applier",
                               "request": {"group": "", "version": "v1", "resource": "pods", "namespace": "default",
                                           "name": "foo", "kind": "Pod"}})()
    got = judge._validate(judge.compiled(policy), failure != "Ignore", child, None, None)
    assert len(got) == len(expected), [d.message for d in got]
    for decision, (message, reason) in zip(got, expected):
        assert message in decision.message
        if reason:
            assert decision.reason == reason


def test_every_upstream_case_is_ported_or_not():
    assert len(CASES) + len(NOT_PORTED) - 1 == 34  # TestValidate's table at v0.36.3, and TestContextCanceled
    assert not {c[0] for c in CASES} & set(NOT_PORTED)
