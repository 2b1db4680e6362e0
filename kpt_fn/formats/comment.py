"""The pieces the pull-request comments share (`report`, `diff`, the upgrade preview, the KRM
`report:` ConfigMap): the findings table and the cut to a comment's size with counts of what was
cut. Every value from the repository is made inert by kpt_fn.formats.markdown.
"""

from __future__ import annotations

from kpt_fn.formats import markdown as md

# A GitHub comment holds 65,536 characters: the Markdown outputs stop short of that by default.
DEFAULT_MAX_CHARS = 60_000


def _where(f: dict) -> str:
    if not f["file"]:
        return "–"
    # path:line:col, as every other output names a finding's place (kpt_fn.formats.text)
    return md.code(f"{f['file']}:{f['line']}:{f['column'] or 1}" if f["line"] else f["file"], in_table=True)


def findings_table(found: list) -> list:
    """The findings as a table: severity, rule, object, file:line:col, field, message (with the waiver)."""
    rows, by_app = [], any(f.get("app") for f in found)  # several apps: each finding names its app
    for f in found:
        message = md.text(md.shorten(f["message"], 1000))
        waiver = f.get("waiver")
        if waiver:
            # policy's message quotes the reason already: the annotation is what the table adds.
            reason = "" if waiver["reason"] in f["message"] else f": {md.text(waiver['reason'])}"
            message += f" (waived by {md.code(waiver['annotation'], in_table=True)}{reason})"
        rows.append([f["severity"], md.code(f["rule"], in_table=True) if f["rule"] else "–",
                     md.text(f["object"]) or "–", _where(f), md.code(f["field"], in_table=True) if f["field"] else "–", message]
                    + ([md.code(f["app"], in_table=True) if f.get("app") else "–"] if by_app else []))
    return md.table(["severity", "rule", "object", "file:line:col", "field", "message"] + (["app"] if by_app else []), rows)


def counted(c: dict) -> str:
    return f"{c['errors']} error(s), {c['warnings']} warning(s)"


_CUT_NOTE_CHARS = 400  # room kept for the line that counts what was cut


def _cut_note(max_chars: int, omitted: list, what: str) -> str:
    errors = sum(c["errors"] for _, c in omitted)
    warnings = sum(c["warnings"] for _, c in omitted)
    return (f"\n**Cut to {max_chars} characters: {len(omitted)} more {what} not shown ({errors} error(s), "
            f"{warnings} warning(s) among them).** The `--format json` output has everything; `--max-chars` "
            "sets the size.\n")


def fit(head: list, blocks: list, max_chars: int, what: str) -> str:
    """`head`, then as many `blocks` [(lines, counts)] as fit in `max_chars` characters, then a line
    counting the blocks left out and their errors and warnings. A head too long by itself is cut
    by lines."""
    out, left = [], max_chars - _CUT_NOTE_CHARS
    for line in head:
        if len(line) + 1 > left:
            out.append("\n**Cut: the summary alone is longer than the size allowed.**\n")
            return "".join(out) + _cut_note(max_chars, blocks, what)
        out.append(line + "\n")
        left -= len(line) + 1
    left += _CUT_NOTE_CHARS
    for i, (block_lines, _) in enumerate(blocks):
        piece = "\n".join(block_lines) + "\n"
        reserve = _CUT_NOTE_CHARS if i + 1 < len(blocks) else 0
        if len(piece) + reserve > left:
            out.append(_cut_note(max_chars, blocks[i:], what))
            break
        out.append(piece)
        left -= len(piece)
    # One final newline: a text ending in a blank line is a `|+` block in YAML (the KRM report).
    return "".join(out).rstrip("\n") + "\n"
