"""The files the function reads itself: `files`, `runtimeDirs`, and the paths of `render`/`validate`.

One `Reader` for the three, as kubeconform has one walk for every mode: one discovery rule (what a
named file or a walked directory gives, in which order, and what is an error), one confinement of
configured paths and of links to the run's roots (EXTRA_ROOTS_ENV adds roots, for whoever runs the
function only), and per-run limits (the MAX_* below). docs/sources.md states the rules and why each
is so; docs/limits.md has every limit. Messages quote paths, never file content.
"""

from __future__ import annotations

import os
import stat

from kpt_fn import resource as res
from kpt_fn.problems import ERROR, Problem, Rule
from kpt_fn.results import named_bytes
from kpt_fn.stdio import read_all
from kpt_fn.yamlio import DEFAULT_LIMITS, Limits, YAMLInputError, load_all

# The rules of reading the app's files (`expand-trainjobs rules`): each finding of this module names one.
RULE_NOT_FOUND = "input/not-found"
RULE_CONFINED = "input/outside-root"
RULE_UNREADABLE = "input/unreadable"
RULE_LIMIT = "input/limit"
RULE_NOT_AN_OBJECT = "input/not-an-object"
RULE_RESOURCE_LIST = "input/resource-list"
RULES = [
    Rule(RULE_NOT_FOUND, "files", "a path the command line or the config names (files, runtimeDirs) exists and is of its kind"),
    Rule(RULE_CONFINED, "files", "files are read only under the app directory, kustomization directory or repository root "
         "(symbolic links included)"),
    Rule(RULE_UNREADABLE, "files", "each file read is a readable regular file of valid YAML or JSON, within the loader's limits"),
    Rule(RULE_LIMIT, "files", "the files of a run, and the ResourceList on stdin, stay within the limits on input (docs/limits.md)"),
    Rule(RULE_NOT_AN_OBJECT, "files", "each document read is a Kubernetes object (a List is flattened where files are read, not in a ResourceList)"),
    Rule(RULE_RESOURCE_LIST, "ResourceList", "stdin of a KRM function is one ResourceList"),
]

EXTENSIONS = (".yaml", ".yml", ".json")
MARKER_FILE = "expand-trainjobs.yaml"
# Files that describe how to build, not what to apply: never read from a walked directory.
SKIPPED_NAMES = frozenset({MARKER_FILE, "kustomization.yaml", "kustomization.yml", "Kustomization", "Kptfile"})
EXTRA_ROOTS_ENV = "EXPAND_TRAINJOBS_EXTRA_ROOTS"
# Per run, across every file read (bytes are bounded by maxInputBytes).
MAX_DOCUMENTS = 100_000
MAX_ENTRIES = 200_000
# Directories nested deeper than this below a named one are an error (the walk recurses).
MAX_DIR_DEPTH = 100
# Problems about files reported per read before the rest are only counted: a bad tree must not
# bury the one message that matters under thousands of lines.
MAX_FILE_PROBLEMS = 50

# What a root is called in messages, by mode.
APP_DIR = "app directory"
KUSTOMIZATION_DIR = "kustomization directory"
WORKING_DIR = "working directory"
REPOSITORY_ROOT = "repository root"  # the Argo CD sidecar's (kpt_fn.argocd.repository_root)


def extra_roots_from_env(env) -> tuple:
    """The operator's extra roots (absolute directories) from EXTRA_ROOTS_ENV; relative entries are
    ignored, since no one could say what they are relative to."""
    raw = (env or {}).get(EXTRA_ROOTS_ENV) or ""
    return tuple(p for p in raw.split(os.pathsep) if p and os.path.isabs(p))


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _is_yaml_name(name: str) -> bool:
    return name.endswith(EXTENSIONS)


class _Stop(Exception):
    """A per-run limit is reached: nothing more is read."""


