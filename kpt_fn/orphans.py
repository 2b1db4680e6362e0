"""TrainJobs in no app: the files below the paths `--find-apps` searched that hold a TrainJob no app it
found reads.

An app is a directory with expand-trainjobs.yaml (or a kustomization or Kptfile naming the function,
kpt_fn.apps). A pull request that deletes or renames an app's config makes its directory no app: its
TrainJobs would then be checked by nothing while CI says "found N app(s)", and Argo CD, whose
Application names the plugin, still renders the directory, with the default config: no policy
(issue 32). So after the search every TrainJob file that no found app reads is an error naming the
file and the TrainJob: a TrainJob nobody checks is what the gate exists to stop, and a warning would
leave the check green.

What an app reads is what render reads (kpt_fn.sources): its directory's YAML and JSON files and its
non-hidden subdirectories, following links. Everything else below the searched paths is searched as
`find` lists it: hidden directories and files too (render skips them inside an app, but an Argo CD
Application may name a hidden directory as its path), links listed where they are and not descended
(a link's target inside the repository is searched where it lies; a file link is read when its target
stays below the working directory). `.git` holds no working files and is not searched.

A directory of plain TrainJobs applied for a cluster's own Trainer controller is a legitimate layout:
the platform team states it in `.expand-trainjobs-unchecked.yaml` in the directory the search runs
in (the repository's top level in CI), each entry a path and a visible reason. The TrainJobs it covers
are named on stderr with the reason on every run (and in the JSON report), not silenced. The file is
the platform team's to own (CODEOWNERS, docs/ci.md "What a pull request can change"): an author who
may add it may also delete the configs it would excuse.

Pure over the file tree: the command line (kpt_fn.cli.plain, kpt_fn.cli.modes) calls `judge` and
merges what it returns into its output.
"""

from __future__ import annotations

import os

from kpt_fn.formats import text
from kpt_fn.problems import ERROR, WARNING, Rule
from kpt_fn.review.findings import record
from kpt_fn.results import escape
from kpt_fn.sources import EXTENSIONS, MAX_ENTRIES, SKIPPED_NAMES
from kpt_fn.yamlio import DEFAULT_LIMITS, YAMLInputError, load_all

STATEMENT_FILE = ".expand-trainjobs-unchecked.yaml"
RULE = "apps/trainjob-in-no-app"
STATEMENT_RULE = "apps/unchecked-statement"
RULES = [
    Rule(RULE, "TrainJob", "every TrainJob file below the paths --find-apps searched is read by an app it found, "
                           f"or is stated unchecked, with a reason, in {STATEMENT_FILE}"),
    Rule(STATEMENT_RULE, STATEMENT_FILE, "each entry names a relative path and gives a visible reason"),
]
TRAINER_GROUP = "trainer.kubeflow.org"
SKIPPED_DIRS = frozenset({".git"})


def _rel(path: str, cwd: str) -> str:
    return os.path.relpath(path, cwd).replace(os.sep, "/")


def _trainjobs(value) -> list[str]:
    """The TrainJobs a parsed document holds, itself or in a List's items, as `namespace/name`."""
    out, stack = [], [value]
    while stack:
        v = stack.pop()
        if isinstance(v, list):
            stack.extend(reversed(v))
        elif isinstance(v, dict):
            api = v.get("apiVersion")
            if v.get("kind") == "TrainJob" and isinstance(api, str) and api.startswith(TRAINER_GROUP + "/"):
                meta = v.get("metadata") if isinstance(v.get("metadata"), dict) else {}
                out.append(f"{meta.get('namespace') or ''}/{meta.get('name') or '(no name)'}".lstrip("/"))
            elif isinstance(v.get("items"), list):
                stack.extend(reversed(v["items"]))
    return out


def _may_hold_trainjob(data: bytes) -> bool:
    """Whether a file can hold a TrainJob at all, before it is parsed (most YAML of a repository does
    not): its bytes spell `TrainJob`, or could spell it otherwise: an escape in a double-quoted scalar
    (`"Train\\x4aob"`, also JSON's `\\u004a`) needs a backslash, and another encoding (UTF-16 or 32,
    which YAML allows) has NUL bytes or a byte order mark."""
    return b"TrainJob" in data or b"\\" in data or b"\0" in data or data[:3] == b"\xef\xbb\xbf" \
        or data[:2] in (b"\xff\xfe", b"\xfe\xff")


def trainjobs_in(path: str) -> list[tuple[int | None, str]]:
    """[(line, TrainJob)] of one file. A file that cannot be read or parsed, or is past the size
    limit, but names TrainJob in its bytes, is one entry with no name: it may hold one (fail closed;
    render would refuse it too)."""
    try:
        with open(path, "rb") as f:
            data = f.read(DEFAULT_LIMITS.max_bytes + 1)
    except OSError:
        return []
    if not _may_hold_trainjob(data):
        return []
    if len(data) <= DEFAULT_LIMITS.max_bytes:
        starts: list = []
        try:
            docs = load_all(data, DEFAULT_LIMITS, lines=starts)
        except (YAMLInputError, ValueError, RecursionError):
            pass
        else:
            return [(starts[i] if i < len(starts) else None, tj) for i, doc in enumerate(docs) for tj in _trainjobs(doc)]
    return [(None, "")] if b"TrainJob" in data or "TrainJob" in _wide(data) else []


