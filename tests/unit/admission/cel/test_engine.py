from kpt_fn.admission import cel
from kpt_fn.admission.cel import engine


def test_compile_program_answers_with_the_interface_types():
    result = engine.compile_program("1 + 1", {}, None)
    assert isinstance(result, (cel.Program, cel.CompileError))
