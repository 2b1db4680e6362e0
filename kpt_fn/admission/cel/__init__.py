"""CEL as the Kubernetes 1.36 API server evaluates it, for the user-written expressions of admission
policies (issue 37, point 3). The contract with the policy side (kpt_fn/admission's other modules):

    compile(expression, variables, *, return_types=None) -> Program | CompileError
    Program.evaluate(activation, cost_limit=PER_CALL_LIMIT) -> value        (raises EvalError)
    Program.run(activation, cost_limit=PER_CALL_LIMIT) -> Evaluation(value, cost)  (raises EvalError)

`variables` declares each name an expression may use, name -> type. A type is CEL's type text
("dyn", "bool", "int", "uint", "double", "string", "bytes", "list(string)", "map(string, dyn)"), the
name of an object type of OBJECT_TYPES ("kubernetes.AdmissionRequest", "kubernetes.Namespace"), or a
dict field -> type (an object type given inline: `variables`' own fields, each the output_type of
the policy's variable expression, compiled in order as apiserver's CompositedCompiler does).
`admission_variables(has_params=..., has_authorizer=..., variables=...)` gives the declarations the
API server makes (k8s.io/apiserver@v0.36.3 pkg/admission/plugin/cel/compile.go createEnvForOpts:
object, oldObject and params dyn, request and namespaceObject typed, authorizer when asked).

A compile error is returned, not raised: its `message` is worded like the API server's
("compilation failed: ERROR: <input>:1:8: undeclared reference to 'x' ..."), and a Program whose
output type is not among `return_types` is a CompileError "must evaluate to bool but got string"
(compile.go CompileCELExpression).

`activation` maps declared names to plain data (dicts, lists, str, int, float, bool, None, bytes:
what YAML/JSON decode to). A value may be a `Lazy(thunk)`: the thunk runs on first access (per
evaluation) and its value or EvalError is what the name reads as, as the API server's lazy
`variables` map (pkg/cel/lazy); the `variables` activation entry is a dict name -> Lazy, and the
cost of a lazy thunk is the thunk's to count (vap: sum the `run(...).cost` of the variable programs
into the policy's budget, as composition.go's compositionContext does).

The `authorizer` of an activation is `authorizer(service_account=None)` (the requesting principal, or
a service account's), `authorizer.requestResource` is `resource_check({"group": ..., "resource": ...,
"subresource": ..., "namespace": ..., "name": ...})`; their `check()` answers are Unknown offline.
Library values an activation may hold are plain data; `timestamp("...")` and `duration("...")` in the
expressions build CEL's own (a `namespaceObject`'s creationTimestamp as YAML text is a string: give
`to_timestamp(text)` for the typed field).

Evaluation returns the CEL value as plain Python: bool, int (int64), `UInt` (a CEL uint, an int
subclass), float, str, bytes, None, list, dict, or an `Unknown` (a value that cannot be known
offline: the authorizer's answers), which absorbs through `&&`/`||`/`?:` as cel-go's unknowns do;
the policy side states it per policy rather than passing or failing it. EvalError's `message` is
cel-go's wording ("no such key: x", "no such overload", "operation cancelled: actual cost limit
exceeded"); the API server wraps it as "expression '<expr>' resulted in error: <message>"
(pkg/admission/plugin/cel/activation.go Evaluate), which `EvalError.for_expression` gives.

Cost: `cost_limit` is the per-call limit cel-go is given (PER_CALL_LIMIT); `Evaluation.cost` is the
runtime cost counted as cel-go counts it, which the caller subtracts from the policy's
RUNTIME_CEL_COST_BUDGET (activation.go: "validation failed due to running out of cost budget, no
further validation rules will be run", OUT_OF_BUDGET). User expressions are untrusted: parse depth,
expression size, string and list sizes and regular expressions (RE2 semantics) are bounded, and any
failure is a CompileError or an EvalError, never another exception.
"""

from __future__ import annotations

from kpt_fn.admission.cel import engine, values
from kpt_fn.admission.cel.environment import OBJECT_TYPES  # noqa: F401 (the interface)
from kpt_fn.admission.cel.library import authz
from kpt_fn.admission.cel.library.authz import authorizer, resource_check  # noqa: F401 (the interface)
from kpt_fn.admission.cel.library.timestamps import to_timestamp  # noqa: F401 (the interface)
from kpt_fn.admission.cel.values import (  # noqa: F401 (the interface)
    CompileError, EvalError, Evaluation, Lazy, Program, UInt, Unknown)

# k8s.io/apiserver@v0.36.3 pkg/apis/cel/config.go
PER_CALL_LIMIT = values.PER_CALL_LIMIT
RUNTIME_CEL_COST_BUDGET = 10_000_000
RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS = 2_500_000
MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES = 5 * 1024
# pkg/admission/plugin/cel/activation.go Evaluate: the budget of a binding's expressions is spent
OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"

DYN = "dyn"


AUTHORIZER_TYPE = authz.AUTHORIZER
RESOURCE_CHECK_TYPE = authz.RESOURCE_CHECK


def admission_variables(*, has_params: bool, has_authorizer: bool, variables: dict | None = None) -> dict:
    """The names an admission policy's expressions may use, as compile.go createEnvForOpts declares them
    (`variables`: the policy's variables so far, name -> output type, as composition.go adds them)."""
    decls = {"object": DYN, "oldObject": DYN, "namespaceObject": "kubernetes.Namespace",
             "request": "kubernetes.AdmissionRequest"}
    if has_params:
        decls["params"] = DYN
    if has_authorizer:
        decls["authorizer"] = AUTHORIZER_TYPE
        decls["authorizer.requestResource"] = RESOURCE_CHECK_TYPE
    decls["variables"] = dict(variables or {})
    return decls


def compile(expression: str, variables: dict, *, return_types: tuple | None = None) -> Program | CompileError:  # noqa: A001
    """Parse and type-check `expression` against the declared `variables` (name -> type)."""
    return engine.compile_program(expression, variables, return_types)
