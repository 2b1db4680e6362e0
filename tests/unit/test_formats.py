"""kpt_fn.formats: one module per `validate --format`, chosen by name."""

from __future__ import annotations

import pytest

from kpt_fn import formats
from unit.formats.report import RULES, finding, report


def test_names_are_text_and_every_module():
    assert formats.NAMES == ("text", "json", "sarif", "junit", "github")


@pytest.mark.parametrize("name", sorted(formats.FORMATS))
def test_write_dispatches_to_the_module(name):
    out = formats.write(name, report(finding()), RULES)
    assert out.endswith("\n") and "bad" in out


def test_text_is_not_written_here():
    with pytest.raises(KeyError):
        formats.write("text", report(), RULES)
