"""github.com/google/cel-go@v0.26.0 ext/strings_test.go (TestStrings' stringTests) ported as data: the
string extension at the version the API server enables (ext.Strings v2, k8s.io/apiserver@v0.36.3
pkg/cel/environment/base.go). Each case is (expression, error, parse_only): the expression evaluates to
true, or its evaluation fails with an error containing `error`. A parse_only case is evaluated
unchecked, as the Go test evaluates it (its argument types match no overload, which the type checker
would refuse first: the API server always checks, and so does kpt_fn.admission.cel.compile)."""

from __future__ import annotations

import pytest

from kpt_fn.admission import cel
from kpt_fn.admission.cel import environment, parser
from kpt_fn.admission.cel.evaluator import Compiler
from kpt_fn.admission.cel.runtime import Run

CASES = [("'tacocat'.charAt(3) == 'o'", None, False),
 ("'tacocat'.charAt(7) == ''", None, False),
 ("'©αT'.charAt(0) == '©' && '©αT'.charAt(1) == 'α' && '©αT'.charAt(2) == 'T'", None, False),
 ("'tacocat'.indexOf('') == 0", None, False),
 ("'tacocat'.indexOf('ac') == 1", None, False),
 ("'tacocat'.indexOf('none') == -1", None, False),
 ("'tacocat'.indexOf('', 3) == 3", None, False),
 ("'tacocat'.indexOf('a', 3) == 5", None, False),
 ("'tacocat'.indexOf('at', 3) == 5", None, False),
 ("'ta©o©αT'.indexOf('©') == 2", None, False),
 ("'ta©o©αT'.indexOf('©', 3) == 4", None, False),
 ("'ta©o©αT'.indexOf('©αT', 3) == 4", None, False),
 ("'ta©o©αT'.indexOf('©α', 5) == -1", None, False),
 ("'ijk'.indexOf('k') == 2", None, False),
 ("'hello wello'.indexOf('hello wello') == 0", None, False),
 ("'hello wello'.indexOf('ello', 6) == 7", None, False),
 ("'hello wello'.indexOf('elbo room!!') == -1", None, False),
 ("'hello wello'.indexOf('elbo room!!!') == -1", None, False),
 ("''.lastIndexOf('@@') == -1", None, False),
 ("'tacocat'.lastIndexOf('') == 7", None, False),
 ("'tacocat'.lastIndexOf('at') == 5", None, False),
 ("'tacocat'.lastIndexOf('none') == -1", None, False),
 ("'tacocat'.lastIndexOf('', 3) == 3", None, False),
 ("'tacocat'.lastIndexOf('a', 3) == 1", None, False),
 ("'ta©o©αT'.lastIndexOf('©') == 4", None, False),
 ("'ta©o©αT'.lastIndexOf('©', 3) == 2", None, False),
 ("'ta©o©αT'.lastIndexOf('©α', 4) == 4", None, False),
 ("'hello wello'.lastIndexOf('ello', 6) == 1", None, False),
 ("'hello wello'.lastIndexOf('low') == -1", None, False),
 ("'hello wello'.lastIndexOf('elbo room!!') == -1", None, False),
 ("'hello wello'.lastIndexOf('elbo room!!!') == -1", None, False),
 ("'hello wello'.lastIndexOf('hello wello') == 0", None, False),
 ("'bananananana'.lastIndexOf('nana', 7) == 6", None, False),
 ("'TacoCat'.lowerAscii() == 'tacocat'", None, False),
 ("'TacoCÆt'.lowerAscii() == 'tacocÆt'", None, False),
 ("'TacoCÆt Xii'.lowerAscii() == 'tacocÆt xii'", None, False),
 ('"12 days 12 hours".replace("{0}", "2") == "12 days 12 hours"', None, False),
 ('"{0} days {0} hours".replace("{0}", "2") == "2 days 2 hours"', None, False),
 ('"{0} days {0} hours".replace("{0}", "2", 1).replace("{0}", "23") == "2 days 23 hours"', None, False),
 ('"1 ©αT taco".replace("αT", "o©α") == "1 ©o©α taco"', None, False),
 ('"hello hello".replace("", "_") == "_h_e_l_l_o_ _h_e_l_l_o_"', None, False),
 ('"hello hello".replace("h", "") == "ello ello"', None, False),
 ('"hello world".split(" ") == ["hello", "world"]', None, False),
 ('"hello world events!".split(" ", 0) == []', None, False),
 ('"hello world events!".split(" ", 1) == ["hello world events!"]', None, False),
 ('"o©o©o©o".split("©", -1) == ["o", "o", "o", "o"]', None, False),
 ('"tacocat".substring(4) == "cat"', None, False),
 ('"tacocat".substring(7) == ""', None, False),
 ('"tacocat".substring(0, 4) == "taco"', None, False),
 ('"tacocat".substring(4, 4) == ""', None, False),
 ('\'ta©o©αT\'.substring(2, 6) == "©o©α"', None, False),
 ('\'ta©o©αT\'.substring(7, 7) == ""', None, False),
 ('" \\f\\n\\r\\t\\vtext  ".trim() == "text"', None, False),
 ('"\\u0085\\u00a0\\u1680text".trim() == "text"', None, False),
 ('"text\\u2000\\u2001\\u2002\\u2003\\u2004\\u2004\\u2006\\u2007\\u2008\\u2009".trim() == "text"', None, False),
 ('"\\u200atext\\u2028\\u2029\\u202F\\u205F\\u3000".trim() == "text"', None, False),
 ('"\\u180etext\\u200b\\u200c\\u200d\\u2060\\ufeff".trim()\n'
  '\t\t\t\t== "\\u180etext\\u200b\\u200c\\u200d\\u2060\\ufeff"',
  None,
  False),
 ("'tacoCat'.upperAscii() == 'TACOCAT'", None, False),
 ("'tacoCαt'.upperAscii() == 'TACOCαT'", None, False),
 ("'gums'.reverse() == 'smug'", None, False),
 ("'palindromes'.reverse() == 'semordnilap'", None, False),
 ("'John Smith'.reverse() == 'htimS nhoJ'", None, False),
 ("'u180etext'.reverse() == 'txete081u'", None, False),
 ("'2600+U'.reverse() == 'U+0062'", None, False),
 ("'\\u180e\\u200b\\u200c\\u200d\\u2060\\ufeff'.reverse() == '\\ufeff\\u2060\\u200d\\u200c\\u200b\\u180e'",
  None,
  False),
 ("['x', 'y'].join() == 'xy'", None, False),
 ("['x', 'y'].join('-') == 'x-y'", None, False),
 ("[].join() == ''", None, False),
 ("[].join('-') == ''", None, False),
 ('strings.quote("first\\nsecond") == "\\"first\\\\nsecond\\""', None, False),
 ('strings.quote("bell\\a") == "\\"bell\\\\a\\""', None, False),
 ('strings.quote("\\bbackspace") == "\\"\\\\bbackspace\\""', None, False),
 ('strings.quote("\\fform feed") == "\\"\\\\fform feed\\""', None, False),
 ('strings.quote("carriage \\r return") == "\\"carriage \\\\r return\\""', None, False),
 ('strings.quote("horizontal tab\\t") == "\\"horizontal tab\\\\t\\""', None, False),
 ('strings.quote("vertical \\v tab") == "\\"vertical \\\\v tab\\""', None, False),
 ('strings.quote("double \\\\\\\\ slash") == "\\"double \\\\\\\\\\\\\\\\ slash\\""', None, False),
 ('strings.quote("two escape sequences \\a\\n") == "\\"two escape sequences \\\\a\\\\n\\""', None, False),
 ('strings.quote("verbatim") == "\\"verbatim\\""', None, False),
 ('strings.quote("ends with \\\\") == "\\"ends with \\\\\\\\\\""', None, False),
 ('strings.quote("\\\\ starts with") == "\\"\\\\\\\\ starts with\\""', None, False),
 ('strings.quote("printable unicode😀") == "\\"printable unicode😀\\""', None, False),
 ('strings.quote("mid string \\" quote") == "\\"mid string \\\\\\" quote\\""', None, False),
 ('strings.quote(\'single-quote with "double quote"\') == "\\"single-quote with \\\\\\"double quote\\\\\\"\\""',
  None,
  False),
 ('strings.quote("size(\'ÿ\')") == "\\"size(\'ÿ\')\\""', None, False),
 ('strings.quote("size(\'πέντε\')") == "\\"size(\'πέντε\')\\""', None, False),
 ('strings.quote("завтра") == "\\"завтра\\""', None, False),
 ('strings.quote("\\U0001F431\\U0001F600\\U0001F61B") == "\\"\\U0001F431\\U0001F600\\U0001F61B\\""', None, False),
 ('strings.quote("ta©o©αT") == "\\"ta©o©αT\\""', None, False),
 ('strings.quote("") == "\\"\\""', None, False),
 ('strings.quote(\'%s %s\').format([\'hello\', \'world\']) == "\\"hello world\\""', None, False),
 ("'tacocat'.charAt(30) == ''", 'index out of range: 30', False),
 ("'tacocat'.indexOf('a', 30) == -1", None, False),
 ("'tacocat'.lastIndexOf('a', -1) == -1", 'index out of range: -1', False),
 ("'tacocat'.lastIndexOf('a', 30) == -1", None, False),
 ('"tacocat".substring(40) == "cat"', 'index out of range: 40', False),
 ('"tacocat".substring(-1) == "cat"', 'index out of range: -1', False),
 ('"tacocat".substring(1, 50) == "cat"', 'index out of range: 50', False),
 ('"tacocat".substring(49, 50) == "cat"', 'index out of range: 49', False),
 ('"tacocat".substring(4, 3) == ""', 'invalid substring range. start: 4, end: 3', False),
 ('42.charAt(2) == ""', 'no such overload', True),
 ('\'hello\'.charAt(true) == ""', 'no such overload', True),
 ("24.indexOf('2') == 0", 'no such overload', True),
 ("'hello'.indexOf(true) == 1", 'no such overload', True),
 ("42.indexOf('4', 0) == 0", 'no such overload', True),
 ("'42'.indexOf(4, 0) == 0", 'no such overload', True),
 ("'42'.indexOf('4', '0') == 0", 'no such overload', True),
 ("'42'.indexOf('4', 0, 1) == 0", 'no such overload', True),
 ('42.split("2") == ["4"]', 'no such overload', True),
 ('42.replace(2, 1) == "41"', 'no such overload', True),
 ('"42".replace(2, 1) == "41"', 'no such overload', True),
 ('"42".replace("2", 1) == "41"', 'no such overload', True),
 ('42.replace("2", "1", 1) == "41"', 'no such overload', True),
 ('"42".replace(2, "1", 1) == "41"', 'no such overload', True),
 ('"42".replace("2", 1, 1) == "41"', 'no such overload', True),
 ('"42".replace("2", "1", "1") == "41"', 'no such overload', True),
 ('"42".replace("2", "1", 1, false) == "41"', 'no such overload', True),
 ('42.split("") == ["4", "2"]', 'no such overload', True),
 ('"42".split(2) == ["4"]', 'no such overload', True),
 ('42.split("2", "1") == ["4"]', 'no such overload', True),
 ('"42".split(2, 1) == ["4"]', 'no such overload', True),
 ('"42".split("2", "1") == ["4"]', 'no such overload', True),
 ('"42".split("2", 1, 1) == ["4"]', 'no such overload', True),
 ('\'hello\'.substring(1, 2, 3) == ""', 'no such overload', True),
 ('30.substring(true, 3) == ""', 'no such overload', True),
 ('"tacocat".substring(true, 3) == ""', 'no such overload', True),
 ('"tacocat".substring(0, false) == ""', 'no such overload', True)]

