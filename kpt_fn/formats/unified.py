"""The plain-text form of `diff` and of the upgrade preview, for a person at a terminal: each changed
object as a unified diff of its YAML, as `kubectl diff` shows it, with what the change does in the
cluster on `#` lines above it.

kubectl diff (k8s.io/kubectl v0.36.3, pkg/cmd/diff/diff.go) writes each object's two versions as
YAML (:236-248, sigs.k8s.io/yaml: keys sorted) to one file per object, named
`group.version.kind.namespace.name` (InfoObject.Name :412-424, no group for the core group), in two
directories, and runs `diff -u -N` over them (:191-210: unified, an absent file read as empty). The
same here, with no files: each object's file name under the revision it was read at (`OLD/...`,
`NEW/...`), a `diff -u -N` line, `---`/`+++` and hunks of 3 lines of context; an added object is all
`+`, a removed one all `-`. Secret data arrives masked (kpt_fn.review.diff.mask_secrets, kubectl's
Masker). Notes that are not diff lines (summary, effects, findings) start with `#`, which `patch`
and diff viewers pass over.

Inert whatever the repository holds: the YAML is split at `\\n` only and every line escaped
(kpt_fn.results.escape: control characters, line and paragraph separators, bidirectional overrides,
the runner's `##[`), so one output line is one diff line; and a line whose text after leading white
space starts with `::` has that colon escaped, since the GitHub Actions runner runs such a line as a
workflow command (actions/runner src/Runner.Common/ActionCommand.cs TryParseV2, lines 51-119, reads
the line after TrimStart). Colour, when asked for, is added around the escaped line: git diff's
default colours (color.diff: meta bold, frag cyan, old red, new green).
"""

from __future__ import annotations

import difflib
import json

from kpt_fn import resource as res
from kpt_fn.formats.diff import PLAIN, effect_notes
from kpt_fn.problems import ERROR
from kpt_fn.results import escape
from kpt_fn.review.findings import counts
from kpt_fn.yamlio import dump

CONTEXT = 3  # diff -u's lines of context

_SGR = {"meta": "\x1b[1m", "frag": "\x1b[36m", "old": "\x1b[31m", "new": "\x1b[32m", "note": "\x1b[33m"}
_RESET = "\x1b[m"
_V2_COMMAND = "::"
_V2_ESCAPED = "\\x3a:"


def file_name(obj: dict) -> str:
    """kubectl diff's file name of an object: `group.version.kind.namespace.name`."""
    group, _, version = str(obj.get("apiVersion") or "").rpartition("/")
    return f"{group + '.' if group else ''}{version}.{obj.get('kind')}.{res.namespace(obj) or ''}.{res.name(obj)}"


def _sorted(value):
    # sigs.k8s.io/yaml writes through JSON: every map's keys sorted
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def _yaml_lines(obj) -> list:
    if obj is None:
        return []
    return dump(_sorted(obj)).removesuffix("\n").split("\n")


def _object_diff(old, new, labels: tuple) -> list:
    """The `diff -u -N` output of one object's two versions ([] when their YAML is the same)."""
    name = file_name(new if new is not None else old)
    a, b = f"{labels[0]}/{name}", f"{labels[1]}/{name}"
    body = list(difflib.unified_diff(_yaml_lines(old), _yaml_lines(new), a, b, n=CONTEXT, lineterm=""))
    return [f"diff -u -N {a} {b}", *body] if body else []


def _finding(f: dict) -> str:
    where = f"{f['file']}:{f['line']}: " if f.get("file") and f.get("line") else f"{f['file']}: " if f.get("file") else ""
    about = f"{f['object']}: " if f.get("object") else ""
    return f"#   {where}{f['severity']}: {about}{f['message']}" + (f" [{f['rule']}]" if f.get("rule") else "")


def _trainjob(j: dict, sides: dict, labels: tuple) -> list:
    c = counts(j["findings"])
    head = f"# TrainJob {j['trainJob']}: {j['change']}"
    if j.get("runtime"):
        head += f" (runtime {j['runtime']})"
    head += f", {len(j['objects'])} object(s)"
    if c["errors"] or c["warnings"]:
        head += f", {c['errors']} error(s), {c['warnings']} warning(s)"
    out = [head, *(_finding(f) for f in j["findings"] if f["severity"] == ERROR or j["change"] != "failed")]
    for o in j["objects"]:
        old, new = sides.get(o["object"], (None, None))
        notes = [f"# {o['object']}: {o['change']}", *(f"#   {'  ' * depth}{note}" for depth, note in effect_notes(o, PLAIN))]
        out += notes + (_object_diff(old, new, labels) if old is not None or new is not None else [])
    return out


