"""The outputs of `validate --format`: one module per format, each a pure function of the report
that kpt_fn.findings.collect makes (kubeconform's pkg/output has the same cut: a format is one file
here and one entry in FORMATS).

`text` is the default and is not written here: it is the run's stderr, as every mode writes it
(kpt_fn.results), with `file:line` for each finding from a file. The others go to stdout, so that
`validate --format sarif > results.sarif` keeps the human summary on stderr.
"""

from __future__ import annotations

# format name -> module of this package with `write(report, rules) -> str`
FORMATS = {"json": "json", "sarif": "sarif", "junit": "junit", "github": "github"}
NAMES = ("text", *FORMATS)


def write(name: str, report: dict, rules: list) -> str:
    """`report` (kpt_fn.findings.collect) in format `name`; `rules` is the catalogue (kpt_fn.rules)."""
    import importlib

    module = importlib.import_module(f"{__name__}.{FORMATS[name]}")
    return module.write(report, rules)
