"""Evaluating one expression for the library tests (a helper of this directory)."""

from kpt_fn.admission import cel


def evaluate(text, **activation):
    program = cel.compile(text, {name: "dyn" for name in activation})
    if isinstance(program, cel.CompileError):
        raise AssertionError(program.message)
    return program.evaluate(activation)


def failure(text, **activation):
    program = cel.compile(text, {name: "dyn" for name in activation})
    if isinstance(program, cel.CompileError):
        return program.message
    try:
        program.evaluate(activation)
    except cel.EvalError as exc:
        return exc.message
    raise AssertionError(f"{text} evaluated")
