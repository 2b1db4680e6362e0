"""A stand-in for kpt_fn.admission.cel built on cel-python (a test dependency), with the same
interface (compile, Program.run, CompileError, EvalError, Lazy, Unknown, admission_variables, the
budgets): the admission tests judge with it where the real engine is not what they test, and the
policy side was written against it before the engine was done. No type checking, cost 1 per call."""

from __future__ import annotations

from collections import namedtuple

import celpy

PER_CALL_LIMIT = 1_000_000
RUNTIME_CEL_COST_BUDGET = 10_000_000
RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS = 2_500_000
MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES = 5 * 1024
OUT_OF_BUDGET = "validation failed due to running out of cost budget, no further validation rules will be run"

Evaluation = namedtuple("Evaluation", "value cost")
CompileError = namedtuple("CompileError", "expression message")
Unknown = namedtuple("Unknown", "reason")


class EvalError(Exception):
    def __init__(self, message):
        super().__init__(message)
        self.message = message

    def for_expression(self, expression):
        return f"expression '{expression}' resulted in error: {self.message}"


class Lazy:
    def __init__(self, thunk):
        self.thunk = thunk


def admission_variables(*, has_params, has_authorizer, variables=None):
    return {"object": "dyn", "variables": dict(variables or {})}


def _plain(value):
    if isinstance(value, celpy.celtypes.BoolType):
        return bool(value)
    if isinstance(value, celpy.celtypes.StringType):
        return str(value)
    if isinstance(value, celpy.celtypes.IntType):
        return int(value)
    if isinstance(value, celpy.celtypes.ListType):
        return [_plain(v) for v in value]
    if isinstance(value, celpy.celtypes.MapType):
        return {_plain(k): _plain(v) for k, v in value.items()}
    return value


class Program:
    def __init__(self, expression, program):
        self.expression, self.output_type, self._program = expression, "dyn", program

    def run(self, activation, cost_limit=PER_CALL_LIMIT):
        values = {}
        for name, value in activation.items():
            if name == "variables":
                resolved = {}
                for k, lazy in value.items():
                    if f"variables.{k}" not in self.expression:  # lazy: only what the text names
                        continue
                    try:
                        resolved[k] = lazy.thunk()
                    except EvalError:
                        pass
                value = resolved
            if isinstance(value, Unknown) or "." in name:
                continue
            values[name] = celpy.json_to_cel(value)
        try:
            result = self._program.evaluate(values)
        except celpy.CELEvalError as exc:
            raise EvalError(str(exc.args[0]) if exc.args else "evaluation error") from None
        return Evaluation(_plain(result), 1)

    def evaluate(self, activation, cost_limit=PER_CALL_LIMIT):
        return self.run(activation, cost_limit).value


def compile(expression, variables, *, return_types=None):  # noqa: A001
    env = celpy.Environment()
    try:
        ast = env.compile(expression)
    except celpy.CELParseError as exc:
        return CompileError(expression, f"compilation failed: {exc}")
    return Program(expression, env.program(ast))
