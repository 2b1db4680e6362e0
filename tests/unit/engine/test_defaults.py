"""The fast copies and normalisation of the engine: defaults.private_copy shares nothing mutable (and
deep-copies what is not plain data), and roundtrip.normalize names the field of a bad quantity."""

from __future__ import annotations

import pytest

from kpt_fn.engine import defaults, roundtrip


def test_private_copy_shares_nothing_mutable():
    shared = {"a": [1, {"b": None}]}
    data = {"x": shared, "y": shared, "z": [shared, "s", 1.5, True, None]}
    out = defaults.private_copy(data)
    assert out == data
    assert out["x"] is not shared and out["x"] is not out["y"]  # aliases are copied apart
    assert out["x"]["a"][1] is not shared["a"][1]
    marker = (1, [2])  # not plain data: deep-copied as copy.deepcopy would
    copied = defaults.private_copy({"t": marker})["t"]
    assert copied == marker and copied[1] is not marker[1]


@pytest.mark.parametrize("obj, path, where", [
    ({"resources": {"limits": {"cpu": "bad"}}}, "", "resources.limits[cpu]"),
    ({"volumes": [{"emptyDir": {"sizeLimit": "x"}}]}, "spec", "spec.volumes[0].emptyDir.sizeLimit"),
    ([{"overhead": {"memory": "1Q"}}], "", "[0].overhead[memory]"),
    ({"[k]": {"divisor": "z"}}, "", "[k].divisor"),
])
def test_normalize_names_the_bad_quantity(obj, path, where):
    with pytest.raises(roundtrip.QuantityProblem) as e:
        roundtrip.normalize(obj, path)
    assert e.value.path == where
