"""`--format github`: GitHub Actions workflow commands, one annotation per finding.

`::error file=F,line=L,col=C,title=T::message` (warnings `::warning`, info `::notice`), escaped as the
Actions toolkit escapes them (actions/toolkit packages/core/src/command.ts) and as the runner
unescapes them (actions/runner src/Runner.Common/ActionCommand.cs, `_escapeDataMappings` and
`_escapePropertyMappings`, lines 18-32): in the message `%`, CR and LF; in a property also `:` and
`,`. A newline in a name can therefore not start a second command, and a `::` in a file name cannot
end the properties early. Each annotation line is a `::` command, which the runner reads first
(TryParseV2), so text in its message is never read as a command of its own; the summary line is no
command, so the runner would read the legacy `##[name]` form anywhere in it (TryParse): it is written
with each `##[` written as kpt_fn.results.escape writes it. tests/behaviour/test_ci_output_inert.py runs every
line through an emulation of the runner's parser (tests/support/actions_runner.py).
"""

from __future__ import annotations

from kpt_fn.results import LEGACY_COMMAND, LEGACY_COMMAND_ESCAPED
from kpt_fn.formats.text import headline

_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    # a file name that is not UTF-8 was read with surrogateescape: its bytes are written as \\xNN
    text = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
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
                props.append(f"col={f['column']}")
        if f["rule"]:
            props.append(f"title={_property(f['rule'])}")
        head = _COMMAND.get(f["severity"], "notice") + (" " + ",".join(props) if props else "")
        out.append(f"::{head}::{_data(headline(f))}")
    out.append(_data(report["summary"]).replace(LEGACY_COMMAND, LEGACY_COMMAND_ESCAPED))
    return "\n".join(out) + "\n"
