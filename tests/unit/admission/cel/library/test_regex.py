import pytest

from kpt_fn.admission.cel.library import regex

from unit.admission.cel.library.evalcase import evaluate, failure


@pytest.mark.parametrize("text, expected", [
    ("'abc'.matches('^a.c$')", True), ("matches('abc', 'b')", True), ("'abc\\n'.matches('c$')", False),
    ("'hello world'.find('[a-z]+')", "hello"), ("'123'.find('[a-z]+')", ""),
    ("'a1b2c3'.findAll('[0-9]')", ["1", "2", "3"]), ("'a1b2c3'.findAll('[0-9]', 2)", ["1", "2"]),
    ("'abc'.findAll('x*')", ["", "", "", ""]), ("'a1'.findAll('[0-9]', 0)", []),
])
def test_regex_functions(text, expected):
    assert evaluate(text) == expected


def test_patterns_come_at_run_time_too():
    assert failure("'a'.find(p)", p="(") == "Illegal regex: error parsing regexp: missing closing ): `(`"
    assert failure("'a'.matches(p)", p="(a)\\1").startswith("error parsing regexp: invalid escape sequence")


def test_no_backtracking_blow_up():
    # Python's re takes exponential time on this; RE2 is linear
    assert evaluate("s.matches('^(a+)+$')", s="a" * 5000 + "b") is False


def test_regex_cost():
    assert regex._regex_cost(["a" * 99, "b" * 8], True) == 10 * 2
    assert regex.regex_error("(") != "" and regex.regex_error("a") == ""
    assert regex.go_wording(type("E", (), {"args": (b"missing ): (",)})()) == "missing closing ): `(`"
    assert regex.matches("ab", "b") is True and regex.find("ab", "b") == "b" and regex.find_all("aa", "a") == ["a", "a"]
    assert regex.compile_re2("a") is regex.compile_re2("a")
