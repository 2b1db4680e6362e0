"""The one result type: made from Problems here, written as KRM results here.

A Result is what kustomize's kyaml `framework.Result` is: a severity, a message, the resource it is
about (resourceRef), the field in it, the file and document index the resource came from (and the
line and column of the field there, once kpt_fn.lines found them), and the rule that found it.
Every mode reports through this module:

- `from_problem` turns a stage's Problem into a Result (naming the TrainJob when the problem has no
  subject of its own);
- `krm` writes the results a ResourceList carries (the wire format kpt and kustomize read), each
  message ending with where it is, `(in path:line:col)` (kpt's console never shows a result's
  `file`: docs/clients.md);
- what a person reads on stderr is the findings model (kpt_fn.review.findings) written by
  kpt_fn.formats.text, in the one form `path:line:col: severity: message [rule-id]`; `location`,
  `escape` and `Summary` (the first line) are declared here, below both.

Both outputs are *safe to print*: every text that may come from the input (messages quote names,
field paths quote map keys, files are paths) has its control characters escaped, so that a
`metadata.name` holding a newline cannot forge a line (say a fake "expand-trainjobs: ok"); and
results of one kind (same severity, rule and message but for the names in it) are capped, the rest
counted in one "... and K more like this" entry, so that a million identical warnings cannot flood
a terminal or a CI log.
"""

from __future__ import annotations

from kpt_fn import resource as res
from kpt_fn.problems import ERROR, INFO, WARNING
from kpt_fn.trainer_names import OUTPUT_PREFIX

# Most results of one kind carried in a ResourceList, and most lines of one kind on stderr.
RESULTS_PER_KIND = 100
LINES_PER_KIND = 10

# Info results a user must act on before the rendered objects can work: shown on stderr in every
# mode (with errors and warnings), not only carried in the ResourceList. Kept in step with
# kpt_fn.engine.secrets (tests/unit/test_results.py checks the names).
MUST_KNOW_RULES = frozenset({"secret-policy/mpi-ssh-secret-required", "secret-policy/flux-curve-secret-required"})
# Info results shown on stderr too: nothing is wrong, but the user must know (a Kueue queue name that
# no LocalQueue among the inputs could confirm: kpt_fn.profiles.kueue.queue_problem).
SHOWN_INFO_RULES = MUST_KNOW_RULES | {"kueue/queue-unchecked"}
# Results about one Secret (their message names it), however many TrainJobs mount it: one each.
PER_SECRET_RULES = MUST_KNOW_RULES | {"secret-policy/mpi-ssh-secret-generated", "secret-policy/flux-curve-secret-generated"}

# C0 and C1 controls, DEL, Unicode line and paragraph separators, and the bidirectional overrides
# (which can make a line read as something else than it is). All of them are what str.isprintable
# calls unprintable, so a printable text (nearly every one) is returned at once; a character set
# instead of a regular expression, whose compilation was a noticeable part of every start-up.
_UNSAFE = frozenset(map(chr, [*range(0x00, 0x20), *range(0x7f, 0xa0), 0x2028, 0x2029, 0x200e, 0x200f,
                              *range(0x202a, 0x202f), *range(0x2066, 0x206a)]))
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\0": "\\0"}


def _escape_char(c: str) -> str:
    named = _NAMED.get(c)
    if named is not None:
        return named
    code = ord(c)
    if code < 0x100:
        return f"\\x{code:02x}"
    if _BYTE_LOW <= code <= _BYTE_HIGH:  # a byte that is not UTF-8 (a file name): that byte, as git shows it
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


# The GitHub Actions runner runs a workflow command written in its legacy form `##[name ...]data`
# ANYWHERE in a line of a step's stdout or stderr (actions/runner src/Runner.Common/ActionCommand.cs
# TryParse, lines 121-189; tried on every line that is no `::name::` command, ActionCommandManager.cs
# line 70): a name or reason holding `##[stop-commands]x`, `##[add-mask]...` or `##[error]...` would
# stop, mask or forge the job's annotations. Its `[` is written as an escape, which no parser reads.
LEGACY_COMMAND = "##["
LEGACY_COMMAND_ESCAPED = "##\\x5b"


def location(file: str, line: int = 0, column: int = 0) -> str:
    """Where a finding is, as compilers and linters write it: `path:line:col` (`path` without a line),
    escaped; a `:` of the path is written `\\x3a`, so that a file named `a.yaml:1:2: error: x [r]`
    cannot read as another place, another finding or (at a line's start, `::`) a runner command."""
    where = escape(file).replace(":", "\\x3a")
    if line:
        where += f":{line}:{column or 1}"
    return where


def _unsafe(c: str) -> bool:
    """A character no output may carry as it is: the set above, lone surrogates (a file name that is
    not UTF-8, read with surrogateescape; no encoder writes them) and Unicode noncharacters (U+FDD0 to
    U+FDEF and U+xFFFE/U+xFFFF of every plane: XML 1.0 forbids U+FFFE and U+FFFF, and CI parsers
    refuse them)."""
    if c in _UNSAFE:
        return True
    code = ord(c)
    return 0xD800 <= code <= 0xDFFF or 0xFDD0 <= code <= 0xFDEF or (code & 0xFFFE) == 0xFFFE