def _wide(data: bytes) -> str:
    """The text of a file in UTF-16 or UTF-32 (a byte order mark, or NUL bytes), which the YAML reader
    here refuses; "" otherwise."""
    if not (b"\0" in data or data[:2] in (b"\xff\xfe", b"\xfe\xff")):
        return ""
    return " ".join(data.decode(codec, errors="ignore") for codec in ("utf-16", "utf-16-le", "utf-16-be", "utf-32"))


def _is_candidate(name: str) -> bool:
    return name.endswith(EXTENSIONS) and name not in SKIPPED_NAMES


def _app_reads(app: str, cwd: str) -> tuple[set, list]:
    """(the real paths an app's links lead to (render reads through them), the hidden entries of the app
    that render skips and the search must look into)."""
    targets, hidden = set(), []
    for here, dirs, files in os.walk(app):
        for name in dirs + files:
            full = os.path.join(here, name)
            if name.startswith("."):
                if name not in SKIPPED_DIRS:
                    hidden.append(full)
            elif os.path.islink(full):
                targets.add(os.path.realpath(full))
        dirs[:] = [d for d in dirs if not d.startswith(".")]
    return targets, hidden


def _under_any(real: str, roots: set) -> bool:
    return any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def search(tops: list[str], found: list[str], cwd: str) -> tuple[list[dict], str | None]:
    """([{file, line, trainJob}] below `tops` that no app of `found` reads, a reason the search
    stopped early or None); files relative to `cwd`, sorted."""
    app_dirs = {os.path.normpath(os.path.join(cwd, a)) for a in found}
    base = os.path.realpath(cwd)
    covered, pending = set(), []
    for app in sorted(app_dirs):
        targets, hidden = _app_reads(app, cwd)
        covered |= targets
        pending += hidden
    out, seen, entries, stopped = [], set(), 0, None

    def look(path: str) -> None:
        real = os.path.realpath(path)
        if real in seen or _under_any(real, covered) or not _under_any(real, {base}):
            return
        seen.add(real)
        out.extend({"file": _rel(path, cwd), "line": line, "trainJob": tj} for line, tj in trainjobs_in(path))

    starts = [os.path.normpath(os.path.join(cwd, t)) for t in tops] + pending
    for start in starts:
        if os.path.isfile(start):
            if start in pending and _is_candidate(os.path.basename(start)):
                look(start)
            continue
        for here, dirs, files in os.walk(start):
            entries += len(dirs) + len(files)
            if entries > MAX_ENTRIES:
                stopped = f"more than {MAX_ENTRIES} directory entries"
                break
            if here in app_dirs:
                dirs[:] = []  # the app reads it; its hidden entries are searched on their own (pending)
                continue
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
            for name in sorted(files):
                if _is_candidate(name):
                    look(os.path.join(here, name))
    unique = {(o["file"], o["line"], o["trainJob"]): o for o in out}
    return sorted(unique.values(), key=lambda o: (o["file"], o["line"] or 0, o["trainJob"])), stopped


def statement(cwd: str) -> tuple[list[dict], list[str]]:
    """([{path, reason}] stated unchecked in STATEMENT_FILE of `cwd`, problems with it). No file: nothing
    stated. A problem makes the whole file count for nothing (every TrainJob stays an error)."""
    from kpt_fn.policy import visible

    full = os.path.join(cwd, STATEMENT_FILE)
    if not os.path.lexists(full):
        return [], []
    if os.path.islink(full) or not os.path.isfile(full):
        return [], [f"{STATEMENT_FILE}: not a regular file (a link is not read); it states nothing"]
    try:
        with open(full, "rb") as f:
            docs = load_all(f.read(DEFAULT_LIMITS.max_bytes + 1), DEFAULT_LIMITS)
    except (OSError, YAMLInputError, ValueError, RecursionError) as e:
        return [], [f"{STATEMENT_FILE}: cannot be read ({type(e).__name__}); it states nothing"]
    doc = docs[0] if len(docs) == 1 else None
    if not isinstance(doc, dict) or set(doc) != {"unchecked"} or not isinstance(doc["unchecked"], list):
        return [], [f"{STATEMENT_FILE}: must be one document with only `unchecked`, a list of {{path, reason}}; it states nothing"]
    entries, problems = [], []
    for i, e in enumerate(doc["unchecked"]):
        where = f"{STATEMENT_FILE}: unchecked[{i}]"
        if not isinstance(e, dict) or set(e) != {"path", "reason"}:
            problems.append(f"{where}: must have exactly `path` and `reason`")
            continue
        path, reason = e["path"], e["reason"]
        clean = os.path.normpath(path) if isinstance(path, str) and path else ""
        if not clean or os.path.isabs(clean) or clean == ".." or clean.startswith("../") or "\\" in path:
            problems.append(f"{where}.path: must be a relative path below the directory of {STATEMENT_FILE}")
            continue
        if not isinstance(reason, str) or not visible(reason):
            problems.append(f"{where}.reason: must say, with visible characters, why these TrainJobs are in no app")
            continue
        entries.append({"path": clean.replace(os.sep, "/"), "reason": reason.strip()})
    return ([], problems) if problems else (entries, [])


