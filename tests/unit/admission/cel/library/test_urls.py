import pytest

from kpt_fn.admission.cel.library import urls

from unit.admission.cel.library.evalcase import evaluate, failure


@pytest.mark.parametrize("text, expected", [
    ("url('https://example.com:8080/a%20b?x=1&x=2&y=z').getScheme()", "https"),
    ("url('https://example.com:8080/a%20b?x=1').getHost()", "example.com:8080"),
    ("url('https://example.com:8080/path').getHostname()", "example.com"),
    ("url('https://example.com:8080/path').getPort()", "8080"),
    ("url('https://[::1]:80/').getHostname()", "::1"), ("url('https://[::1]:80/').getPort()", "80"),
    ("url('https://example.com/a%20b').getEscapedPath()", "/a%20b"),
    ("url('https://example.com/?x=1&x=2&y=z+w').getQuery()", {"x": ["1", "2"], "y": ["z w"]}),
    ("url('/absolute/path').getScheme()", ""), ("isURL('https://example.com')", True), ("isURL('relative/path')", False),
    ("isURL('')", False), ("url('https://a.b#frag').getEscapedPath()", ""),
])
def test_urls(text, expected):
    assert evaluate(text) == expected


def test_errors():
    assert failure("url('relative')") == \
        'URL parse error during conversion from string: parse "relative": invalid URI for request'
    assert failure("url(':nope')") == 'URL parse error during conversion from string: parse ":nope": missing protocol scheme'
    assert failure("url('http://h:x/')") == \
        'URL parse error during conversion from string: parse "http://h:x/": invalid port ":x" after host'
    assert urls.request_uri_error("/a%zz") == 'parse "/a%zz": invalid URL escape "%zz"'
    assert urls.request_uri_error("*") == ""
