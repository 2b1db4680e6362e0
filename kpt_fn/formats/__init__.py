"""Every writer of every command: each a pure function of the data a command built, in a module of
this package (kubeconform's pkg/output has the same cut: a format is one file and one entry here).
The command line only picks one: `formats.write(command, format, data)`.

validate's `text` is the run's stderr, and every mode's stderr is written by it (formats.text: one
line per finding, `path:line:col: severity: message [rule-id]`, after the summary). validate's other
formats go to stdout, so that `validate --format sarif > results.sarif` keeps the human summary on
stderr. The rendered output itself (render, the KRM ResourceList) is the function's output stream,
written by kpt_fn.yamlio.
"""

from __future__ import annotations

# (command, format) -> (module of this package, its function). validate's writers take the findings
# report (kpt_fn.review.findings.collect) and the rule catalogue (kpt_fn.rules): `write(report, rules)`.
WRITERS = {
    ("validate", "text"): ("text", "write"),
    ("validate", "json"): ("json", "write"),
    ("validate", "sarif"): ("sarif", "write"),
    ("validate", "junit"): ("junit", "write"),
    ("validate", "github"): ("github", "write"),
    ("report", "markdown"): ("report", "markdown"),
    ("report", "json"): ("report", "to_json"),
    ("diff", "markdown"): ("diff", "markdown"),
    ("diff", "json"): ("diff", "to_json"),
    ("diff", "text"): ("unified", "text"),
    ("upgrade", "markdown"): ("upgrade", "markdown"),
    ("upgrade", "json"): ("diff", "to_json"),
    ("upgrade", "text"): ("unified", "upgrade"),
    ("rules", "table"): ("rules", "table"),
    ("rules", "yaml"): ("rules", "to_yaml"),
    ("rules", "json"): ("rules", "to_json"),
    ("runtimes", "table"): ("runtimes", "table"),
    ("runtimes", "yaml"): ("runtimes", "to_yaml"),
    ("runtimes", "json"): ("runtimes", "to_json"),
    ("argocd-kueue-patch", "yaml"): ("patch", "to_yaml"),
}

# validate's formats: text (stderr, the default) and those written to stdout.
FORMATS = {fmt: module for (command, fmt), (module, _) in WRITERS.items() if command == "validate"}
NAMES = tuple(FORMATS)


def names(command: str) -> list:
    """The formats of `command` (its `--format` choices, the first its default)."""
    return [fmt for (c, fmt) in WRITERS if c == command]


def write(command: str, fmt: str, data, **options) -> str:
    """`data` of `command` written in format `fmt` (options: what that writer takes besides the data,
    e.g. validate's `rules`, the Markdown comments' `max_chars`)."""
    import importlib  # the writer's module only: `rules` need not import the Markdown writers

    module, function = WRITERS[(command, fmt)]
    return getattr(importlib.import_module(f"{__name__}.{module}"), function)(data, **options)