class Reader:
    """Reads for one run: the root, the permitted roots, and what has been read so far."""

    def __init__(self, root: str, *, label: str = WORKING_DIR, extra_roots=(), limits: Limits = DEFAULT_LIMITS,
                 confine_to: tuple[str, str] | None = None, prepare=None):
        # `root`: what relative paths are relative to. `confine_to` (path, label): the root paths are
        # confined to when it is an ancestor of `root` (the Argo CD repository root), else `root`.
        # `prepare(path)`: called before a named or configured path inside the roots is looked at, to
        # bring its files there first (diff: a revision's files, written as the reader asks for them,
        # kpt_fn.gitrev.Checkout); it may raise to stop the run.
        self.prepare = prepare
        self.root = os.path.abspath(root)
        self.label = label
        self.limits = limits
        self.extra_roots = tuple(os.path.abspath(r) for r in extra_roots)
        self.confine_root, self.confine_label = self.root, label
        if confine_to is not None and _inside(self.root, os.path.abspath(confine_to[0])):
            self.confine_root, self.confine_label = os.path.abspath(confine_to[0]), confine_to[1]
        self._allowed = [os.path.realpath(self.confine_root)] + [os.path.realpath(r) for r in self.extra_roots]
        self.bytes_read = 0
        self.documents = 0
        self.entries = 0
        self.stopped: str | None = None  # the per-run limit that stopped reading, once one has
        self._files: set = set()  # real paths already read
        self._dirs: set = set()  # real paths of directories already walked
        # (file as results name it, document index) -> 1-based line where the document's root starts,
        # from the parse that read it: a result about a whole object names its line without the
        # file being read and composed again (kpt_fn.lines.locate)
        self.document_lines: dict = {}

    @classmethod
    def from_env(cls, root: str, env, *, label: str = WORKING_DIR, limits: Limits = DEFAULT_LIMITS,
                 confine_to: tuple[str, str] | None = None, prepare=None) -> Reader:
        return cls(root, label=label, extra_roots=extra_roots_from_env(env), limits=limits, confine_to=confine_to,
                   prepare=prepare)

    # --- what callers use -------------------------------------------------------------------------

    def read_paths(self, paths, limits: Limits | None = None) -> tuple[list, list]:
        """Objects of paths named on the command line (relative to the root), and problems."""
        items, problems = [], _Problems()
        for p in paths:
            full = os.path.normpath(os.path.join(self.root, p))
            if self.prepare is not None:
                self.prepare(full)
            if not os.path.lexists(full):
                problems.add(Problem(f"{p}: no such file or directory", rule=RULE_NOT_FOUND))
                continue
            allowed = self._allowed + [os.path.realpath(full)]
            self._read_named(full, allowed, limits or self.limits, items, problems, lambda m: f"{p}: {m}", "")
        return items, problems.done()

    def read_files(self, paths, limits: Limits | None = None) -> tuple[list, list]:
        """Objects of the `files` option: files or directories inside the permitted roots."""
        items, problems = [], _Problems()
        for p in paths:
            what = f"files: {p!r}"
            full = self._confined(p, "files", what, problems)
            if full is None:
                continue
            self._read_named(full, self._allowed, limits or self.limits, items, problems,
                             lambda m, what=what: f"{what}: {m}", "files")
        return items, problems.done()

    def read_dir(self, path, option: str, limits: Limits | None = None) -> tuple[list | None, list]:
        """Objects of one directory named by `option` (e.g. runtimeDirs), or None when it cannot be
        used at all."""
        problems = _Problems()
        what = f"runtime directory {path!r}" if option == "runtimeDirs" else f"{option}: {path!r}"
        full = self._confined(path, option, what, problems)
        if full is None:
            return None, problems.done()
        if not os.path.isdir(full):
            problems.add(Problem(f"{what} is not a directory", option, rule=RULE_NOT_FOUND))
            return None, problems.done()
        items: list = []
        self._read_named(full, self._allowed, limits or self.limits, items, problems,
                         lambda m: f"{what}: {m}", option)
        return items, problems.done()

    def confined(self, path: str, what: str) -> tuple[str | None, list]:
        """(absolute path, []) for a path that may be read, else (None, problems): the check every
        configured path gets, for one file the caller reads itself (the marker file)."""
        problems = _Problems()
        return self._confined(path, "", what, problems), problems.done()

    # --- confinement ------------------------------------------------------------------------------

    def _relative_to(self) -> str:
        return f"the {self.label} {self.root}"

    def _confined(self, p, option: str, what: str, problems) -> str | None:
        """The absolute path of a configured path, or None (with a problem) when it may not be read."""
        if not isinstance(p, str) or not p:
            problems.add(Problem(f"{what}: expected a non-empty path", option, rule=RULE_NOT_FOUND))
            return None
        full = os.path.normpath(os.path.join(self.root, p))
        lexical = [self.confine_root, *self.extra_roots]
        if not any(_inside(full, r) for r in lexical):
            problems.add(Problem(f"{what} is outside the {self.confine_label}: paths are confined to it{self._opt_in()}", option, rule=RULE_CONFINED))
            return None
        if self.prepare is not None:
            self.prepare(full)
        if not os.path.lexists(full):
            tried = full if os.path.isabs(p) else f"{full} (relative to {self._relative_to()})"
            problems.add(Problem(f"{what} not found: tried {tried}", option, rule=RULE_NOT_FOUND))
            return None
        if not any(_inside(os.path.realpath(full), r) for r in self._allowed):
            problems.add(Problem(f"{what} is a symbolic link (or lies under one) that leads outside the {self.confine_label}; not read{self._opt_in()}", option, rule=RULE_CONFINED))
            return None
        return full

    @staticmethod
    def _opt_in() -> str:
        return f" (the platform operator can permit other directories with {EXTRA_ROOTS_ENV})"

    # --- walking and reading ----------------------------------------------------------------------

    def _display(self, full: str) -> str:
        """How annotations and messages name a file: relative to the root when inside it."""
        prefix = self.root.rstrip(os.sep) + os.sep
        if full.startswith(prefix):  # paths here are normalised: a prefix is the relative path
            rel = full[len(prefix):]
        elif full == self.root:
            rel = "."
        elif self.confine_root != self.root and _inside(full, self.confine_root):
            # Above the app directory but in the repository: ../../platform/runtimes/..., never the
            # sidecar's random work directory.
            rel = os.path.relpath(full, self.root)
        else:
            rel = full
        return rel if os.sep == "/" else rel.replace(os.sep, "/")

    def _read_named(self, full, allowed, limits, items, problems, say, option) -> None:
        if self.stopped:
            return
        try:
            st = os.stat(full)
        except OSError as e:
            problems.add(Problem(say(f"cannot read: {e.strerror}"), option, rule=RULE_UNREADABLE))
            return
        real = os.path.realpath(full)
        try:
            if stat.S_ISDIR(st.st_mode):
                self._walk(full, real, allowed, limits, items, problems, option, 0)
            else:
                self._read_file(full, real, st, limits, items, problems, option)
        except _Stop:
            pass

    def _walk(self, directory, real, allowed, limits, items, problems, option, depth) -> None:
        """`real` is the directory's resolved path: an entry that is not a link resolves to
        real/name, without asking the filesystem again."""
        if real in self._dirs:
            return  # reached before (a link to it, or a loop): its files are read already
        self._dirs.add(real)
        if depth > MAX_DIR_DEPTH:
            problems.add(Problem(f"{self._display(directory)}: more than {MAX_DIR_DEPTH} directories deep; not read", option, rule=RULE_UNREADABLE))
            return
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:
            problems.add(Problem(f"{self._display(directory)}: cannot read directory: {e.strerror}", option, rule=RULE_UNREADABLE))
            return
        for entry in entries:
            self.entries += 1
            if self.entries > MAX_ENTRIES:
                self._stop(f"more than {MAX_ENTRIES} directory entries", "", problems, option)
            name, path = entry.name, entry.path
            if name.startswith("."):
                continue
            try:
                is_link = entry.is_symlink()
                st = entry.stat()  # the target's, for a link
            except OSError as e:
                if _is_yaml_name(name):
                    problems.add(Problem(f"{self._display(path)}: cannot read: {e.strerror}", option, rule=RULE_UNREADABLE))
                continue
            is_dir = stat.S_ISDIR(st.st_mode)
            if not is_dir and (not _is_yaml_name(name) or name in SKIPPED_NAMES):
                continue
            entry_real = os.path.realpath(path) if is_link else os.path.join(real, name)
            if is_link and not any(_inside(entry_real, r) for r in allowed):
                problems.add(Problem(
                    f"{self._display(path)}: symbolic link that leads outside the {self.confine_label}; not read{self._opt_in()}",
                    option, rule=RULE_CONFINED
                ))
                continue
            if is_dir:
                self._walk(path, entry_real, allowed, limits, items, problems, option, depth + 1)
            else:
                self._read_file(path, entry_real, st, limits, items, problems, option)

    def _stop(self, what: str, option_name: str, problems, option) -> None:
        self.stopped = what
        hint = f" ({option_name})" if option_name else ""
        problems.add(Problem(f"per-run limit reached: the files read hold {what} in total{hint}; nothing more is read", option, rule=RULE_LIMIT), force=True)
        raise _Stop

    def _read_file(self, path, real, st, limits, items, problems, option) -> None:
        rel = self._display(path)
        if real in self._files:
            return
        self._files.add(real)
        if not is_utf8(rel):
            # The name goes into every object's path annotation and every message about it, which
            # kpt, kustomize and Argo CD carry as UTF-8 text (YAML, JSON): a name with other bytes
            # (Python reads it with surrogateescape) has no such form. Named, with its bytes as \xNN.
            problems.add(Problem(f"{shown_name(rel)}: file name is not UTF-8; not read: rename the file", option, rule=RULE_UNREADABLE))
            return
        if not stat.S_ISREG(st.st_mode):
            problems.add(Problem(f"{rel}: not a regular file", option, rule=RULE_UNREADABLE))
            return
        remaining = limits.max_bytes - self.bytes_read
        # The resolved path, not following a link there: what was checked is what is opened.
        lines: list = []
        docs, problem, size = _load(real, limits, remaining, getattr(os, "O_NOFOLLOW", 0), lines)
        self.bytes_read += size
        if problem == "run-bytes":
            self._stop(f"more than {limits.max_bytes} bytes", "maxInputBytes", problems, option)
        if problem is not None:
            problems.add(Problem(f"{rel}: {problem}", option, rule=RULE_UNREADABLE))
            return
        self.documents += len(docs)
        if self.documents > MAX_DOCUMENTS:
            self._stop(f"more than {MAX_DOCUMENTS} documents", "", problems, option)
        for i, doc in enumerate(docs):
            self.document_lines[rel, i] = lines[i]
            for item, where in _objects(doc):
                if where is not None:
                    problems.add(Problem(f"{rel}: document {i}{where} is not a Kubernetes object ({_what(item)}); not read", option, rule=RULE_NOT_AN_OBJECT))
                    continue
                items.append(_annotated(item, rel, i))


