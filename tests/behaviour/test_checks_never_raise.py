"""Bad input never raises: every check returns Problems for arbitrarily damaged objects."""

from __future__ import annotations

from kpt_fn import upstream

import copy
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kpt_fn import validation

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "validation"
BASES = [yaml.safe_load((FIXTURES / n).read_text()) for n in
         ("jobset_torchtune.yaml", "trainjob_runtimepatches.yaml", "trainingruntime_minimal.yaml")]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


def _containers(obj, path=()):
    """Paths of every dict and list inside obj."""
    yield path
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    for k, v in items:
        if isinstance(v, (dict, list)):
            yield from _containers(v, path + (k,))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(range(len(BASES))), data=st.data(), value=json_values)
def test_damaged_objects_are_reported_not_raised(base, data, value):
    obj = copy.deepcopy(BASES[base])
    paths = list(_containers(obj))
    path = data.draw(st.sampled_from(paths))
    target = obj
    for step in path:
        target = target[step]
    if isinstance(target, dict):
        target[data.draw(st.sampled_from(sorted(target) + ["extra"]))] = value
    elif target:
        target[data.draw(st.integers(0, len(target) - 1))] = value
    for problem in (validation.check_object(obj, upstream.bundle("v2.3.0")) + validation.check_runtime_webhook(obj, upstream.bundle("v2.3.0"))
                    + validation.check_jobset_webhook(obj, upstream.bundle("v2.3.0"))):
        assert isinstance(problem.message, str) and isinstance(problem.path, str)
