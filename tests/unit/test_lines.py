"""kpt_fn.lines: the line of a field path in the document a result names."""

from __future__ import annotations

import pytest

from kpt_fn import lines
from kpt_fn.results import Result

TEXT = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: a
  labels:
    app/x: "1"
---
---
kind: TrainJob
spec:
  trainer:
    env:
    - name: A
      value: "1"
    - name: B
"""


@pytest.mark.parametrize("path, expected", [
    ("", []),
    ("spec", ["spec"]),
    ("spec.trainer.env[2].name", ["spec", "trainer", "env", 2, "name"]),
    ("metadata.labels[app/x]", ["metadata", "labels", "app/x"]),
    ("metadata.annotations[a.b/c]", ["metadata", "annotations", "a.b/c"]),  # a bracketed key keeps its dots
    ("items[0]", ["items", 0]),
])
def test_segments(path, expected):
    assert lines.segments(path) == expected


@pytest.mark.parametrize("index, path, line", [
    (0, "", 1),                         # the document itself
    (0, "metadata.name", 4),
    (0, "metadata.labels[app/x]", 6),
    (1, "kind", 9),                     # the empty document between does not count
    (1, "spec.trainer.env[1].name", 15),
    (1, "spec.trainer.env[1]", 15),
    (1, "spec.trainer.env[7].name", 12),  # no such item: the longest prefix that exists (env)
    (1, "spec.replicatedJobs[0].template", 10),  # a generated object's path: as far as it goes (spec)
    (1, "nothing.here", 9),             # nothing of it: the document's first line
])
def test_line_in(index, path, line):
    assert lines.line_in(TEXT, index, path) == line


@pytest.mark.parametrize("text, index", [(TEXT, 2), (TEXT, -1), ("a: [", 0), ("", 0)])
def test_no_such_document_has_no_line(text, index):
    assert lines.line_in(text, index, "spec") is None


def test_locate_sets_lines_of_results_that_name_a_file_and_composes_each_file_once(tmp_path):
    (tmp_path / "app.yaml").write_text(TEXT)
    named = Result("m", file="app.yaml", index=1, field="spec.trainer")
    unnamed = Result("m")
    missing = Result("m", file="gone.yaml", field="spec")
    documents = lines.locate([named, unnamed, missing], str(tmp_path))
    assert (named.lineno, unnamed.lineno, missing.lineno) == (11, 0, 0)
    assert set(documents) == {"app.yaml", "gone.yaml"} and documents["gone.yaml"] == []
    (tmp_path / "app.yaml").write_text("changed: 1\n")
    assert lines.composed(documents, str(tmp_path), "app.yaml") is documents["app.yaml"]  # not read again


def test_a_file_the_loader_refuses_is_not_composed_again(tmp_path):
    # An alias bomb: the run's own loader refuses it, so no line is looked up in it.
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi"))
    (tmp_path / "bomb.yaml").write_text(bomb)
    assert lines.composed({}, str(tmp_path), "bomb.yaml") == []


def test_an_item_kpt_handed_over_gets_its_line_only_from_its_own_document(tmp_path):
    from kpt_fn.results import Result

    (tmp_path / "jobs.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n"
                                         "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  k: v\n")
    items = {("jobs.yaml", 1): ("v1", "ConfigMap", None, "b"), ("jobs.yaml", 0): ("v1", "ConfigMap", None, "not-a")}
    found = Result("bad", resource={"kind": "ConfigMap", "name": "b"}, field="data.k", file="jobs.yaml", index=1)
    other = Result("bad", resource={"kind": "ConfigMap", "name": "a"}, field="data.k", file="jobs.yaml", index=0)
    lines.locate_items([found, other], str(tmp_path), items)
    assert (found.lineno, found.column) == (13, 3)
    assert (other.lineno, other.column) == (0, 0)  # another object at that index: no line rather than a wrong one
# --- KRM mode: the item's file read where the function runs ----------------------------------------

KRM_TEXT = """kind: ConfigMap
metadata:
  name: first
---
kind: TrainJob
metadata:
  name: tj
  namespace: team-a
spec:
  trainer:
    numNodes: -1
"""


def test_locate_items_needs_the_same_namespace_too(tmp_path):
    (tmp_path / "a.yaml").write_text(KRM_TEXT)
    same = Result("m", file="a.yaml", index=1, field="spec.trainer.numNodes")
    other = Result("m", file="a.yaml", index=1, field="spec")
    unknown = Result("m", file="b.yaml", index=0, field="spec")
    ids = {("a.yaml", 1): (None, "TrainJob", "team-a", "tj"), ("b.yaml", 0): (None, "TrainJob", None, "x")}
    lines.locate_items([same, unknown], str(tmp_path), ids)
    assert (same.lineno, same.column, unknown.lineno) == (11, 5, 0)
    # Controls: another object at that index, an index past the file's end: no line, never a wrong one.
    lines.locate_items([other], str(tmp_path), {("a.yaml", 1): (None, "TrainJob", "team-b", "tj")})
    beyond = Result("m", file="a.yaml", index=5)
    lines.locate_items([beyond], str(tmp_path), {("a.yaml", 5): (None, "TrainJob", "team-a", "tj")})
    assert (other.lineno, beyond.lineno) == (0, 0)


@pytest.mark.parametrize("name", ["../a.yaml", "/etc/hostname", "sub/../../a.yaml", "link.yaml", "dir", ""])
def test_confined_refuses_what_plain_mode_would_not_read(tmp_path, name):
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "a.yaml").write_text(KRM_TEXT)
    (root / "link.yaml").symlink_to(tmp_path / "a.yaml")
    (root / "dir").mkdir()
    assert not lines.confined(str(root), name)


def test_confined_admits_a_file_below_the_root(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.yaml").write_text(KRM_TEXT)
    assert lines.confined(str(tmp_path), "sub/a.yaml") and lines.confined(str(tmp_path), "./sub/a.yaml")
