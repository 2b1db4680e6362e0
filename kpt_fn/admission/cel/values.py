"""The values and results of the CEL engine: what compile and evaluate hand back (kpt_fn.admission.cel
describes the contract)."""

from __future__ import annotations


class _Record:
    """A small immutable record compared by its fields (no dataclasses: its import costs more than
    the engine's own modules)."""

    __slots__ = ()

    def __init__(self, *values, **named):
        given = dict(zip(self.__slots__, values), **named)
        if set(given) != set(self.__slots__):
            raise TypeError(f"{type(self).__name__} takes {', '.join(self.__slots__)}")
        for name in self.__slots__:
            object.__setattr__(self, name, given[name])

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _fields(self):
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other):
        return type(other) is type(self) and other._fields() == self._fields()

    def __hash__(self):
        return hash(self._fields())

    def __repr__(self):
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({inner})"

PER_CALL_LIMIT = 1_000_000  # k8s.io/apiserver@v0.36.3 pkg/apis/cel/config.go


class UInt(int):
    """A CEL uint value (an int Python keeps apart from CEL's int64)."""

    __slots__ = ()

    def __repr__(self):
        return f"{int(self)}u"


class Unknown(_Record):
    """A value that cannot be known offline; `reason` says why (e.g. the authorizer's answer)."""

    __slots__ = ("reason",)


class Lazy:
    """An activation value computed on first access (the API server's lazy `variables` map)."""

    __slots__ = ("thunk",)

    def __init__(self, thunk):
        self.thunk = thunk


class CompileError(_Record):
    """An expression that does not compile; `message` is the API server's wording."""

    __slots__ = ("expression", "message")

    def __str__(self):
        return self.message


class EvalError(Exception):
    """An evaluation error worded like cel-go's (`message`)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def __str__(self):
        return self.message

    def for_expression(self, expression: str) -> str:
        """The API server's wording of this error for `expression` (activation.go Evaluate)."""
        return f"expression '{expression}' resulted in error: {self.message}"


class Evaluation(_Record):
    """What an evaluation gave (`value`) and what it cost (`cost`, cel-go's runtime cost)."""

    __slots__ = ("value", "cost")


class Program:
    """A compiled expression: `evaluate`/`run` it against an activation."""

    __slots__ = ("expression", "output_type", "_run")

    def __init__(self, expression: str, output_type: str, run):
        self.expression = expression
        self.output_type = output_type
        self._run = run

    def run(self, activation: dict, cost_limit: int = PER_CALL_LIMIT) -> Evaluation:
        value, cost = self._run(activation, cost_limit)
        return Evaluation(value, cost)

    def evaluate(self, activation: dict, cost_limit: int = PER_CALL_LIMIT):
        return self.run(activation, cost_limit).value
