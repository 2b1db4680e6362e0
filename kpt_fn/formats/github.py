"""`--format github`: GitHub Actions workflow commands, one annotation per finding.

`::error file=F,line=L,title=T::message` (warnings `::warning`, info `::notice`), escaped as the
Actions toolkit escapes them (actions/toolkit packages/core/src/command.ts): in the message `%`, CR
and LF; in a property also `:` and `,`. A newline in a name can therefore not start a second command.
"""

from __future__ import annotations

from kpt_fn.findings import headline

_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def write(report: dict, rules: list) -> str:
    out = []
    for f in report["findings"]:
        props = []
        if f["file"]:
            props.append(f"file={_property(f['file'])}")
            if f["line"]:
                props.append(f"line={f['line']}")
        if f["rule"]:
            props.append(f"title={_property(f['rule'])}")
        head = _COMMAND.get(f["severity"], "notice") + (" " + ",".join(props) if props else "")
        out.append(f"::{head}::{_data(headline(f))}")
    out.append(_data(report["summary"]))
    return "\n".join(out) + "\n"
