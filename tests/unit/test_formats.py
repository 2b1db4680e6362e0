"""kpt_fn.formats: every writer of every command, chosen by (command, format); and the proof that the
command line writes no data itself: every command's output goes through formats.write."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from kpt_fn import formats
from unit.formats.report import RULES, finding, report

ROOT = Path(__file__).resolve().parents[2]

# Every command and format the command line offers, and the writer it must reach.
TABLE = {
    ("validate", "text"): "kpt_fn.formats.text.write",
    ("validate", "json"): "kpt_fn.formats.json.write",
    ("validate", "sarif"): "kpt_fn.formats.sarif.write",
    ("validate", "junit"): "kpt_fn.formats.junit.write",
    ("validate", "github"): "kpt_fn.formats.github.write",
    ("report", "markdown"): "kpt_fn.formats.report.markdown",
    ("report", "json"): "kpt_fn.formats.report.to_json",
    ("diff", "markdown"): "kpt_fn.formats.diff.markdown",
    ("diff", "json"): "kpt_fn.formats.diff.to_json",
    ("diff", "text"): "kpt_fn.formats.unified.text",
    ("upgrade", "markdown"): "kpt_fn.formats.upgrade.markdown",
    ("upgrade", "json"): "kpt_fn.formats.diff.to_json",
    ("upgrade", "text"): "kpt_fn.formats.unified.upgrade",
    ("rules", "table"): "kpt_fn.formats.rules.table",
    ("rules", "yaml"): "kpt_fn.formats.rules.to_yaml",
    ("rules", "json"): "kpt_fn.formats.rules.to_json",
    ("runtimes", "table"): "kpt_fn.formats.runtimes.table",
    ("runtimes", "yaml"): "kpt_fn.formats.runtimes.to_yaml",
    ("runtimes", "json"): "kpt_fn.formats.runtimes.to_json",
    ("argocd-kueue-patch", "yaml"): "kpt_fn.formats.patch.to_yaml",
}


def test_names_are_text_and_every_module():
    assert formats.NAMES == ("text", "json", "sarif", "junit", "github")
    assert formats.names("rules") == ["table", "yaml", "json"] and formats.names("diff") == ["markdown", "json", "text"]


@pytest.mark.parametrize("key", sorted(TABLE))
def test_each_command_and_format_has_its_writer(key):
    module, function = formats.WRITERS[key]
    writer = getattr(importlib.import_module(f"kpt_fn.formats.{module}"), function)
    assert f"{writer.__module__}.{writer.__name__}" == TABLE[key]


def test_the_table_is_complete():
    assert set(formats.WRITERS) == set(TABLE)


@pytest.mark.parametrize("name", sorted(formats.FORMATS))
def test_write_dispatches_to_the_module(name):
    out = formats.write("validate", name, report(finding()), rules=RULES)
    assert out.endswith("\n") and "bad" in out


def test_text_is_the_summary_and_a_line_per_finding():
    assert formats.write("validate", "text", report(finding()), rules=RULES).splitlines() == [
        "expand-trainjobs: FAILED: 1 error(s)", "app/job.yaml:3:5: error: TrainJob ns/a: spec: bad [k8s/x]"]


# What the command line may still write itself, and why: the rendered output stream (yamlio's job:
# render's objects and the KRM ResourceList are the function's output, not a command's report) and the
# fallback that must work when the package is broken.
_ALLOWED = {
    ("kpt_fn/cli/krm.py", "dump"), ("kpt_fn/cli/krm.py", "dump_pieces"),
    ("kpt_fn/cli/plain.py", "dump_all"),
    ("kpt_fn/cli/modes.py", "dump"), ("kpt_fn/cli/modes.py", "json.dumps"),  # _failed_krm's fallback
}
_WRITING = {"dump", "dump_all", "dump_pieces", "json.dumps", "json.dump", "yaml.dump", "yaml.safe_dump", "print"}


def _calls(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name):
                yield f.id, node.lineno
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
                yield f"{f.value.id}.{f.attr}", node.lineno


def test_the_command_line_writes_no_data_itself():
    """cli/ picks a writer (formats.write) and writes its text: it never serialises data itself."""
    found = []
    for path in sorted((ROOT / "kpt_fn" / "cli").glob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for name, line in _calls(path):
            if name in _WRITING and (rel, name) not in _ALLOWED and not (name == "print" and rel == "kpt_fn/cli/__init__.py"):
                found.append(f"{rel}:{line}: {name}")
    assert found == []


def test_every_command_with_a_format_calls_formats_write():
    modes = (ROOT / "kpt_fn" / "cli" / "modes.py").read_text() + (ROOT / "kpt_fn" / "cli" / "plain.py").read_text()
    for command in {c for c, _ in formats.WRITERS}:
        assert f'formats.write("{command}"' in modes, command
