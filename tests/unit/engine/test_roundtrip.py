"""kpt_fn.engine.roundtrip: the typed round trip's normalisation (empty artefacts dropped, quantities
canonical), and the field of a bad quantity named."""

from __future__ import annotations

import pytest

from kpt_fn.engine import roundtrip


# --- round trip -------------------------------------------------------------------------------------


def test_normalize_drops_artefacts_and_canonicalises_quantities():
    obj = {"containers": [{"name": "c", "resources": {}, "env": [], "args": None,
                           "volumeMounts": [{"name": "v", "mountPath": "/v"}]},
                          {"name": "d", "resources": {"limits": {"cpu": "1000m", "memory": 1073741824},
                                                      "requests": {}}}],
           "volumes": [{"name": "e", "emptyDir": {"sizeLimit": "1024Mi"}}],
           "metadata": {"labels": {}}, "securityContext": {}}
    roundtrip.normalize(obj)
    assert obj == {"containers": [{"name": "c", "volumeMounts": [{"name": "v", "mountPath": "/v"}]},
                                  {"name": "d", "resources": {"limits": {"cpu": "1", "memory": "1073741824"}}}],
                   "volumes": [{"name": "e", "emptyDir": {"sizeLimit": "1Gi"}}], "securityContext": {}}


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
