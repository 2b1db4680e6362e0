"""Every limit on input is documented once, in docs/limits.md's "Limits on input" table, and each figure
there is the code's: the constant its `code` column names, its maximum (config.LIMIT_MAXIMA), the
functionConfig option and the environment variable that set it (config.LIMIT_OPTIONS,
cli.krm.LIMIT_SETTINGS). The other docs link to the table instead of repeating its figures."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kpt_fn import config, gitrev, sources, yamlio
from kpt_fn.cli import krm

ROOT = Path(__file__).resolve().parents[2]
UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def table() -> list[dict]:
    text = (ROOT / "docs" / "limits.md").read_text()
    section = text.split("## Limits on input", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(header, (c.strip() for c in line.strip("|").split("|")))) for line in lines[2:]]


def figure(text: str) -> int | None:
    """`64 MiB` -> 67108864, `1,000,000` -> 1000000, `1000 (libyaml's own limit)` -> 1000, `-` -> None."""
    if text == "-":
        return None
    found = re.match(r"([\d,]+)(?:\s+(KiB|MiB|GiB))?", text)
    assert found, text
    return int(found[1].replace(",", "")) * UNITS.get(found[2], 1)


def constant(code: str):
    """The value the `code` column names, and the Limits field it is (or None)."""
    code = code.strip("`")
    owner, _, name = code.partition(".")
    if owner == "Limits":
        return getattr(yamlio.DEFAULT_LIMITS, name), name
    return getattr({"sources": sources, "yamlio": yamlio, "gitrev": gitrev}[owner], name), None


ROWS = table()


@pytest.mark.parametrize("row", ROWS, ids=[r["what"] for r in ROWS])
def test_each_figure_is_the_codes(row):
    value, field = constant(row["code"])
    assert figure(row["default"]) == value
    if field is None:
        assert (row["at most"], row["set with"]) == ("-", "-")
        return
    assert figure(row["at most"]) == config.LIMIT_MAXIMA.get(field)
    named = set(re.findall(r"`([A-Za-z_]+)`", row["set with"]))
    assert named <= {krm.LIMIT_SETTINGS[field], config.LIMIT_OPTIONS.get(field)}, named


def test_every_limit_has_a_row_and_every_way_to_set_one_is_named():
    codes = {r["code"].strip("`") for r in ROWS}
    assert {f"Limits.{f}" for f in yamlio.Limits.__slots__} <= codes
    assert {f"sources.{n}" for n in ("MAX_DOCUMENTS", "MAX_ENTRIES", "MAX_DIR_DEPTH")} <= codes
    assert "yamlio.MAX_INT_DIGITS" in codes
    named = " ".join(r["set with"] for r in ROWS)
    assert all(f"`{v}`" in named for v in krm.LIMIT_SETTINGS.values())
    assert all(f"`{o}`" in named for o in config.LIMIT_OPTIONS.values())


def test_the_other_docs_link_to_the_table_instead_of_repeating_it():
    # The figures of the table written beside a limit's name elsewhere would be a second home to keep.
    for doc in ("yaml.md", "sources.md", "options.md", "review.md"):
        text = (ROOT / "docs" / doc).read_text()
        assert "docs/limits.md" in text, doc
        for figure_text in ("64 MiB", "16 MiB", "10,000", "100,000", "200,000", "1,000,000"):
            assert figure_text not in text, (doc, figure_text)
