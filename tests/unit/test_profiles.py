"""kpt_fn.profiles: the run's profile chosen once from the `profile` option."""

from __future__ import annotations

import pytest

from kpt_fn import config, profiles
from kpt_fn.config import FunctionConfig
from kpt_fn.profiles.base import Profile


def test_every_profile_option_choice_has_a_module_and_back():
    assert set(profiles.REGISTRY) == set(config.PROFILES)
    for name, cls in profiles.REGISTRY.items():
        assert issubclass(cls, Profile) and cls.name == name


@pytest.mark.parametrize("name", sorted(profiles.REGISTRY))
def test_select(name):
    cfg = FunctionConfig(profile=name, kueueQueues=["q"])
    chosen, problems = profiles.select(cfg, [])
    assert type(chosen) is profiles.REGISTRY[name] and chosen.cfg is cfg and problems == []


@pytest.mark.parametrize("name", sorted(profiles.REGISTRY))
def test_bad_queue_entries_are_reported_whatever_the_profile(name):
    source = {"kind": "ExpandTrainJobs"}
    cfg = FunctionConfig(profile=name, kueueQueues=["=q", "ns=", "ok"], source=source)
    _, problems = profiles.select(cfg, [])
    assert [(p.path, p.subject) for p in problems] == [("spec.kueueQueues", source)] * 2
    assert "'=q'" in problems[0].message and "expected QUEUE or NAMESPACE=QUEUE" in problems[0].message