def _plain_value(value) -> str:
    return "(not set)" if value is None else value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _guardrails(data: dict) -> list:
    """What the change does to the guardrails (kpt_fn.review.guardrails), first, as `#` lines."""
    g = data.get("guardrails") or {}
    out = [f"#   {o['option']}: {_plain_value(o['old'])} -> {_plain_value(o['new'])}" for o in g.get("options", ())]
    out += [f"#   shared runtime {r['runtime']} {r['change']}" + (f" ({r['file']})" if r.get("file") else "")
            for r in g.get("runtimes", ())]
    out += [f"#   policyDirs: {p['object']} {p['change']}" for p in g.get("policies", ())]
    for w in g.get("waivers", ()):
        reason = f"its reason was: {w['old']}" if w["change"] == "removed" else f"reason: {w['new']}" + (
            f" (was: {w['old']})" if w["change"] == "changed" else "")
        out.append(f"#   waiver of {w['rule']} {w['change']} on TrainJob {w['trainJob']}, {reason}")
    return ["# guardrails changed by this pull request:", *out] if out else []


def _summary(data: dict) -> list:
    s = data["summary"]
    out = [f"# expand-trainjobs diff: {s['changed']} TrainJob(s) changed, {s['added']} added, {s['removed']} removed"
           + (f", {s['failed']} failed" if s.get("failed") else "")
           + (f"; {s['refused']} with a change the cluster refuses" if s.get("refused") else ""),
           *_guardrails(data),
           f"# at the new revision: {data['errors']} error(s), {data['warnings']} warning(s)"]
    out += [f"# runtime {rt['runtime']} {rt['change']}: used by {rt['trainJobs']} TrainJob(s), "
            f"{len(rt['trainJobsChanged'])} existing one(s) render differently" for rt in data["runtimes"]]
    out += [_finding(f) for f in data["findings"]]
    if not data["trainJobs"] and not data["runtimes"]:
        out.append("# no rendered object changes" + (": only the guardrails above changed" if _guardrails(data) else ""))
    return out


def _inert(line: str) -> str:
    line = escape(line)
    stripped = line.lstrip()
    if stripped.startswith(_V2_COMMAND):
        at = len(line) - len(stripped)
        line = line[:at] + _V2_ESCAPED + line[at + 2:]
    return line


def _kind(line: str) -> str | None:
    if line.startswith(("diff ", "--- ", "+++ ")):
        return "meta"
    if line.startswith("@@"):
        return "frag"
    return {"-": "old", "+": "new", "#": "note"}.get(line[:1])


def _written(lines: list, color: bool) -> str:
    out = []
    for line in lines:
        shown = _inert(line)
        kind = _kind(line) if color else None
        out.append(f"{_SGR[kind]}{shown}{_RESET}\n" if kind else f"{shown}\n")
    return "".join(out)


def text(data: dict, sides: dict | None = None, labels: tuple = ("OLD", "NEW"), color: bool = False) -> str:
    """`diff --format text`: the summary, then per TrainJob (those that failed first) its findings
    and each changed object's notes and unified diff. `sides`: {TrainJob: {object: (old, new)}}
    (kpt_fn.review.diff.sides); `labels`: the two revisions as the command was given them."""
    sides = sides or {}
    lines = _summary(data)
    for j in sorted(data["trainJobs"], key=lambda j: j["change"] != "failed"):
        lines += _trainjob(j, sides.get(j["trainJob"], {}), labels)
    return _written(lines, color)


def upgrade(data: dict, sides: dict | None = None, labels: tuple = ("OLD", "NEW"), color: bool = False) -> str:
    """The upgrade preview's text: what upgrading does, in a line, then the diff's text."""
    up, s, c = data["upgrade"], data["summary"], data["upgrade"]["objects"]
    head = [f"# upgrading Kubeflow Trainer {up['from']} -> {up['to']}: {s['changed']} of {up['trainJobsRendered']} "
            f"TrainJob(s) render differently ({s.get('refused', 0)} with a change the cluster refuses: recreate their "
            f"JobSets); objects: {c['in-place']} updated in place, {c['refused']} refused, {c['created']} created, "
            f"{c['pruned']} no longer rendered"]
    return _written(head, color) + text(data, sides, labels, color)
