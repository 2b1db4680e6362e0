"""Aligned text tables for a terminal (`rules`, `runtimes`), laid out as `kubectl get` lays them out;
machines read `-o json|yaml`, not this.

kubectl get (k8s.io/cli-runtime v0.36.2):
- the header is each column's name in upper case (pkg/printers/tableprinter.go :189, strings.ToUpper),
  then one row per record, every cell followed by a tab but the last;
- a tabwriter aligns the cells (pkg/printers/tabwriter.go :25-31): a column is as wide as its widest
  cell plus a padding of 3 spaces, and at least 6 (minwidth); the last cell of a row is not padded;
- a cell is cut at its first line break and ends in `...` (tableprinter.go :214-224), so a row stays one
  line; terminal escapes are written as text (pkg/printers/terminal.go :29-31, WriteEscaped);
- a value that is not there is `<none>` (k8s.io/kubectl v0.36.3 pkg/cmd/get/customcolumn.go :252).

Widths count characters, as the tabwriter counts runes. Escaping here is kpt_fn.results.escape, which
writes every control character (not only ESC and CR) as an escape and defuses the GitHub runner's
`##[` command opener, as every other text output of the function does.
"""

from __future__ import annotations

from kpt_fn.results import escape

PADDING = 3
MIN_WIDTH = 6
NONE = "<none>"
_LINE_BREAKS = ("\n", "\r", "\f")


def cell(value) -> str:
    """One cell as shown: `<none>` when empty, cut at its first line break (with `...`), escaped."""
    text = "" if value is None else str(value)
    if not text:
        return NONE
    cut = min((i for i in map(text.find, _LINE_BREAKS) if i >= 0), default=-1)
    return escape(text[:cut]) + "..." if cut >= 0 else escape(text)


def aligned(header: list[str], rows: list[list]) -> str:
    """The table as text, one line each (the header first, in upper case), ending with a line break."""
    cells = [[h.upper() for h in header], *([cell(c) for c in row] for row in rows)]
    widths = [max(MIN_WIDTH, max(len(row[i]) for row in cells) + PADDING) for i in range(len(header) - 1)]
    return "".join("".join(c.ljust(w) for c, w in zip(row, widths)) + row[-1] + "\n" for row in cells)
