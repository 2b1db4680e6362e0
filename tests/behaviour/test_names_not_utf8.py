"""A file name that is not UTF-8 is named once escaped (`bad-\\xff`, as git and the reader write it) in
every output: stderr, each `validate --format`, the report, check-generated, the KRM results; never
with a doubled backslash (repr's `\\\\xff`) nor as the surrogate Python reads it with (`\\udcff`), and a
newline in the name never splits a line (issue 33 point 6)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml

from support import tiny_app

EXE = [sys.executable, "-m", "kpt_fn"]
ONCE = "bad-\\xff\\nx.yaml"  # how the name b"bad-\xff\nx.yaml" reads in a message, once escaped
DOUBLED = "\\\\x"


def _app(tmp_path: Path) -> Path:
    app = tmp_path / "app"
    (app / "runtimes").mkdir(parents=True)
    (app / "runtime.yaml").write_text(tiny_app.RUNTIME)
    (app / "trainjob.yaml").write_text(tiny_app.trainjob())
    with open(os.fsencode(app) + b"/bad-\xff\nx.yaml", "w") as f:
        f.write("a: 1\n")
    with open(os.fsencode(app) + b"/runtimes/bad-\xff\nx.yaml", "w") as f:
        f.write("a: 1\n")
    return app


def _run(cwd: Path, *args, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "EXPAND_TRAINJOBS_"))}
    env["PYTHONPATH"] = str(Path(__file__).parents[2])
    return subprocess.run([*EXE, *args], cwd=cwd, env=env, capture_output=True, text=True, input=stdin,
                          errors="strict", timeout=300)


# A finding's line (kpt_fn.formats.text): its place (a path, escaped, with no `:` of its own), then the severity.
FINDING = re.compile(r"^[^:\s]+(:\d+:\d+)?: (error|warning|info): ")


def _stderr_lines_are_ours(stderr: str) -> None:
    for line in stderr.splitlines():
        # no line begins inside a name: the summary, a note, or a finding that starts with its place
        assert line.startswith(("expand-trainjobs:", "  ")) or FINDING.match(line), line
    assert DOUBLED not in stderr and "\\udc" not in stderr


def test_stderr_and_every_validate_format(tmp_path):
    app = _app(tmp_path)
    text = _run(app, "validate")
    assert text.returncode == 1 and f"error: {ONCE}: file name is not UTF-8; not read: rename the file" in text.stderr
    _stderr_lines_are_ours(text.stderr)
    messages = [f["message"] for f in json.loads(_run(app, "validate", "--format", "json").stdout)["findings"]]
    assert f"{ONCE[:8]}\nx.yaml: file name is not UTF-8; not read: rename the file" in messages  # JSON: the text as it is
    sarif = json.loads(_run(app, "validate", "--format", "sarif").stdout)
    texts = [r["message"]["text"] for r in sarif["runs"][0]["results"]]
    assert any(t.startswith(ONCE) for t in texts) and not any(DOUBLED in t for t in texts)  # controls escaped too
    junit = ET.fromstring(_run(app, "validate", "--format", "junit").stdout)
    assert any(ONCE in (f.get("message") or "") for f in junit.iter("failure"))
    github = _run(app, "validate", "--format", "github").stdout
    assert f"::error title=input/unreadable::bad-\\xff%0Ax.yaml: file name is not UTF-8" in github and DOUBLED not in github
    report = _run(app, "report").stdout
    assert "bad\\-\\\\xff\\\\nx.yaml" in report or "bad-\\\\xff\\\\nx.yaml" in report  # Markdown's `\\` is one `\`


def test_a_runtime_directory_read_by_the_krm_function(tmp_path):
    app = _app(tmp_path)
    resource_list = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [],
                     "functionConfig": {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs",
                                        "spec": {"runtimeDirs": ["runtimes"]}}}
    done = _run(app, stdin=yaml.safe_dump(resource_list))
    messages = [r["message"] for r in yaml.safe_load(done.stdout)["results"]]
    assert f"runtimeDirs: runtimes/{ONCE}: file name is not UTF-8; not read: rename the file" in messages, messages
    _stderr_lines_are_ours(done.stderr)


def test_a_path_given_on_the_command_line(tmp_path):
    name = os.fsdecode(b"nope-\xff")
    for args in (("validate", name), ("check-generated", name)):
        done = subprocess.run([*EXE, *args], cwd=tmp_path, capture_output=True,
                              env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])})
        err = done.stderr.decode("utf-8")
        assert done.returncode == 1 and "nope-\\xff" in err, err
        _stderr_lines_are_ours(err)
    json_out = subprocess.run([*EXE, "validate", "--format", "json", name], cwd=tmp_path, capture_output=True,
                              env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}).stdout
    assert json.loads(json_out)["findings"][0]["message"] == "nope-\\xff: no such file or directory"
