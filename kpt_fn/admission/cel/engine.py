"""Compiling an expression into a Program: parse (kpt_fn.admission.cel.parser), type-check against the
declared variables (checker), build the evaluator (evaluator, macros) over the functions of the
environment the API server builds for the 1.36 compatibility version (environment).

Errors are worded as the API server words them: "compilation failed: " and cel-go's issues
(common/errors.go ToDisplayString: "ERROR: <input>:line:column: message", the source line, a caret).
Nothing a user writes makes compile or evaluate raise anything but their own errors: a bug here
becomes an "internal error" EvalError naming it, not a crash of the function.
"""

from __future__ import annotations

from kpt_fn.admission.cel import checker as checking
from kpt_fn.admission.cel import environment, parser
from kpt_fn.admission.cel.evaluator import Compiler
from kpt_fn.admission.cel.runtime import Run
from kpt_fn.admission.cel.values import CompileError, EvalError, Program

MAX_ERRORS = 100  # cel-go common/errors.go maxErrorsToReport
_MAX_SNIPPET = 16384


def display(text: str, errors: list) -> str:
    """cel-go's issues text: each error with its line, column, source line and caret, by position."""
    lines = text.split("\n")
    out = []
    for offset, message in sorted(errors, key=lambda e: parser.line_column(text, e[0]))[:MAX_ERRORS]:
        line, column = parser.line_column(text, offset)
        entry = f"ERROR: <input>:{line}:{column + 1}: {message}"
        snippet = lines[line - 1] if line - 1 < len(lines) else ""
        if len(snippet) <= _MAX_SNIPPET:
            snippet = snippet.replace("\t", " ")
            marks = "".join("\uff0e" if len(ch.encode("utf-8")) > 1 else "." for ch in snippet[:column])
            at = snippet[column:column + 1]
            marks += "\uff3e" if at and len(at.encode("utf-8")) > 1 else "^"
            entry += f"\n | {snippet}\n | {marks}"
        out.append(entry)
    if len(errors) > MAX_ERRORS:
        out.append(f"{len(errors) - MAX_ERRORS} more errors were truncated")
    return "\n".join(out)


def declarations(variables: dict):
    """name -> type tuple, and the object types (the admission ones and any given inline)."""
    objects = {name: {f: checking.parse_type(t) for f, t in fields.items()}
               for name, fields in environment.object_types().items()}
    decls = {}
    for name, decl in variables.items():
        if isinstance(decl, dict):
            type_name = "kubernetes.variables" if name == "variables" else f"kubernetes.{name}"
            objects[type_name] = {f: _decl_type(t, objects, f"{type_name}.{f}") for f, t in decl.items()}
            decls[name] = ("obj", type_name)
        else:
            decls[name] = _decl_type(decl, objects, name)
    return decls, objects


def _decl_type(decl, objects, name):
    if isinstance(decl, dict):
        objects[name] = {f: _decl_type(t, objects, f"{name}.{f}") for f, t in decl.items()}
        return ("obj", name)
    if isinstance(decl, tuple):
        return decl
    return checking.parse_type(decl)


def compile_program(expression: str, variables: dict, return_types=None):
    """The Program of `expression`, or a CompileError (kpt_fn.admission.cel.compile)."""
    if not isinstance(expression, str):
        return CompileError(str(expression), "compilation failed: the expression is not a string")
    try:
        tree, positions = parser.parse(expression)
    except parser.ParseError as exc:
        return CompileError(expression, "compilation failed: " + display(expression, [(exc.offset, exc.message)]))
    try:
        decls, objects = declarations(variables)
        functions = environment.functions()
        check = checking.Checker(functions, decls, objects, positions)
        with parser.deep_stack():
            output = check.check(tree)
            errors = check.errors + environment.validate_literals(tree, positions)
        if errors:
            return CompileError(expression, "compilation failed: " + display(expression, errors))
        output_text = checking.format_type(output)
        if return_types:
            wanted = [t if isinstance(t, str) else checking.format_type(t) for t in return_types]
            if output_text not in wanted and "any" not in wanted:
                if len(wanted) == 1:
                    reason = f"must evaluate to {wanted[0]} but got {output_text}"
                else:
                    reason = f"must evaluate to one of [{' '.join(wanted)}] but got {output_text}"
                return CompileError(expression, reason)
        with parser.deep_stack():
            fn = Compiler(functions, frozenset(decls)).compile(tree)
    except (RecursionError, MemoryError) as exc:
        return CompileError(expression, f"compilation failed: expression too complex ({type(exc).__name__})")
    except Exception as exc:  # noqa: BLE001 (a bug must not crash the function: say what it was)
        return CompileError(expression, f"compilation failed: internal error: {type(exc).__name__}: {exc}")
    return Program(expression, output_text, _runner(fn))


def _runner(fn):
    def run(activation: dict, cost_limit: int):
        r = Run(activation, cost_limit)
        try:
            with parser.deep_stack():
                value = fn(r)
        except EvalError:
            raise
        except RecursionError:
            raise EvalError("expression recursion limit exceeded") from None
        except MemoryError:
            raise EvalError("out of memory evaluating the expression") from None
        except Exception as exc:  # noqa: BLE001 (as above: no crash)
            raise EvalError(f"internal error: {type(exc).__name__}: {exc}") from None
        return value, r.cost
    return run
