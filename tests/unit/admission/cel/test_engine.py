import pytest

from kpt_fn.admission import cel
from kpt_fn.admission.cel import engine


def test_display_is_cel_gos_issue_text():
    text = "a +\n  b.c("
    assert engine.display(text, [(8, "Syntax error: mismatched input '<EOF>'")]) == \
        "ERROR: <input>:2:5: Syntax error: mismatched input '<EOF>'\n |   b.c(\n | ....^"
    # a wide character before the caret is a wide dot
    assert engine.display("'é' + 1", [(4, "x")]).endswith("\n | .\uff0e..^")


def test_return_types_as_compile_go_checks_them():
    result = cel.compile("object.spec", {"object": "dyn"}, return_types=("bool",))
    assert isinstance(result, cel.CompileError)
    assert result.message == "must evaluate to bool but got dyn"
    result = cel.compile("1", {}, return_types=("bool", "string"))
    assert result.message == "must evaluate to one of [bool string] but got int"
    assert isinstance(cel.compile("'a'", {}, return_types=("string",)), cel.Program)


def test_a_non_string_expression():
    assert isinstance(engine.compile_program(None, {}, None), cel.CompileError)


def test_internal_errors_become_eval_errors(monkeypatch):
    program = cel.compile("size(x)", {"x": "dyn"})

    class Weird:
        def __len__(self):
            raise RuntimeError("boom")

    with pytest.raises(cel.EvalError) as info:
        program.run({"x": Weird()})
    assert "no such overload" in info.value.message or "internal error" in info.value.message


def test_declarations_inline_object_types():
    decls, objects = engine.declarations({"variables": {"a": "int", "b": {"c": "string"}}})
    assert decls["variables"] == ("obj", "kubernetes.variables")
    assert objects["kubernetes.variables"]["b"] == ("obj", "kubernetes.variables.b")
    assert objects["kubernetes.variables.b"] == {"c": ("string",)}
