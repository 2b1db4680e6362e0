"""The interface of kpt_fn.admission.cel: what the policy side codes against."""

from kpt_fn.admission import cel


def test_limits_are_the_api_servers():
    # k8s.io/apiserver@v0.36.3 pkg/apis/cel/config.go
    assert cel.PER_CALL_LIMIT == 1_000_000
    assert cel.RUNTIME_CEL_COST_BUDGET == 10_000_000
    assert cel.RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS == 2_500_000


def test_admission_variables_as_compile_go_declares_them():
    plain = cel.admission_variables(has_params=False, has_authorizer=False)
    assert plain == {"object": "dyn", "oldObject": "dyn", "namespaceObject": "kubernetes.Namespace",
                     "request": "kubernetes.AdmissionRequest", "variables": {}}
    full = cel.admission_variables(has_params=True, has_authorizer=True, variables={"isGpu": "bool"})
    assert full["params"] == "dyn"
    assert full["authorizer"] == cel.AUTHORIZER_TYPE
    assert full["variables"] == {"isGpu": "bool"}


def test_every_named_field_type_is_declared():
    scalar = {"string", "bool", "int", "dyn", "google.protobuf.Timestamp", "list(string)",
              "map(string, string)", "map(string, list(string))", "list(kubernetes.NamespaceCondition)"}
    for fields in cel.OBJECT_TYPES.values():
        for type_ in fields.values():
            assert type_ in scalar or type_ in cel.OBJECT_TYPES, type_


def test_compile_returns_a_program_or_a_compile_error():
    result = cel.compile("object.spec.replicas > 1", cel.admission_variables(has_params=False, has_authorizer=False))
    assert isinstance(result, (cel.Program, cel.CompileError))
