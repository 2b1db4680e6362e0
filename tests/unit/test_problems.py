"""kpt_fn.problems: the one shape of "what is wrong"."""

from __future__ import annotations


def test_problem_replace_keeps_the_other_fields_and_equality_ignores_subject():
    import pytest

    from kpt_fn.problems import WARNING, Problem

    p = Problem("m", "spec.x", severity=WARNING, rule="r")
    q = p.replace(subject={"kind": "X"})
    assert (q.message, q.path, q.severity, q.rule, q.subject) == ("m", "spec.x", WARNING, "r", {"kind": "X"})
    assert q == p and hash(q) == hash(p) and p.subject is None
    with pytest.raises(AttributeError):
        p.path = "y"
    with pytest.raises(TypeError):
        p.replace(bogus=1)
