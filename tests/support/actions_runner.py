"""The GitHub Actions runner's reading of a step's output, emulated: which workflow commands a text
written to stdout or stderr would run.

actions/runner (src/Runner.Common/ActionCommand.cs and src/Runner.Worker/ActionCommandManager.cs at
the stored snapshot, commit 258d6c857):
- the process's stdout and stderr are read line by line (src/Runner.Sdk/ProcessInvoker.cs
  StartReadStream, .NET StreamReader.ReadLine: a line ends at LF, CR or CR LF) and each line goes to ActionCommandManager.TryProcessCommand;
- TryProcessCommand tries TryParseV2 first (ActionCommand.cs lines 51-119: after TrimStart the line
  starts with `::`, the command info runs to the next `::`, its name up to the first space must be a
  registered command, properties are split on `,` and then on the first `=`, both unescaped), then the
  legacy TryParse (lines 121-189: `##[` ANYWHERE in the line, info up to the next `]`, properties split
  on `;`);
- while commands are stopped (`stop-commands` with a token, ActionCommandManager.cs lines 85-124) a
  line runs nothing unless its command is the token, which resumes processing.

This is a re-implementation for tests (never the runner's code); tests/behaviour/test_ci_output_inert.py checks it
against the runner's own LoggingCommandL0 cases (src/Test/L0/Worker/ActionCommandL0.cs).
"""

from __future__ import annotations

import re

# the runner's registered command extensions (ActionCommandManager and its extensions)
# (ActionCommandManager.cs: stop-commands and every extension's Command but internal-set-repo-path),
# compared ignoring case (its HashSet uses StringComparer.OrdinalIgnoreCase)
COMMANDS = frozenset({"add-mask", "add-matcher", "remove-matcher", "add-path", "set-env", "set-output", "save-state",
                      "debug", "warning", "error", "notice", "group", "endgroup", "echo", "stop-commands"})

_ESCAPE = (("%3B", ";"), ("%0D", "\r"), ("%0A", "\n"), ("%5D", "]"), ("%25", "%"))          # legacy
_ESCAPE_DATA = (("%0D", "\r"), ("%0A", "\n"), ("%25", "%"))
_ESCAPE_PROPERTY = (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%"))


def _unescape(text: str, mappings) -> str:
    for replacement, token in mappings:
        text = text.replace(replacement, token)
    return text


def lines(text: str) -> list[str]:
    """StreamReader.ReadLine's lines: split at CR LF, CR or LF (nothing else)."""
    return re.split(r"\r\n|\r|\n", text.removesuffix("\r\n").removesuffix("\n").removesuffix("\r")) if text else []


def _command(info: str, commands, split, mappings) -> tuple | None:
    """(name, properties) of a command's info (`name k1=v1,k2=v2`), or None for an unregistered name:
    properties are split by `split`, then on the first `=`; empty parts are dropped (the runner's
    StringSplitOptions.RemoveEmptyEntries); keys compare ignoring case."""
    space = info.find(" ")
    name = info if space < 0 else info[:space]
    if name.lower() not in {c.lower() for c in commands}:
        return None
    props = {}
    if space > 0:
        for prop in (p for p in split(info[space + 1:]) if p):
            pair = [x for x in prop.split("=", 1) if x]
            if len(pair) == 2:
                props[pair[0].lower()] = _unescape(pair[1], mappings)
    return name, props


def parse_v2(line: str, commands) -> tuple | None:
    """TryParseV2: (command, properties, data) or None."""
    message = line.lstrip()  # .NET TrimStart: Unicode white space
    if not message.startswith("::"):
        return None
    end = message.find("::", 2)
    if end < 0:
        return None
    parsed = _command(message[2:end], commands, lambda text: text.strip().split(","), _ESCAPE_PROPERTY)
    return parsed and (*parsed, _unescape(message[end + 2:], _ESCAPE_DATA))


def parse_legacy(line: str, commands) -> tuple | None:
    """TryParse: `##[` anywhere in the line."""
    start = line.find("##[")
    if start < 0:
        return None
    close = line.find("]", start)
    if close < 0:
        return None
    parsed = _command(line[start + 3:close], commands, lambda text: text.split(";"), _ESCAPE)
    return parsed and (*parsed, _unescape(line[close + 1:], _ESCAPE))


def commands_run(text: str) -> list[tuple]:
    """The workflow commands the runner runs for `text` (one output stream), in order, as
    (command, properties, data); a stop-commands pause is followed as the runner follows it."""
    registered = set(COMMANDS)
    stopped_by = None
    out = []
    for line in lines(text):
        parsed = parse_v2(line, registered) or parse_legacy(line, registered)
        if parsed is None:
            continue
        name = parsed[0]
        if stopped_by is not None:
            if name.lower() == stopped_by.lower():
                registered.discard(stopped_by)
                stopped_by = None
                out.append(parsed)
            continue
        if name.lower() == "stop-commands":
            stopped_by = parsed[2]
            registered.add(stopped_by)
        out.append(parsed)
    return out
