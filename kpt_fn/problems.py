"""The one shape in which every stage reports what is wrong with its input.

Stages (runtime resolution, the engine, validation) return lists of Problems and never raise for bad
user input; the function turns them into KRM results that name the resource, the file and the field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ERROR = "error"
WARNING = "warning"
INFO = "info"


@dataclass(frozen=True)
class Problem:
    message: str
    # Field path inside `subject`, Kubernetes style: spec.trainer.env[2].name, metadata.labels[a/b]
    path: str = ""
    severity: str = ERROR
    # Which object `path` points into. None means "the TrainJob being rendered"; otherwise the object
    # itself (a runtime dict, a generated JobSet dict, ...), whose identity and file annotations name
    # the resource in the result.
    subject: Any = field(default=None, compare=False, hash=False)
    # Identifier of the rule that found it (see `expand-trainjobs rules`), e.g. "trainer-webhook/torch-reserved-env".
    rule: str = ""

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR


def has_errors(problems) -> bool:
    return any(p.severity == ERROR for p in problems)
