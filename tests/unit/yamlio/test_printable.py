"""PyYAML's pattern of non-printable characters, seeded cheaply (kpt_fn.yamlio.printable): the same
characters, and PyYAML really takes it when the function starts."""

from __future__ import annotations

import re
import subprocess
import sys

from kpt_fn.yamlio import printable


def test_the_seeded_pattern_matches_exactly_what_pyyaml_s_matches_at_every_code_point():
    every = "".join(map(chr, range(0x110000)))
    theirs = re.compile(printable.PYYAML_PATTERN)  # already cached here or not: the same characters
    ours = re.compile(printable.EXCLUDED)
    assert [m.start() for m in ours.finditer(every)] == [m.start() for m in theirs.finditer(every)]


def test_the_pattern_text_is_pyyaml_s_own():
    """If PyYAML changes its pattern the seed is merely unused; this says so, so that the seed is
    updated or dropped rather than kept for nothing."""
    import yaml.reader

    assert yaml.reader.Reader.NON_PRINTABLE.pattern in (printable.PYYAML_PATTERN, printable.EXCLUDED)


def test_a_fresh_process_hands_pyyaml_the_seeded_pattern():
    script = ("import kpt_fn.yamlio, yaml.reader; from kpt_fn.yamlio import printable; "
              "print(yaml.reader.Reader.NON_PRINTABLE.pattern == printable.EXCLUDED)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_nothing_is_placed_in_what_is_no_cache_and_nothing_is_replaced():
    printable.seed(None)  # another Python without re._cache: no error
    cache = {(str, printable.PYYAML_PATTERN, 0): "theirs"}
    printable.seed(cache)
    assert cache == {(str, printable.PYYAML_PATTERN, 0): "theirs"}
    empty: dict = {}
    printable.seed(empty)
    assert list(empty) == [(str, printable.PYYAML_PATTERN, 0)]
    assert empty[(str, printable.PYYAML_PATTERN, 0)].pattern == printable.EXCLUDED
