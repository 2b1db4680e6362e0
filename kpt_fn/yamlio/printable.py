"""PyYAML's pattern of non-printable characters, without its start-up cost.

`import yaml` compiles `yaml.reader.Reader.NON_PRINTABLE`, a negated character class over nearly all
of Unicode. Python's regular-expression compiler (3.11, `re._compiler._optimize_charset`) builds such
a class one code point at a time: about 5 ms, nearly a tenth of a one-TrainJob Argo CD render
(docs/benchmarks.md, run 21), on every start-up. The same set written positively (the few code points
the negated class leaves out) compiles in a fraction of that.

`seed` puts the positive pattern into `re`'s cache under PyYAML's pattern text before PyYAML is
imported, so PyYAML's `re.compile` returns it. Both match exactly the same characters
(tests/unit/yamlio/test_printable.py checks every code point, and that PyYAML took it). Where `re`
keeps no such cache (another Python), where PyYAML was imported already, or where PyYAML's pattern
text changes, nothing is used and PyYAML compiles its own, as before.
"""

from __future__ import annotations

import re

# yaml/reader.py (PyYAML 6.0.4) Reader.NON_PRINTABLE, as its source spells it.
PYYAML_PATTERN = "[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010ffff]"
# What that class leaves out of U+0000..U+10FFFF: C0 controls but tab, LF and CR; DEL and the C1
# controls but NEL (U+0085); the surrogates; U+FFFE and U+FFFF.
EXCLUDED = "[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uD800-\uDFFF\uFFFE\uFFFF]"


def seed(cache) -> None:
    """Put the pattern of EXCLUDED in `cache` (re's `_cache`: (type, pattern, flags) -> compiled)
    under PyYAML's pattern, unless something is there already."""
    if isinstance(cache, dict):
        key = (str, PYYAML_PATTERN, 0)
        if key not in cache:
            cache[key] = re.compile(EXCLUDED)
