"""kpt_fn.yamlio.limits: the limits on hostile input (size, depth, alias expansion and count)."""

from __future__ import annotations

import pytest

from kpt_fn import yamlio
from kpt_fn.yamlio import Limits, YAMLInputError

def test_limits_is_an_immutable_value_with_replace():
    a = Limits(max_depth=5)
    assert a == Limits(max_depth=5) and hash(a) == hash(Limits(max_depth=5)) and a != Limits()
    assert (a.max_bytes, a.max_depth, a.max_nodes, a.max_aliases) == (64 * 1024 * 1024, 5, 1_000_000, 10_000)
    b = a.replace(max_nodes=7)
    assert (b.max_depth, b.max_nodes) == (5, 7) and a.max_nodes == 1_000_000
    with pytest.raises(AttributeError):
        a.max_depth = 6
    with pytest.raises(TypeError):
        a.replace(max_things=1)
    assert repr(a).startswith("Limits(max_bytes=")


# --- limits ------------------------------------------------------------------------------------------


def test_size_limit_bytes_and_text():
    limits = Limits(max_bytes=10)
    with pytest.raises(YAMLInputError, match="more than the limit of 10"):
        yamlio.load_all(b"a: 12345678901\n", limits)
    with pytest.raises(YAMLInputError, match="more than the limit of 10"):
        yamlio.load_all("a: 12345678901\n", limits)
    assert yamlio.load_all(b"a: 1\n", limits) == [{"a": 1}]


def test_depth_limit():
    deep = "a:\n" + "".join("  " * i + "- \n" for i in range(1, 12))
    with pytest.raises(YAMLInputError, match="nesting deeper than 5 levels"):
        yamlio.load_all(deep, Limits(max_depth=5))
    assert yamlio.load_all("[[[[1]]]]", Limits(max_depth=5)) == [[[[[1]]]]]


def test_deep_flow_nesting_does_not_crash():
    with pytest.raises(YAMLInputError):
        yamlio.load_all("[" * 5000 + "]" * 5000)


def test_alias_expansion_limit_stops_billion_laughs():
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for i, (prev, cur) in enumerate(zip("abcdefgh", "bcdefghi")):
        bomb += f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 10) + "]\n"
    with pytest.raises(YAMLInputError, match="expands to more than 100000 nodes"):
        yamlio.load_all(bomb, Limits(max_nodes=100_000))


def test_alias_count_limit_and_ordinary_aliases():
    doc = "a: &a 1\nb: [" + ", ".join(["*a"] * 20) + "]\n"
    with pytest.raises(YAMLInputError, match="more than 10 aliases"):
        yamlio.load_all(doc, Limits(max_aliases=10))
    assert yamlio.load(doc)["b"] == [1] * 20


def test_recursive_alias_is_rejected():
    with pytest.raises(YAMLInputError, match="recursive alias"):
        yamlio.load_all("a: &a [*a]\n")


def test_too_deep_names_the_field_it_goes_too_deep_under():
    # the path from the document's root, its first segments: the fields a person recognises
    import pytest as _pytest

    from kpt_fn.yamlio import YAMLInputError, load, load_json
    from kpt_fn.yamlio.limits import deep_path

    deep = "spec:\n  trainer:\n    extra: " + "{a: " * 10 + "x" + "}" * 10 + "\n"
    with _pytest.raises(YAMLInputError) as e:
        load(deep, Limits(max_depth=8))
    assert str(e.value) == "line 3: nesting deeper than 8 levels (maxDepth) under spec.trainer.extra.a.a.a…"
    with _pytest.raises(YAMLInputError) as e:
        load_json('{"items": [{"a": [[[1]]]}]}', Limits(max_depth=5))
    assert str(e.value) == "nesting deeper than 5 levels (maxDepth) under items[0].a[0][0]"
    assert deep_path({"a": [1]}, 5) == ""
    assert deep_path({"a": {"b": 1}}, 1) == "a"
