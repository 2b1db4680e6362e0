"""Aligned text tables for a terminal (`rules`, `runtimes`): a header row, then one row per record,
each column as wide as its widest cell, two spaces between columns, the last column unpadded; the
layout of `kubectl get` (k8s.io/cli-runtime printers/tableprinter.go pads with a tabwriter the same
way). Machines read `-o json|yaml`, not this."""

from __future__ import annotations


def aligned(header: list[str], rows: list[list[str]]) -> str:
    """The table as text, one line each (header first), ending with a line break."""
    cells = [[str(c).replace("\n", " ") for c in row] for row in [header, *rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = []
    for row in cells:
        padded = [cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])] + row[-1:]
        lines.append("  ".join(padded).rstrip())
    return "\n".join(lines) + "\n"
