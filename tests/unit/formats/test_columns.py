"""kpt_fn.formats.columns: aligned tables with headers."""

from kpt_fn.formats.columns import aligned


def test_columns_are_as_wide_as_their_widest_cell_and_the_last_is_unpadded():
    assert aligned(["A", "BB", "C"], [["xxx", "y", "z z"], ["", "b", ""]]) == "A    BB  C\nxxx  y   z z\n     b\n"


def test_a_line_break_in_a_cell_cannot_break_the_table():
    assert aligned(["A", "B"], [["x\ny", "z"]]) == "A    B\nx y  z\n"