def _covers(path: str, file: str) -> bool:
    return path == "." or file == path or file.startswith(path + "/")


def judge(tops: list[str], found: list[str], cwd: str) -> dict:
    """What the search says beside the apps found: `findings` (records of the findings model,
    kpt_fn.review.findings: each TrainJob in no app and not stated, an error; a problem with the statement file,
    an error; a stated path holding an app, a warning), `unchecked` (the stated paths with their reason
    and the TrainJob files they cover), and `lines` for stderr."""
    orphans, stopped = search(tops, found, cwd)
    stated, problems = statement(cwd)
    findings, lines = [], []

    def add(severity, rule, message, file=None, line=None, resource=None):
        # one record of the findings model, and its line in the one form (kpt_fn.formats.text)
        found = record(rule, severity, message, resource, file=file or "", line=line)
        findings.append(found)
        lines.append(text.line(found))

    for p in problems:
        add(ERROR, STATEMENT_RULE, p, STATEMENT_FILE)
    if stopped:
        add(ERROR, RULE, f"the search for TrainJobs in no app stopped: {stopped}; "
                         "name fewer directories (their TrainJobs were not all looked at)")
    unchecked = [{**s, "files": []} for s in stated]
    for o in orphans:
        entry = next((u for u in unchecked if _covers(u["path"], o["file"])), None)
        if entry is not None:
            if o["file"] not in entry["files"]:
                entry["files"].append(o["file"])
            continue
        ref = {"apiVersion": "", "kind": "TrainJob", "namespace": o["trainJob"].rpartition("/")[0],
               "name": o["trainJob"].rpartition("/")[2]} if o["trainJob"] else None
        # the writers name the TrainJob before the message (its resource); a file with no name says what it is
        what = "the TrainJob" if o["trainJob"] else "a file that names TrainJob but cannot be read as YAML"
        add(ERROR, RULE, f"{what} is in no app: no expand-trainjobs.yaml (nor a kustomization or Kptfile naming the "
                         f"function) in its directory or above it, so nothing checks it; make the directory an app, "
                         f"or state it in {STATEMENT_FILE} with a reason", o["file"], o["line"], ref)
    for u in unchecked:
        holds = [a for a in found if _covers(u["path"], a) or _covers(a, u["path"])]
        if holds:
            add(WARNING, STATEMENT_RULE, f"{STATEMENT_FILE} states {u['path']} unchecked, but it holds or is in "
                                         f"app(s) {', '.join(holds)}: if one stops being an app, its TrainJobs go "
                                         "unchecked without an error; state only directories that are no app", STATEMENT_FILE)
        if u["files"]:
            lines.append(escape(f"  [info] {len(u['files'])} file(s) of TrainJobs in no app under {u['path']}, "
                                f"stated unchecked in {STATEMENT_FILE} ({u['reason']}): {', '.join(u['files'])}"))
    return {"findings": findings, "unchecked": unchecked, "lines": lines,
            "errors": sum(1 for f in findings if f["severity"] == ERROR),
            "warnings": sum(1 for f in findings if f["severity"] == WARNING)}


def with_findings(report: dict, judged: dict) -> dict:
    """A merged report (kpt_fn.apps.merge_reports or merge_review: one findings record shape) with what the
    search found beside the apps: its findings (naming no app), counts, and the paths stated unchecked
    (`unchecked`, always listed)."""
    out = {**report, "findings": report["findings"] + judged["findings"],  # one record shape, naming no app
           "errors": report["errors"] + judged["errors"], "warnings": report["warnings"] + judged["warnings"],
           "unchecked": judged.get("unchecked", [])}
    if judged["errors"] and "summary" in report:
        out["summary"] = f"{report['summary']}; {judged['errors']} error(s) beside the apps"
    return out


def summary(first, judged: dict, strict: bool = False):
    """The merged summary line `first` (kpt_fn.results.Summary), failed when the search found errors
    beside the apps (or warnings, under --strict), saying how many."""
    from kpt_fn.results import Summary

    bad = judged["errors"] + (judged["warnings"] if strict else 0)
    if not bad or not isinstance(first, Summary):
        return first
    return Summary(False, f"{first.detail}; {judged['errors']} error(s), {judged['warnings']} warning(s) beside the apps "
                          f"(TrainJobs in no app, {STATEMENT_FILE})")
