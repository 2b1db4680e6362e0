"""The one shape in which every stage reports what is wrong with its input (and `Refusal`, the
shape of one reason the cluster refuses an update of a stored object).

Stages (runtime resolution, the engine, validation) return lists of Problems and never raise for bad
user input; the function turns them into KRM results that name the resource, the file and the field.
"""

from __future__ import annotations

from collections import namedtuple

ERROR = "error"
WARNING = "warning"
INFO = "info"

def rule_family(rule_id: str) -> str:
    """A rule id's family, its first segment: `trainer-webhook/torch-reserved-env` -> `trainer-webhook`."""
    return rule_id.partition("/")[0]


class Rule(namedtuple("Rule", "id applies_to description behaviour", defaults=(None,))):
    """A rule of the catalogue (`expand-trainjobs rules`), declared beside the check that reports it:
    its id (a Problem's `rule`, `family/name`), the kinds it applies to and what it checks. Its family
    is the id's first segment, written once, in the id. `behaviour` says which releases have it: None
    (every release), or a switch of kpt_fn.upstream.behaviour, "<switch>" or "not <switch>" (a rule
    whose text differs between releases is declared once per side, with the same id)."""

    __slots__ = ()

    @property
    def family(self) -> str:
        return rule_family(self.id)

    def as_dict(self) -> dict:
        """The catalogue's entry (`rules --format json`, the SARIF rule table): the family spelled out."""
        return {"id": self.id, "family": self.family, "applies_to": self.applies_to, "description": self.description}


class Problem:
    """Immutable; equal and hashed by message, path, severity and rule (not by `subject`). A plain
    slotted class: a dataclass (and the `dataclasses` import) cost a noticeable part of start-up."""

    __slots__ = ("message", "path", "severity", "subject", "rule")
    FIELDS = ("message", "path", "severity", "subject", "rule")

    def __init__(self, message: str, path: str = "", severity: str = ERROR, subject=None, rule: str = ""):
        setattr_ = object.__setattr__
        setattr_(self, "message", message)
        # Field path inside `subject`, Kubernetes style: spec.trainer.env[2].name, metadata.labels[a/b]
        setattr_(self, "path", path)
        setattr_(self, "severity", severity)
        # Which object `path` points into. None means "the TrainJob being rendered"; otherwise the
        # object itself (a runtime dict, a generated JobSet dict, ...), whose identity and file
        # annotations name the resource in the result.
        setattr_(self, "subject", subject)
        # Identifier of the rule that found it (see `expand-trainjobs rules`), e.g. "trainer-webhook/torch-reserved-env".
        setattr_(self, "rule", rule)

    def __setattr__(self, name, value):
        raise AttributeError(f"Problem is immutable: cannot set {name}; use replace()")

    def __delattr__(self, name):
        raise AttributeError(f"Problem is immutable: cannot delete {name}")

    def replace(self, **changes) -> Problem:
        """A copy with some fields changed (what dataclasses.replace did)."""
        unknown = set(changes).difference(self.FIELDS)
        if unknown:
            raise TypeError(f"Problem has no field(s) {', '.join(sorted(unknown))}")
        values = {f: getattr(self, f) for f in self.FIELDS}
        values.update(changes)
        return Problem(**values)

    def _key(self) -> tuple:
        return (self.message, self.path, self.severity, self.rule)

    def __eq__(self, other):
        return self._key() == other._key() if type(other) is Problem else NotImplemented

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"Problem(message={self.message!r}, path={self.path!r}, severity={self.severity!r}, "
                f"subject={self.subject!r}, rule={self.rule!r})")

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR


def has_errors(problems) -> bool:
    return any(p.severity == ERROR for p in problems)


class Refusal:
    """One reason the cluster refuses an update: the field path and upstream's message."""

    __slots__ = ("path", "message", "source")

    def __init__(self, path: str, message: str, source: str):
        self.path, self.message, self.source = path, message, source

    def __repr__(self):
        return f"Refusal({self.path!r}, {self.message!r}, {self.source!r})"

    def __eq__(self, other):
        return isinstance(other, Refusal) and (self.path, self.message, self.source) == (other.path, other.message, other.source)

    def to_dict(self) -> dict:
        return {"path": self.path, "message": self.message, "rule": self.source}
