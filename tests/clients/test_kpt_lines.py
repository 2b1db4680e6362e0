"""kpt 1.0 exec (`fn render --allow-exec`, `fn eval --exec`): a finding on stderr carries its file's
line (`path:line:col`) when the function can read that file where kpt runs it, and no line otherwise.

kpt runs an exec function in the caller's working directory, not the package's: `kpt fn render DIR`
from elsewhere hands the function that directory, while the items' path annotations stay relative to
the package (kpt 1.0.0-beta.56, by experiment: test_exec_runs_in_the_callers_directory). kpt's own
serialisation of an item does not keep the file's layout (it drops a document's head comment and
blank lines, and adds its annotations inside metadata), so a line is never taken from it
(test_kpt_serialisation_does_not_keep_lines). How a line is found: kpt_fn.lines.locate_items."""

from __future__ import annotations

import re

import pytest

from clients import kit
from kpt_fn import yamlio

pytestmark = pytest.mark.clients

KPTFILE = """apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: lines
  annotations:
    config.kubernetes.io/local-config: "true"
"""

# The TrainJob is the first document after a comment and blank lines; its bad field is on line 15,
# column 5; the second document is a ConfigMap (a multi-document file).
TRAINJOBS = """# A comment, then a blank line: kpt's serialisation drops both.

apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: deep
  namespace: team-a
  annotations: {config.kubernetes.io/local-config: "true"}

spec:
  runtimeRef:
    name: torch-distributed
  trainer:

    numNodes: -1
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: other
  namespace: team-a
"""
FIELD_LINE = 15  # `    numNodes: -1`

# The bad TrainJob second in its file (index 1): its `spec` (the field named) is on line 13.
SECOND = """apiVersion: v1
kind: ConfigMap
metadata:
  name: first
  namespace: team-a
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: broken
  namespace: team-a
  annotations: {config.kubernetes.io/local-config: "true"}
spec:
  runtimeRef:
    name: no-such-runtime
"""


def _package(where, trainjobs=TRAINJOBS, pipeline=None):
    where.mkdir(parents=True)
    kptfile = KPTFILE + (f"pipeline:\n  mutators:\n    - exec: {pipeline}\n" if pipeline else "")
    (where / "Kptfile").write_text(kptfile)
    (where / "trainjobs.yaml").write_text(trainjobs)
    return where


def _findings(stderr: str) -> list:
    """The function's stderr lines as kpt quotes them (`  "..."`), the summary left out."""
    quoted = [ln.strip() for ln in stderr.split("Stderr:", 1)[1].splitlines()] if "Stderr:" in stderr else []
    return [q[1:-1] for q in quoted if q.startswith('"') and not q.startswith('"expand-trainjobs:') and q != '""']


def _assert_field_line(findings: list, text: str) -> None:
    assert findings, "no finding on stderr"
    for f in findings:
        assert f.startswith(f"trainjobs.yaml:{FIELD_LINE}:5: error: TrainJob team-a/deep: spec.trainer.numNodes"), f
    assert text.splitlines()[FIELD_LINE - 1].strip() == "numNodes: -1"


def test_render_from_the_package_names_the_fields_line(kpt, fn, env, tmp_path):
    pkg = _package(tmp_path / "pkg", pipeline=fn)
    r = kit.run([kpt, "fn", "render", ".", "--allow-exec"], cwd=pkg, env=env).failed()
    _assert_field_line(_findings(r.stderr), TRAINJOBS)


def test_eval_from_the_package_names_the_fields_line(kpt, fn, env, tmp_path):
    pkg = _package(tmp_path / "pkg")
    r = kit.run([kpt, "fn", "eval", ".", "--exec", fn], cwd=pkg, env=env).failed()
    _assert_field_line(_findings(r.stderr), TRAINJOBS)


def test_a_later_document_of_a_multi_document_file_names_its_own_line(kpt, fn, env, tmp_path):
    pkg = _package(tmp_path / "pkg", trainjobs=SECOND)
    r = kit.run([kpt, "fn", "eval", ".", "--exec", fn], cwd=pkg, env=env).failed()
    (finding,) = _findings(r.stderr)
    assert finding.startswith("trainjobs.yaml:13:1: error: TrainJob team-a/broken: spec.RuntimeRef"), finding
    assert SECOND.splitlines()[12] == "spec:"


@pytest.mark.parametrize("how", ["render", "eval"])
def test_from_another_directory_there_is_no_line(kpt, fn, env, tmp_path, how):
    """Control: the file is not where the function runs, so no line (never one of another file)."""
    pkg = _package(tmp_path / "pkg", pipeline=fn if how == "render" else None)
    argv = [kpt, "fn", "render", "pkg", "--allow-exec"] if how == "render" else [kpt, "fn", "eval", "pkg", "--exec", fn]
    r = kit.run(argv, cwd=tmp_path, env=env).failed()
    findings = _findings(r.stderr)
    assert findings and all(f.startswith("trainjobs.yaml: error: TrainJob team-a/deep:") for f in findings), r.stderr


def test_a_same_named_file_of_other_objects_lends_no_line(kpt, fn, env, tmp_path):
    """Control: the working directory has a `trainjobs.yaml` too, but not that object at that index."""
    pkg = _package(tmp_path / "pkg")
    (tmp_path / "trainjobs.yaml").write_text(TRAINJOBS.replace("name: deep", "name: someone-else"))
    r = kit.run([kpt, "fn", "eval", "pkg", "--exec", fn], cwd=tmp_path, env=env).failed()
    findings = _findings(r.stderr)
    assert findings and all(f.startswith("trainjobs.yaml: error:") for f in findings), r.stderr


def test_an_unreadable_file_gives_no_line(kpt, fn, env, tmp_path):
    """Control: the name the item carries is a link out of the working directory: not read."""
    pkg = _package(tmp_path / "pkg")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "trainjobs.yaml").write_text(TRAINJOBS)
    work = tmp_path / "work"
    work.mkdir()
    (work / "trainjobs.yaml").symlink_to(outside / "trainjobs.yaml")
    r = kit.run([kpt, "fn", "eval", pkg, "--exec", fn], cwd=work, env=env).failed()
    findings = _findings(r.stderr)
    assert findings and all(f.startswith("trainjobs.yaml: error:") for f in findings), r.stderr


def test_exec_runs_in_the_callers_directory(kpt, env, tmp_path):
    """The experiment behind the rule: kpt's exec function runs where kpt was started."""
    pkg = _package(tmp_path / "pkg", pipeline="pwd")
    r = kit.run([kpt, "fn", "render", "pkg", "--allow-exec"], cwd=tmp_path, env=env)
    assert str(tmp_path) in r.stdout + r.stderr, r.stderr
    assert str(pkg) not in (r.stdout + r.stderr).replace(str(pkg) + "/", ""), r.stderr


def test_kpt_serialisation_does_not_keep_lines(kpt, env, tmp_path):
    """Why an item's own text gives no line, even for a file's first document: kpt drops the head
    comment and blank lines and adds its annotations inside metadata."""
    pkg = _package(tmp_path / "pkg")
    text = kit.run([kpt, "fn", "source", pkg], cwd=tmp_path, env=env).ok().stdout
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln == "- apiVersion: trainer.kubeflow.org/v1alpha1")
    at = next(i for i, ln in enumerate(lines) if re.fullmatch(r"\s*numNodes: -1", ln))
    assert at - start + 1 != FIELD_LINE
    assert "A comment" not in text
    assert yamlio.load_all(text)  # the serialisation itself is fine YAML
