import pytest

from kpt_fn.admission import cel
from kpt_fn.admission.cel import checker

ADMISSION = cel.admission_variables(has_params=True, has_authorizer=False, variables={"gpus": "int"})


def output(text, decls=ADMISSION):
    program = cel.compile(text, decls)
    assert isinstance(program, cel.Program), program
    return program.output_type


def refusal(text, decls=ADMISSION):
    result = cel.compile(text, decls)
    assert isinstance(result, cel.CompileError), result
    return result.message.splitlines()[0]


@pytest.mark.parametrize("text, type_", [
    ("object.spec", "dyn"), ("object.spec.replicas > 1", "bool"), ("request.operation", "string"),
    ("request.userInfo.groups", "list(string)"), ("namespaceObject.metadata.labels", "map(string, string)"),
    ("variables.gpus + 1", "int"), ("[1, 2].map(x, string(x))", "list(string)"), ("[1].filter(x, x > 0)", "list(int)"),
    ("{'a': 1}", "map(string, int)"), ("[object, dyn(1)]", "list(dyn)"), ("object.?spec", "optional_type(dyn)"),
    ("true ? 1 : 2", "int"), ("size('a')", "int"), ("type(1)", "type(int)"), ("1u + 2u", "uint"),
    ("request.userInfo.groups[0]", "string"), ("params.x.all(y, y)", "bool"),
])
def test_output_types(text, type_):
    assert output(text) == type_


@pytest.mark.parametrize("text, message", [
    ("foo", "compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')"),
    ("1 == 1.0", "compilation failed: ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, double)'"),
    ("'a' + 1", "compilation failed: ERROR: <input>:1:5: found no matching overload for '_+_' applied to '(string, int)'"),
    ("request.foo", "compilation failed: ERROR: <input>:1:8: undefined field 'foo'"),
    ("[1, 'a']", "compilation failed: ERROR: <input>:1:5: expected type 'int' but found 'string'"),
    ("[object, 1]", "compilation failed: ERROR: <input>:1:10: expected type 'dyn' but found 'int'"),
    ("1 && true", "compilation failed: ERROR: <input>:1:3: found no matching overload for '_&&_' applied to '(int, bool)'"),
    ("'a'.size(1)", "compilation failed: ERROR: <input>:1:9: found no matching overload for 'size' applied to 'string.(int)'"),
    ("1.all(x, x)", "compilation failed: ERROR: <input>:1:6: expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)"),
    ("variables.foo", "compilation failed: ERROR: <input>:1:10: undefined field 'foo'"),
    ("1.a", "compilation failed: ERROR: <input>:1:2: type 'int' does not support field selection"),
])
def test_refusals(text, message):
    assert refusal(text) == message


def test_string_format_arguments_may_mix_types():
    # ext.Strings exempts format's arguments from HomogeneousAggregateLiterals (cel-go ext/formatting.go)
    assert output("'%s %d'.format(['a', 1])") == "string"


@pytest.mark.parametrize("text, parsed", [
    ("list(string)", ("list", ("string",))), ("map(string, list(int))", ("map", ("string",), ("list", ("int",)))),
    ("A", ("param", "A")), ("kubernetes.Namespace", ("obj", "kubernetes.Namespace")),
    ("google.protobuf.Timestamp", ("google.protobuf.Timestamp",)),
])
def test_parse_and_format_types(text, parsed):
    assert checker.parse_type(text) == parsed
    assert checker.format_type(parsed) == text


def test_parse_signature():
    assert checker.parse_signature("list(A).indexOf(A) -> int") == \
        (("list", ("param", "A")), [("param", "A")], ("int",))
    assert checker.parse_signature("optional.of(A) -> optional_type(A)")[0] is None
    assert checker.parse_signature("size(string) -> int") == (None, [("string",)], ("int",))
