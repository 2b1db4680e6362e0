"""Running the k8s.io/apiserver CEL library tables (pkg/cel/library/*_test.go at v0.36.3) against
kpt_fn.admission.cel.

A case is (name, expression, expectation); an expectation is one of
  ("value", v)            the expression evaluates to v (CEL equality, and the same Python type)
  ("cel", text)           it evaluates to what `text` evaluates to (the tables' Go values: ip(...), cidr(...))
  ("optional_none",)      optional.none()
  ("optional_of", v)      optional.of(v)
  ("compile", [patterns]) it does not compile, with an error matching each Go regular expression
  ("runtime", pattern)    its evaluation fails with that error: a Go regular expression or, where
                          the Go test compares strings (ip_test.go, cidr_test.go), the exact text
The expressions compile in the admission environment (kpt_fn.admission.cel.environment), a
superset of each test's own; where the two differ the case is in the file's NOT_PORTED, with why.
"""

from __future__ import annotations

import re

from kpt_fn.admission import cel
from kpt_fn.admission.cel.library import authz
from kpt_fn.admission.cel.runtime import Optional, equal


def check(expression: str, expectation: tuple, *, exact_errors: bool = False) -> str:
    """"" when `expression` meets `expectation`, else what happened instead."""
    program = cel.compile(expression, {})
    kind = expectation[0]
    if kind == "compile":
        if not isinstance(program, cel.CompileError):
            return "compiled"
        missing = [p for p in expectation[1] if not re.search(p, program.message)]
        return f"{program.message!r} lacks {missing}" if missing else ""
    if isinstance(program, cel.CompileError):
        return program.message
    try:
        value = program.evaluate({})
    except cel.EvalError as exc:
        if kind != "runtime":
            return f"error {exc.message!r}"
        matched = exc.message == expectation[1] if exact_errors else re.search(expectation[1], exc.message)
        return "" if matched else f"error {exc.message!r}, not {expectation[1]!r}"
    if kind == "runtime":
        return f"no error: {value!r}"
    if kind == "value":
        ok = equal(value, expectation[1]) and type(value) is type(expectation[1])
    elif kind == "cel":
        ok = value == cel.compile(expectation[1], {}).evaluate({})
    elif kind == "optional_none":
        ok = isinstance(value, Optional) and not value.present
    else:
        ok = isinstance(value, Optional) and value.present and value.value == expectation[1]
    return "" if ok else f"got {value!r}"


def table_tests(cases: list, not_ported: dict, *, exact_errors: bool = False):
    """The two tests of a ported table: each case not in `not_ported` meets its expectation, and
    `not_ported` names only cases of the table. A test module assigns them to its test names."""
    import pytest

    @pytest.mark.parametrize("name, expression, expectation", [c for c in cases if c[0] not in not_ported])
    def test_case(name, expression, expectation):
        assert check(expression, expectation, exact_errors=exact_errors) == ""

    def test_not_ported_names_cases():
        assert set(not_ported) <= {c[0] for c in cases}

    return test_case, test_not_ported_names_cases


def runtime_cost(expression: str) -> int:
    """The runtime cost of `expression` as cost_test.go's testCost evaluates it (an `authorizer`
    declared; its checks' answers are unknown offline, their cost is counted all the same)."""
    program = cel.compile(expression, {"authorizer": cel.AUTHORIZER_TYPE})
    assert isinstance(program, cel.Program), program.message
    return program.run({"authorizer": authz.authorizer()}).cost