def _load(path: str, limits: Limits, remaining: int, flags: int = 0, lines=None) -> tuple[list, str | None, int]:
    """(documents, problem, bytes read) of one regular file; `lines`, when given, gets the line where
    each document returned starts (yamlio.load_all)."""
    try:
        # O_NONBLOCK: a FIFO swapped in after the stat must not block the function forever.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | flags)
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return [], "not a regular file", 0
            # In chunks: f.read(n) reserves n bytes up front, and maxInputBytes may be up to 1 GiB.
            data = read_all(f.fileno(), min(limits.max_bytes, max(remaining, 0)))
    except OSError as e:
        return [], f"cannot read: {e.strerror}", 0
    if len(data) > limits.max_bytes:
        return [], f"larger than maxInputBytes ({limits.max_bytes} bytes); not read", len(data)
    if len(data) > remaining:
        return [], "run-bytes", len(data)
    try:
        starts = [] if lines is not None else None
        docs = load_all(data, limits, lines=starts)
    except YAMLInputError as e:
        return [], str(e), len(data)
    if lines is not None:
        lines.extend(n for d, n in zip(docs, starts) if d is not None)
    return [d for d in docs if d is not None], None, len(data)


def load_file(path: str, limits: Limits = DEFAULT_LIMITS) -> tuple[list, list]:
    """Documents of one file named by its path (a config file), and problems naming the file."""
    docs, problem, _ = _load(path, limits, limits.max_bytes)
    if problem is not None:
        return [], [Problem(f"{path}: {problem}", rule=RULE_UNREADABLE)]
    return docs, []


