"""The one error every stage of kpt_fn.yamlio raises for input it will not accept (its own module, as
PyYAML's error.py: each stage imports it, none imports another for it)."""

from __future__ import annotations


class YAMLInputError(ValueError):
    """Input that is not acceptable YAML; `line` is 1-based when known; `limit` names the Limits field
    that was exceeded, if that is what is wrong."""

    def __init__(self, message: str, line: int | None = None, limit: str | None = None):
        super().__init__(message)
        self.line = line
        self.limit = limit

    def __str__(self) -> str:
        msg = self.args[0]
        return f"line {self.line}: {msg}" if self.line else msg
