import pytest

from kpt_fn.admission.cel.library import strings

from unit.admission.cel.library.evalcase import evaluate, failure


@pytest.mark.parametrize("text, expected", [
    # cel-go v0.26.0 ext/strings.go's documented examples
    ("'hello'.charAt(4)", "o"), ("'hello'.charAt(5)", ""), ("'hello mellow'.indexOf('')", 0),
    ("'hello mellow'.indexOf('ello')", 1), ("'hello mellow'.indexOf('jello')", -1),
    ("'hello mellow'.indexOf('', 2)", 2), ("'hello mellow'.indexOf('ello', 2)", 7),
    ("'hello mellow'.indexOf('ello', 20)", -1), ("['hello', 'mellow'].join()", "hellomellow"),
    ("['hello', 'mellow'].join(' ')", "hello mellow"), ("[].join('/')", ""),
    ("'hello mellow'.lastIndexOf('')", 12), ("'hello mellow'.lastIndexOf('ello')", 7),
    ("'hello mellow'.lastIndexOf('jello')", -1), ("'hello mellow'.lastIndexOf('ello', 6)", 1),
    ("'hello mellow'.lastIndexOf('ello', 20)", -1), ("'TacoCat'.lowerAscii()", "tacocat"),
    ("'TacoCÆt Xii'.lowerAscii()", "tacocÆt xii"), ("'TacoCat'.upperAscii()", "TACOCAT"),
    ("strings.quote('single-quote with \"double quote\"')", '"single-quote with \\"double quote\\""'),
    ("strings.quote(\"two escape sequences \\a\\n\")", '"two escape sequences \\a\\n"'),
    ("'hello hello'.replace('he', 'we')", "wello wello"), ("'hello hello'.replace('he', 'we', -1)", "wello wello"),
    ("'hello hello'.replace('he', 'we', 1)", "wello hello"), ("'hello hello'.replace('he', 'we', 0)", "hello hello"),
    ("'hello hello'.replace('', '_')", "_h_e_l_l_o_ _h_e_l_l_o_"), ("'hello hello'.replace('h', '')", "ello ello"),
    ("'hello hello hello'.split(' ')", ["hello", "hello", "hello"]), ("'hello hello hello'.split(' ', 0)", []),
    ("'hello hello hello'.split(' ', 1)", ["hello hello hello"]),
    ("'hello hello hello'.split(' ', 2)", ["hello", "hello hello"]),
    ("'hello hello hello'.split(' ', -1)", ["hello", "hello", "hello"]), ("'abc'.split('')", ["a", "b", "c"]),
    ("'tacocat'.substring(4)", "cat"), ("'tacocat'.substring(0, 4)", "taco"), ("'  \\ttrim\\n    '.trim()", "trim"),
])
def test_documented_examples(text, expected):
    assert evaluate(text) == expected


@pytest.mark.parametrize("text, message", [
    ("'hello'.charAt(-1)", "index out of range: -1"), ("'hello mellow'.indexOf('ello', -1)", "index out of range: -1"),
    ("'hello mellow'.lastIndexOf('ello', -1)", "index out of range: -1"), ("'tacocat'.substring(-1)", "index out of range: -1"),
    ("'tacocat'.substring(1, 0)", "invalid substring range. start: 1, end: 0"),
    ("'tacocat'.substring(0, 40)", "index out of range: 40"),
])
def test_documented_errors(text, message):
    assert failure(text) == message


def test_join_refuses_non_strings_and_replace_is_bounded():
    assert failure("x.join()", x=["a", 1]) == "join: invalid input: 1"
    assert failure("x.replace('a', y)", x="a" * 4096, y="b" * 8192).startswith("string size exceeds")
    assert strings.trim("\u3000a\u00a0") == "a"