_TYPES = {str: "a string", int: "an integer", float: "a number", bool: "a boolean", list: "a sequence"}


def _what(doc) -> str:
    if isinstance(doc, dict):
        missing = [k for k in ("apiVersion", "kind") if not (isinstance(doc.get(k), str) and doc.get(k))]
        return f"no {' or '.join(missing)}"
    return _TYPES.get(type(doc), type(doc).__name__)


def _is_object(doc) -> bool:
    return isinstance(doc, dict) and all(isinstance(doc.get(k), str) and doc.get(k) for k in ("apiVersion", "kind"))


def is_list(doc) -> bool:
    """A `kind: List` (anything `*List` with `items`): kubectl and Argo CD apply its items."""
    return _is_object(doc) and doc["kind"].endswith("List") and isinstance(doc.get("items"), list)


def _objects(doc):
    """(object, None) for each object of a document, a List flattened; (thing, where) for the rest."""
    if is_list(doc):
        for j, item in enumerate(doc["items"]):
            yield (item, None) if _is_object(item) else (item, f" items[{j}]")
        return
    yield (doc, None) if _is_object(doc) else (doc, "")


def trainjobs_in_list(item) -> list:
    """Errors for TrainJobs inside a List item of a ResourceList. kpt hands a `kind: List` document
    over as one item, and items go back as they came, so they cannot be flattened there as they are
    when the function reads files: without an error, those TrainJobs would silently not render."""
    if not is_list(item):
        return []
    return [
        Problem(
            f"{res.display(x)} inside {item['kind']} is not expanded: the items of a ResourceList are not "
            "flattened; put the TrainJob in a document of its own",
            f"items[{j}]",
            subject=item, rule=RULE_NOT_AN_OBJECT
        )
        for j, x in enumerate(item["items"])
        if isinstance(x, dict) and res.is_trainjob(x)
    ]


def is_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown_name(name: str) -> str:
    """A file name as a message shows it: a byte that is not UTF-8 as \\xNN (as git quotes it)."""
    return named_bytes(name)


def _annotated(obj: dict, rel: str, index: int) -> dict:
    md = obj.get("metadata")
    if md is not None and not (isinstance(md, dict) and isinstance(md.get("annotations", {}), (dict, type(None)))):
        return obj  # garbage metadata is reported by the checks, as it came
    return res.with_annotations(obj, {res.PATH: rel, res.INDEX: str(index)})


class _Problems(list):
    """Problems of one read, the file problems beyond MAX_FILE_PROBLEMS only counted."""

    def __init__(self):
        super().__init__()
        self.dropped = 0

    def add(self, problem: Problem, force: bool = False) -> None:
        if force or len(self) < MAX_FILE_PROBLEMS:
            self.append(problem)
        else:
            self.dropped += 1

    def done(self) -> list:
        out = list(self)
        if self.dropped:
            field = out[-1].path if out else ""
            out.append(Problem(f"{self.dropped} more problem(s) reading files not shown", field, severity=ERROR, rule=RULE_UNREADABLE))
        return out
