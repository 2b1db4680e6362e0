import pytest

from kpt_fn.admission.cel import parser


@pytest.mark.parametrize("text, tree", [
    ("1 + 2 * 3", ("call", "_+_", None, [("lit", 1), ("call", "_*_", None, [("lit", 2), ("lit", 3)])])),
    ("a || b && c", ("or", ("ident", "a"), ("and", ("ident", "b"), ("ident", "c")))),
    ("a - b - c", ("call", "_-_", None, [("call", "_-_", None, [("ident", "a"), ("ident", "b")]), ("ident", "c")])),
    ("x in [1]", ("call", "@in", None, [("ident", "x"), ("list", [("lit", 1)], set())])),
    ("a ? b : c ? d : e", ("cond", ("ident", "a"), ("ident", "b"), ("cond", ("ident", "c"), ("ident", "d"), ("ident", "e")))),
    ("has(a.b)", ("has", ("ident", "a"), "b")),
    ("a.?b", ("select", ("ident", "a"), "b", True)),
    ("a[?0]", ("index", ("ident", "a"), ("lit", 0), True)),
    ("[?a, b]", ("list", [("ident", "a"), ("ident", "b")], {0})),
    ("{?'k': v}", ("map", [(("lit", "k"), ("ident", "v"), True)])),
    ("-9223372036854775808", ("lit", -9223372036854775808)),
    ("!!true", ("not", ("not", ("lit", True)))),
    ("x.all(y, y)", ("macro", "all", ("ident", "x"), ["y"], [("ident", "y")])),
    ("m.all(k, v, v)", ("macro", "all", ("ident", "m"), ["k", "v"], [("ident", "v")])),
    ("x.existsOne(y, y)", ("macro", "exists_one", ("ident", "x"), ["y"], [("ident", "y")])),
    (".a", ("ident", "a")),
    ("a // a comment\n", ("ident", "a")),
])
def test_trees(text, tree):
    assert parser.parse(text)[0] == tree


@pytest.mark.parametrize("text, value", [
    ("0x1F", 31), ("1.5e3", 1500.0), (".5", 0.5), ("1e2", 100.0),
    ("'a\\nb'", "a\nb"), ('"\\u00e9"', "é"), ("'\\x41'", "A"), ("'\\101'", "A"), ("r'\\d'", "\\d"),
    ("b'\\xff'", b"\xff"), ("b'é'", "é".encode()), ("'''a\nb'''", "a\nb"), ('"""x"y"""', 'x"y'),
    ("true", True), ("null", None),
])
def test_literals(text, value):
    tree = parser.parse(text)[0]
    assert tree[0] == "lit" and tree[1] == value and type(tree[1]) is type(value)


def test_uint_literal_keeps_its_type():
    from kpt_fn.admission.cel.values import UInt

    assert type(parser.parse("1u")[0][1]) is UInt


@pytest.mark.parametrize("text, message", [
    ("1 +", "Syntax error: mismatched input '<EOF>'"),
    ("1 2", "Syntax error: extraneous input '2' expecting <EOF>"),
    ("if", "Syntax error: reserved identifier: if"),
    ("'abc", "Syntax error: token recognition error at: \"'abc\""),
    ("a.all(1, true)", "argument must be a simple name"),
    ("has(a)", "invalid argument to has() macro"),
    ("9223372036854775808", "invalid int literal"),
    ("#", "Syntax error: token recognition error at: '#'"),
    ("'\\q'", "Syntax error: token recognition error at: '\\q'"),
])
def test_syntax_errors(text, message):
    with pytest.raises(parser.ParseError) as info:
        parser.parse(text)
    assert info.value.message == message


@pytest.mark.parametrize("text", ["request.namespace", "object.metadata.namespace", "params.package", "a.?namespace"])
def test_reserved_words_are_field_names(text):
    # cel-go refuses a reserved word as an identifier (VisitIdent) but not after a dot (VisitSelect):
    # k8s.io/apiserver's own compile tests use `request.namespace`.
    tree = parser.parse(text)[0]
    assert tree[0] == "select" and tree[2] == text.rsplit(".", 1)[1].lstrip("?")


def test_a_reserved_word_alone_is_still_refused():
    with pytest.raises(parser.ParseError) as info:
        parser.parse("namespace == 'a'")
    assert info.value.message == "Syntax error: reserved identifier: namespace"


def test_recursion_limit_is_cel_gos():
    deep = "(" * 300 + "1" + ")" * 300
    with pytest.raises(parser.ParseError) as info:
        parser.parse(deep)
    assert info.value.message == "expression recursion limit exceeded: 250"
    ok = "(" * 240 + "1" + ")" * 240
    assert parser.parse(ok)[0] == ("lit", 1)


def test_size_limit_is_cel_gos():
    with pytest.raises(parser.ParseError) as info:
        parser.parse("1" + " " * 100_000)
    assert info.value.message == "expression code point size exceeds limit: size: 100001, limit 100000"


def test_deep_stack_puts_the_limit_back():
    import sys

    before = sys.getrecursionlimit()
    with parser.deep_stack():
        pass
    assert sys.getrecursionlimit() == before


def test_line_column():
    assert parser.line_column("a\nbc", 3) == (2, 1)
