"""The writers of `diff`: the diff (kpt_fn.review.diff) as a pull-request comment in Markdown, or as
JSON. Each changed field is shown on one line, its values cut to a length; a changed script or
hostfile by its first changed line."""

from __future__ import annotations

import json

from kpt_fn.formats import markdown as md
from kpt_fn.formats.comment import DEFAULT_MAX_CHARS, counted, findings_table, fit
from kpt_fn.lifecycle import classify
from kpt_fn.problems import ERROR
from kpt_fn.review.findings import counts

# Most fields listed per changed object, and characters per value shown, in Markdown.
FIELDS_SHOWN = 50
VALUE_CHARS = 80


def _short(value) -> str:
    # A value on one line (a hostfile or script is JSON-quoted, its newlines escaped): the list stays a list.
    plain = isinstance(value, str) and "\n" not in value
    text = value if plain else json.dumps(value, sort_keys=True, ensure_ascii=False)
    return md.shorten(text, VALUE_CHARS)


def _first_changed_line(old, new) -> tuple | None:
    """(number, old line, new line) of the first line two texts (a script, a hostfile) differ in,
    None unless both are strings and one has several lines: their first characters say nothing."""
    if not (isinstance(old, str) and isinstance(new, str) and ("\n" in old or "\n" in new)):
        return None
    a, b = old.split("\n"), new.split("\n")
    n = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return n + 1, a[n] if n < len(a) else "", b[n] if n < len(b) else ""


def _object_lines(o: dict) -> list:
    if o["change"] != "changed":
        return [f"- {o['change']}: {md.text(o['object'])}", *_effect_lines(o)]
    out = [f"- changed: {md.text(o['object'])}"]
    for f in o["fields"][:FIELDS_SHOWN]:
        path = md.code(f["path"])
        if f["old"] is None:
            out.append(f"  - {path} added: {md.code(_short(f['new']))}")
        elif f["new"] is None:
            out.append(f"  - {path} removed (was {md.code(_short(f['old']))})")
        elif (lines := _first_changed_line(f["old"], f["new"])) is not None:
            number, was, now = lines
            out.append(f"  - {path} line {number}: {md.code(_short(was))} → {md.code(_short(now))}")
        else:
            out.append(f"  - {path}: {md.code(_short(f['old']))} → {md.code(_short(f['new']))}")
    if len(o["fields"]) > FIELDS_SHOWN:
        out.append(f"  - … and {len(o['fields']) - FIELDS_SHOWN} more field(s) (see `--format json`)")
    return out + _effect_lines(o)


def _diff_block(j: dict) -> list:
    c = counts(j["findings"])
    first_error = next((f["message"] for f in j["findings"] if f["severity"] == ERROR), None)
    summary = f"{j['change']}: TrainJob <b>{md.in_html(j['trainJob'])}</b>"
    if j.get("runtime"):
        summary += f" ({md.in_html(j['runtime'])})"
    summary += f": {len(j['objects'])} object(s)" + (f"; {counted(c)}" if c["errors"] or c["warnings"] else "")
    if first_error:
        summary += f" — {md.in_html(md.shorten(first_error, 200))}"
    refused = sorted({o["object"].partition(" ")[0] for o in j["objects"] if o.get("effect") == classify.REFUSED})
    if refused:
        summary += f" — <b>refused by the cluster</b> on an existing {md.in_html(', '.join(refused))}"
    body = [line for o in j["objects"] for line in _object_lines(o)]
    if j["findings"]:
        body += ["", *findings_table(j["findings"])]
    return md.details(summary, body or ["(no object)"], open_=j["change"] == "failed" or refused)


def _value(value) -> str:
    return "(not set)" if value is None else md.code(_short(value))


def guardrail_lines(data: dict) -> list:
    """The section that comes first: every guardrail the change touches (kpt_fn.review.guardrails),
    an option as old → new, a waiver with its reason; nothing when none changed."""
    g = data.get("guardrails") or {}
    if not any(g.get(k) for k in ("options", "runtimes", "policies", "waivers")):
        return []
    # bold, not a heading: CI posts several apps' diffs in one comment, each under its own heading
    out = ["**Guardrails changed by this pull request**", ""]
    out += [f"- {md.code(o['option'])}: {_value(o['old'])} → {_value(o['new'])}" for o in g.get("options", ())]
    out += [f"- shared runtime {md.code(r['runtime'])} {r['change']}" + (f" ({md.code(r['file'])})" if r.get("file") else "")
            for r in g.get("runtimes", ())]
    out += [f"- policyDirs: {md.code(p['object'])} {p['change']}" for p in g.get("policies", ())]
    for w in g.get("waivers", ()):
        what = f"waiver of {md.code(w['rule'])} {w['change']} on TrainJob {md.code(w['trainJob'])}"
        if w["change"] == "removed":
            out.append(f"- {what} (its reason was: {md.text(md.shorten(w['old'] or '', 200))})")
        else:
            out.append(f"- {what}, reason: {md.text(md.shorten(w['new'] or '', 200))}"
                       + (f" (was: {md.text(md.shorten(w['old'], 200))})" if w["change"] == "changed" else ""))
    return out + [""]


