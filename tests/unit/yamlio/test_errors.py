"""kpt_fn.yamlio.errors: the one error of every yamlio stage."""

from __future__ import annotations

from kpt_fn.yamlio.errors import YAMLInputError


def test_a_value_error_with_its_line_and_limit():
    e = YAMLInputError("too deep", line=7, limit="max_depth")
    assert isinstance(e, ValueError)
    assert (str(e), e.line, e.limit, e.args) == ("line 7: too deep", 7, "max_depth", ("too deep",))


def test_without_a_line_the_message_alone():
    e = YAMLInputError("not UTF-8")
    assert (str(e), e.line, e.limit) == ("not UTF-8", None, None)
    assert str(YAMLInputError("x", line=0)) == "x"  # 1-based: 0 is no line
