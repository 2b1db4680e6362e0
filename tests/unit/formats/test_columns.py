"""kpt_fn.formats.columns: aligned tables with headers, as kubectl get lays them out."""

from kpt_fn.formats.columns import aligned, cell


def test_a_column_is_its_widest_cell_plus_three_spaces_and_the_last_is_unpadded():
    # cli-runtime's tabwriter: padding 3; the header in upper case
    assert aligned(["name", "status", "c"], [["abcdefgh", "Running", "z z"]]) == (
        "NAME       STATUS    C\n"
        "abcdefgh   Running   z z\n")


def test_a_narrow_column_is_six_wide():
    # minwidth 6: a column of one-character cells still takes six.
    assert aligned(["A", "B"], [["x", "y"]]) == "A     B\nx     y\n"


def test_an_empty_cell_is_none_so_no_column_looks_shifted():
    assert aligned(["A", "B", "C"], [["", "", ""]]) == ("A        B        C\n"
                                                         "<none>   <none>   <none>\n")


def test_a_line_break_in_a_cell_cuts_it_as_kubectl_does():
    # tableprinter.go: cut at the first \n, \r or \f, then "...": the row stays one line.
    assert aligned(["A", "B"], [["x\ny", "z"], ["p\rq", "r\fs"]]) == ("A      B\n"
                                                                    "x...   z\n"
                                                                    "p...   r...\n")


def test_control_characters_and_runner_commands_are_escaped_and_counted_as_shown():
    assert cell("a\x1b[31mb\tc") == "a\\x1b[31mb\\tc"
    assert cell("##[error]x") == "##\\x5berror]x"
    assert aligned(["A", "B"], [["\x1b", "z"]]) == "A      B\n\\x1b   z\n"


def test_widths_count_characters_not_bytes():
    assert aligned(["A", "B"], [["日本語", "z"]]) == "A     B\n日本語   z\n"