# A byte that is not UTF-8 in a name read from the file system (os.fsdecode) or argv: Python's
# surrogateescape keeps byte 0xNN as the lone surrogate U+DCNN (PEP 383).
_BYTE_LOW, _BYTE_HIGH = 0xDC80, 0xDCFF


def named_bytes(text: str) -> str:
    """`text` with each byte that is not UTF-8 (a surrogate-escaped name) written once as \\xNN, as
    sources.shown_name and git write it: what a message holds, so that every output (JSON too, which
    would carry the lone surrogate as \\udcNN, an escape that no UTF-8 reader decodes) shows the name
    the same way. Printable text (nearly every message) is returned at once."""
    if text.isprintable() or not any(_BYTE_LOW <= ord(c) <= _BYTE_HIGH for c in text):
        return text
    return "".join(f"\\x{ord(c) - 0xDC00:02x}" if _BYTE_LOW <= ord(c) <= _BYTE_HIGH else c for c in text)


def escape(text) -> str:
    """`text` with every control character written as an escape (\\n, \\x1b, \\u2028, ...), and the
    runner's legacy workflow-command opener `##[` as `##\\x5b`."""
    text = text if isinstance(text, str) else str(text)
    if not text.isprintable():
        text = "".join(_escape_char(c) if _unsafe(c) else c for c in text)
    if LEGACY_COMMAND in text:
        text = text.replace(LEGACY_COMMAND, LEGACY_COMMAND_ESCAPED)
    return text


class Result:
    """One finding. Plain slotted class (a dataclass costs start-up). `resource` is a resourceRef
    dict (apiVersion, kind, name, namespace) or None; `file` is "" when the resource has none.
    `count` is how many findings it stands for: more than one for "... and K more like this"."""

    __slots__ = ("message", "severity", "resource", "field", "file", "index", "rule", "count", "like", "lineno", "column")

    def __init__(self, message: str, severity: str = ERROR, resource: dict | None = None, field: str = "",
                 file: str = "", index: int = 0, rule: str = "", count: int = 1):
        self.count = count
        self.like = None  # for "... and K more like this": the Result it counts more of
        self.message = message
        self.severity = severity
        self.resource = resource
        self.field = field
        self.file = file
        self.index = index
        self.rule = rule
        # 1-based line and column of `field` in `file`, when someone looked them up (kpt_fn.lines.locate);
        # 0: unknown.
        self.lineno = 0
        self.column = 0

    def __repr__(self):
        return f"Result({self.severity}: {self.message!r}, resource={self.resource!r}, field={self.field!r})"

    def __eq__(self, other):
        return self.krm() == other.krm() if type(other) is Result else NotImplemented

    __hash__ = None

    # Read like the wire dict (r["message"], r.get("tags")): what callers that predate the type use.
    def __getitem__(self, key: str):
        return self.krm()[key]

    def get(self, key: str, default=None):
        return self.krm().get(key, default)

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def krm(self) -> dict:
        """The KRM result (kpt / kyaml wire format), every text escaped. The message ends with where
        the finding is, ` (in path:line:col)` (` (in path)` without a line): kpt prints a result's
        resource, field and message, never its `file` (docs/clients.md), and kustomize and Argo CD show
        no results at all; the rule id is the result's `tags.rule`."""
        message = escape(self.message)
        if self.file:
            message = f"{message} (in {location(self.file, self.lineno, self.column)})"
        out: dict = {"message": message, "severity": self.severity}
        if self.resource is not None:
            out["resourceRef"] = {k: escape(v) for k, v in self.resource.items()}
        if self.field:
            out["field"] = {"path": escape(self.field)}
        if self.file:
            out["file"] = {"path": escape(self.file), "index": self.index}
        if self.rule:
            out["tags"] = {"rule": escape(self.rule)}
        return out

    @property
    def shown(self) -> bool:
        """Printed on stderr: errors, warnings, and the info results a user must act on."""
        return self.severity in (ERROR, WARNING) or (self.severity == INFO and self.rule in SHOWN_INFO_RULES)


def from_problem(problem, trainjob: dict | None = None) -> Result:
    """A Result for `problem`; `trainjob` names the resource when the problem has no subject.

    A problem about an object with a file points at that file; one about a generated object (which
    has no file yet) points at the file of the TrainJob that produced it. The message stays the
    check's own: every output names the file (and line) in its own place."""
    subject = problem.subject if isinstance(problem.subject, dict) else trainjob
    message = named_bytes(problem.message)
    if not isinstance(subject, dict):
        if problem.path:
            message = f"{problem.path}: {message}"
        return Result(message, problem.severity, rule=problem.rule)
    where = subject if res.file_path(subject) else (trainjob if isinstance(trainjob, dict) else None)
    file, index = "", 0
    if where is not None and res.file_path(where):
        file, index = res.file_path(where), res.file_index(where)
    return Result(message, problem.severity, res.resource_ref(subject), problem.path, file, index, problem.rule)


