"""What the package re-implements of Go's strconv: integers and booleans read from text as Go reads them.

Several readers in the package take text that a Go program upstream (or a Go client) would read with
strconv: Kueue's annotation and label values (kpt_fn/profiles/kueue_*.py), the exponent of
a resource quantity (kpt_fn/quantity.py, as apimachinery's resource.Quantity does), and the
functionConfig values and EXPAND_TRAINJOBS_MAX_* variables that are text (kpt_fn/config.py). They
share one reading here, so a value means the same thing wherever it is written.

ParseInt(s, 10, bits) (Go's strconv/atoi.go; Atoi is ParseInt(s, 10, 0), 64 bits here): an optional
`+` or `-`, then one or more ASCII digits, leading zeros allowed. No surrounding whitespace, no `_`
(Go allows underscores only with base 0), no other digits Unicode knows (Python's int() takes all
three). ParseBool (strconv/atob.go): exactly the twelve spellings of BOOLS.

Only the standard library, and nothing imported: this is a leaf.
"""

from __future__ import annotations

# strconv.ParseBool's spellings, and what each reads as
BOOLS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
         "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}

SYNTAX = "invalid syntax"
RANGE = "value out of range"

_DIGITS = frozenset("0123456789")


def parse_int(text: str, bits: int = 64) -> tuple[int | None, str]:
    """strconv.ParseInt(text, 10, bits): (the value, "") or (None, SYNTAX or RANGE), Go's two errors.

    The digits are measured before they are converted: a text of thousands of digits (or of leading
    zeros) is answered without converting it (Python refuses to convert more than 4,300 digits)."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or not _DIGITS.issuperset(digits):
        return None, SYNTAX
    significant = digits.lstrip("0") or "0"
    limit = 1 << (bits - 1)
    if len(significant) > len(str(limit)):
        return None, RANGE
    value = int(significant)
    if text[:1] == "-":
        value = -value
    if not -limit <= value < limit:
        return None, RANGE
    return value, ""


def parse_bool(text: str) -> bool | None:
    """strconv.ParseBool(text): the boolean, or None where Go returns its syntax error."""
    return BOOLS.get(text) if isinstance(text, str) else None
