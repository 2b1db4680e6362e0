"""kpt_fn.formats.sarif.uri: RFC 3986 relative references that decode to the file."""

from __future__ import annotations

import os
from urllib.parse import unquote, urlsplit

import pytest

from kpt_fn.formats.sarif import uri


@pytest.mark.parametrize("path, expected", [
    ("apps/train/jobs.yaml", "apps/train/jobs.yaml"),
    ("a b/#1 ?.yaml", "a%20b/%231%20%3F.yaml"),
    ("100%.yaml", "100%25.yaml"),
    ("c:d.yaml", "c%3Ad.yaml"),                   # no first segment that reads as a scheme
    ("日本.yaml", "%E6%97%A5%E6%9C%AC.yaml"),
    (os.fsdecode(b"bad-\xff.yaml"), "bad-%FF.yaml"),  # a name that is not UTF-8: its bytes
    ("a~b_c-d.e", "a~b_c-d.e"),
])
def test_uri_is_a_relative_reference_that_decodes_to_the_file(path, expected):
    assert uri(path) == expected
    parts = urlsplit(expected)
    assert not parts.scheme and not parts.fragment and not parts.query
    assert unquote(expected, errors="surrogateescape") == path

