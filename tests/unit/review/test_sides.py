"""kpt_fn.review.sides: OLD and NEW of a diff, a directory or a git revision (the revision side is
tested through the command in tests/unit/review/test_report.py and tests/behaviour/test_diff_reads_*, test_review_hostile_repositories.py)."""

from __future__ import annotations

import os

import pytest

from kpt_fn.review import sides


def test_a_directory_is_read_as_it_is(tmp_path):
    (tmp_path / "app").mkdir()
    assert sides.materialize("app", str(tmp_path), str(tmp_path), {}) == (str(tmp_path / "app"), {}, [], None)


def test_neither_a_directory_nor_a_revision_is_an_error(tmp_path):
    with pytest.raises(sides.SourceError, match="neither a directory nor a git revision"):
        sides.materialize("nowhere", str(tmp_path), str(tmp_path), {"GIT_CEILING_DIRECTORIES": str(tmp_path.parent)})


def test_roots_outside_the_repository(tmp_path):
    top = str(tmp_path / "repo")
    assert sides._outside([top + "/platform", str(tmp_path / "elsewhere"), top], top) == [str(tmp_path / "elsewhere")]


def test_under_joins_a_repository_prefix():
    assert sides._under("/base", "") == "/base"
    assert sides._under("/base", "a/b") == os.path.join("/base", "a", "b")
