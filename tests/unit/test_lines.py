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
    items = {("jobs.yaml", 1): ("v1", "ConfigMap", "b"), ("jobs.yaml", 0): ("v1", "ConfigMap", "not-a")}
    found = Result("bad", resource={"kind": "ConfigMap", "name": "b"}, field="data.k", file="jobs.yaml", index=1)
    other = Result("bad", resource={"kind": "ConfigMap", "name": "a"}, field="data.k", file="jobs.yaml", index=0)
    lines.locate_items([found, other], str(tmp_path), items)
    assert (found.lineno, found.column) == (13, 3)
    assert (other.lineno, other.column) == (0, 0)  # another object at that index: no line rather than a wrong one
