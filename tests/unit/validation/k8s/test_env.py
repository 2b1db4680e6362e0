"""kpt_fn.validation.k8s.env's readers of upstream's expressions, held to the expressions.
(The env checks themselves are ported in tests/upstream/kubernetes.)"""

from __future__ import annotations

import itertools
import re

from kpt_fn.validation.k8s import env


def test_subscripted_reads_what_upstreams_expression_matches():
    expression = r"(metadata\.(?:annotations|labels))\['(.*)'\]"
    texts = ["metadata.labels['a']", "metadata.labels['']", "metadata.labels[']", "metadata.annotations['x.y/z']",
             "metadata.annotations['a']b']", "metadata.labels['a\n']", "metadata.labelsx['a']",
             "metadata.labels['a']\n", "metadata.name", "spec.x['a']", "metadata.labels[''']"]
    texts += [field + "".join(t) for field in ("metadata.labels", "metadata.annotations", "metadata.name")
              for n in range(6) for t in itertools.product("['a]\n", repeat=n)]
    for text in texts:
        m = re.fullmatch(expression, text)
        assert env._subscripted(text) == (m.groups() if m else None), text


def test_relaxed_names_are_printable_ascii_but_equals():
    expression = "[ -<>-~]+"
    texts = [chr(c) for c in range(0x250)] + ["".join(t) for t in itertools.product("a=~ \x7f\x1fé", repeat=2)]
    for text in texts:
        assert (env.relaxed_name_problems(text) == []) == bool(re.fullmatch(expression, text)), repr(text)
