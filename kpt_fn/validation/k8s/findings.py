"""How the Kubernetes checks record what they find: field.ErrorList in Python.

Each finding is (rule, path, body, hint): the rule id, the field path in the rendered JobSet, the
error body as the API server prints it (`Required value: ...`, see kpt_fn/apimachinery/field.py)
and, where the bad value sits elsewhere than the reported field (a request without its limit is
reported at `resources.limits`), the path of the value, so that blame points at what was written.
"""

from __future__ import annotations

from kpt_fn.apimachinery.field import (DUPLICATE, FORBIDDEN, INVALID, NOT_FOUND, OMIT, REQUIRED, TOO_LONG,
                                        TOO_MANY, UNSUPPORTED, body, go_quote)


def valid_values(values) -> str:
    """The detail of a Required enum field: fmt %q of a []string."""
    return "valid values: [" + " ".join(go_quote(v) for v in values) + "]"


def supported(values) -> str:
    """field.NotSupported's detail: the valid values quoted, comma separated, in the given order."""
    return "supported values: " + ", ".join(go_quote(v) for v in values)


class Findings:
    __slots__ = ("items",)

    def __init__(self):
        self.items: list[tuple] = []

    def add(self, rule: str, path: str, text: str, hint: str | None = None) -> None:
        self.items.append((rule, path, text, hint))

    def required(self, rule, path, detail="", hint=None):
        self.add(rule, path, body(REQUIRED, detail=detail), hint)

    def named(self, rule, path, value, problems) -> None:
        """The common shape: Required when empty, else each of `problems(value)` as Invalid."""
        if not value:
            self.required(rule, path)
        else:
            for msg in problems(value):
                self.invalid(rule, path, value, msg)

    def invalid(self, rule, path, value, detail, hint=None):
        self.add(rule, path, body(INVALID, value, detail), hint)

    def unsupported(self, rule, path, value, values, hint=None):
        self.add(rule, path, body(UNSUPPORTED, value, supported(values)), hint)

    def forbidden(self, rule, path, detail, hint=None):
        self.add(rule, path, body(FORBIDDEN, detail=detail), hint)

    def duplicate(self, rule, path, value):
        self.add(rule, path, body(DUPLICATE, value))

    def not_found(self, rule, path, value, detail=""):
        self.add(rule, path, body(NOT_FOUND, value, detail))

    def too_many(self, rule, path, have, most):
        # field.TooMany: "Too many: <n>: must have at most <m> items"
        self.add(rule, path, body(TOO_MANY, have, f"must have at most {most} items"))

    def too_long(self, rule, path, most):
        self.add(rule, path, body(TOO_LONG, OMIT, f"may not be more than {most} bytes"))


def as_int(value):
    """An integer field's value, or None (absent, or a type the schema check reports)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def as_str(value):
    return value if isinstance(value, str) else None


def as_list(value) -> list:
    return value if isinstance(value, list) else []


def as_dict(value) -> dict:
    return value if isinstance(value, dict) else {}