def markdown(data: dict, max_chars: int | None = None) -> str:
    s = data["summary"]
    head = [f"## expand-trainjobs diff: {s['changed']} TrainJob(s) changed, {s['added']} added, {s['removed']} removed"
            + (f", {s['failed']} failed" if s.get("failed") else ""), "", *guardrail_lines(data),
            f"At the new revision: {data['errors']} error(s), {data['warnings']} warning(s).", ""]
    for rt in data["runtimes"]:
        head.append(f"- runtime {md.code(rt['runtime'])} {rt['change']}: used by {rt['trainJobs']} TrainJob(s), "
                    f"{len(rt['trainJobsChanged'])} existing one(s) render differently")
    if data["runtimes"]:
        head.append("")
    head += _refused_summary(data)
    if data["findings"]:
        head += ["### Findings not about one TrainJob", "", *findings_table(data["findings"]), ""]
    if not data["trainJobs"] and not data["runtimes"]:
        head.append("No rendered object changes." if not guardrail_lines(data) else
                    "No rendered object changes: only the guardrails above changed.")
    order = sorted(data["trainJobs"], key=lambda j: j["change"] != "failed")  # stable: by name otherwise
    return fit(head, [(_diff_block(j), counts(j["findings"])) for j in order], max_chars or DEFAULT_MAX_CHARS, "TrainJob(s)")


class Style:
    """How the sentences about an object's effect quote what they name: a field path or name as code,
    other text as text, the refusal strong. The Markdown's (formats.markdown) or the plain text's
    (as they are: the plain writer escapes each whole line)."""

    __slots__ = ("code", "text", "strong")

    def __init__(self, code, text, strong):
        self.code, self.text, self.strong = code, text, strong


MARKDOWN = Style(md.code, md.text, lambda s: f"**{s}**")
PLAIN = Style(str, str, str)


def effect_notes(obj: dict, style: Style = MARKDOWN) -> list:
    """[(depth, sentence)]: what the change to one object will do in the cluster (kpt_fn.lifecycle.classify),
    the one wording of every diff writer."""
    code = style.code
    if obj.get("effect") == classify.IN_PLACE and obj.get("onceRunning") == classify.REFUSED:
        fields = ", ".join(code(f) for f in obj["refusedFields"])  # paths hold user names (env, containers)
        return [(0, "applied in place while the TrainJob is held (its JobSet is suspended); the same change is "
                    f"refused once the JobSet runs ({fields})")]
    if obj.get("effect") == classify.IN_PLACE:
        return [(0, "applied in place")]
    if obj.get("effect") == classify.PRUNED:
        return [(0, f"deleted by a sync that prunes (Argo CD {code('prune')}, {code('kpt live apply')}); left running otherwise")]
    if obj.get("effect") != classify.REFUSED:
        return []
    fields = ", ".join(code(f) for f in obj["refusedFields"])  # paths hold user names (env, containers)
    kind, _, name = obj["object"].partition(" ")
    what = "cannot be changed once created" if kind == "JobSet" else "cannot take this change"
    notes = [(0, f"{style.strong('refused by the cluster')}: {style.text(kind)} {style.text(name)} {what} ({fields})")]
    if obj.get("whileSuspended") == classify.IN_PLACE:
        notes.append((0, "accepted while the JobSet is suspended (held or queued), refused once it runs"))
    notes.append((0, f"what to do: {obj['remedy']}"))
    notes += [(1, f"{route['client']}: {route['do']}") for route in obj.get("routes") or ()]
    return notes


def _effect_lines(obj: dict) -> list:
    """Lines under an object of the Markdown diff saying what the change will do."""
    return [f"{'  ' * (depth + 1)}- {note}" for depth, note in effect_notes(obj)]


def _refused_summary(data: dict) -> list:
    count = data["summary"].get("refused", 0)
    if not count:
        return []
    kinds = sorted({o["object"].partition(" ")[0] for j in data.get("trainJobs", ()) for o in j["objects"]
                    if o.get("effect") == classify.REFUSED}) or ["JobSet"]
    return [f"**{count} TrainJob(s) have changes the cluster refuses** on an existing {md.text(', '.join(kinds))} "
            "(see below).", ""]


def to_json(data: dict) -> str:
    return json.dumps(data, indent=2, sort_keys=True, default=str) + "\n"