_V3 = "string.reverse() came with ext.Strings version 3; the API server enables version 2"
# expression -> why the case is not run here
NOT_PORTED = {e: _V3 for e, _, _ in CASES if ".reverse()" in e}


def _outcome(expression, parse_only):
    if parse_only:
        tree, _ = parser.parse(expression)
        program = Compiler(environment.functions(), frozenset()).compile(tree)
        run = lambda: program(Run({}, cel.PER_CALL_LIMIT))  # noqa: E731
    else:
        compiled = cel.compile(expression, {})
        assert isinstance(compiled, cel.Program), compiled.message
        run = lambda: compiled.evaluate({})  # noqa: E731
    try:
        return True, run()
    except cel.EvalError as exc:
        return False, exc.message


@pytest.mark.parametrize("expression, error, parse_only", [c for c in CASES if c[0] not in NOT_PORTED])
def test_case(expression, error, parse_only):
    ok, value = _outcome(expression, parse_only)
    if error:
        assert not ok and error in value
    else:
        assert ok and value is True


@pytest.mark.parametrize("expression", [c[0] for c in CASES if c[2]])
def test_the_checker_refuses_what_the_go_test_leaves_unchecked(expression):
    result = cel.compile(expression, {})
    assert isinstance(result, cel.CompileError) and "found no matching overload" in result.message


def test_not_ported_names_cases():
    assert set(NOT_PORTED) <= {c[0] for c in CASES}