def about(obj: dict, message: str, severity: str = ERROR, field: str = "", rule: str = "") -> Result:
    """A Result about an item itself (its own file, if it has one; the message is not suffixed)."""
    file = res.file_path(obj) or ""
    return Result(message, severity, res.resource_ref(obj), field, file, res.file_index(obj) if file else 0, rule)


STRICT_NOTE = " (an error: strict is set)"


def as_errors(results: list) -> list:
    """`results` with every warning an error, its message saying why (the `strict` option: on the
    routes that drop stderr when the run succeeds, only a failed run is ever read)."""
    out = []
    for r in results:
        if r.severity != WARNING:
            out.append(r)
            continue
        e = Result(r.message + STRICT_NOTE, ERROR, r.resource, r.field, r.file, r.index, r.rule, r.count)
        e.lineno, e.column = r.lineno, r.column
        e.like = as_errors([r.like])[0] if r.like is not None else None
        out.append(e)
    return out


# --- how many of a kind ----------------------------------------------------------------------------


def _kind(r: Result) -> tuple:
    """What makes two results "like" each other: severity, rule and message, with the names of the
    resource and the file they are about blanked out. "... and K more like this" is of its example's kind."""
    r = r.like or r
    message = r.message
    names = [r.file]
    if r.resource:
        names += [r.resource.get("name", ""), r.resource.get("namespace", "")]
    # Longest first, so that a name inside another (a namespace inside a path) is not blanked
    # first. Plain replace, not a regex per name: thousands of results each name a different object.
    for name in sorted((n for n in names if len(n) > 1), key=len, reverse=True):
        message = message.replace(name, "\0")
    return (r.severity, r.rule, message)


def capped(results: list, per_kind: int) -> list:
    """`results` in order, at most `per_kind` of each kind; after the last kept one of a kind that
    had more, one Result of the same severity counting the rest."""
    kinds = [_kind(r) for r in results]
    length: dict[tuple, int] = {}
    for k in kinds:
        length[k] = length.get(k, 0) + 1
    if all(n <= per_kind for n in length.values()):
        return list(results)
    total: dict[tuple, int] = {}
    for r, k in zip(results, kinds):
        total[k] = total.get(k, 0) + r.count
    out, seen, shown = [], {}, {}
    for r, k in zip(results, kinds):
        n = seen[k] = seen.get(k, 0) + 1
        if n > per_kind:
            continue
        out.append(r)
        shown[k] = shown.get(k, 0) + r.count
        if n == per_kind and length[k] > per_kind:
            out.append(more_like(r, total[k] - shown[k]))
    return out


def more_like(r: Result, more: int) -> Result:
    """One Result standing for `more` results like `r`."""
    r = r.like or r
    label = f"rule {r.rule}" if r.rule else f"{r.severity}: {r.message[:80]}"
    out = Result(f"... and {more} more like this ({label})", r.severity, rule=r.rule, count=more)
    out.like = r
    return out


# --- results that stand for many --------------------------------------------------------------------


def merge_per_secret(results: list) -> list:
    """One result per Secret, not one per TrainJob that mounts it: results of the PER_SECRET_RULES
    with the same message (it names the Secret and its namespace) become the first one, naming how
    many TrainJobs need it."""
    firsts: dict[tuple, int] = {}
    users: dict[int, list] = {}
    out = []
    for r in results:
        if r.rule not in PER_SECRET_RULES:
            out.append(r)
            continue
        key = (r.rule, r.severity, r.message)
        at = firsts.get(key)
        if at is None:
            firsts[key] = len(out)
            users[len(out)] = [r]
            out.append(r)
        else:
            users[at].append(r)
    for at, rs in users.items():
        if len(rs) > 1:
            first = rs[0]
            names = [res_name(x) for x in rs]
            shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
            out[at] = Result(f"{first.message} (needed by {len(rs)} TrainJobs: {shown})", first.severity,
                             first.resource, first.field, first.file, first.index, first.rule)
    return out


def res_name(r: Result) -> str:
    ref = r.resource or {}
    return f"{ref.get('namespace') + '/' if ref.get('namespace') else ''}{ref.get('name', '')}"


# --- the two outputs --------------------------------------------------------------------------------


def krm(results: list) -> list:
    """The `results` of a ResourceList."""
    return [r.krm() for r in capped(results, RESULTS_PER_KIND)]


class Summary(str):
    """A run's outcome as the first line of stderr, `expand-trainjobs: ok: ...` or `... FAILED: ...`,
    escaped; a str (written like any line) that keeps what it says apart: whether the run succeeded
    (`ok`) and the rest (`detail`), so that no one has to read them back out of the text."""

    def __new__(cls, ok: bool, detail: str):
        detail = escape(detail)
        line = super().__new__(cls, f"{OUTPUT_PREFIX}{'ok' if ok else 'FAILED'}: {detail}")
        line.ok, line.detail = ok, detail
        return line
