"""kpt_fn.profiles: the run's profile chosen once from the `profile` option."""

from __future__ import annotations

import pytest

from kpt_fn import config, profiles
from kpt_fn.config import FunctionConfig
from kpt_fn.profiles.base import Profile


def test_the_profile_names_are_declared_once():
    """config.PROFILES is the one table of the profile names: the option's choices are that table
    itself, and no module of the package writes a profile's name elsewhere as a class attribute or
    a constant of its own."""
    [option] = [o for o in config.OPTIONS if o.name == "profile"]
    assert option.choices is config.PROFILES and option.default in config.PROFILES
    assert not hasattr(Profile, "name")


@pytest.mark.parametrize("name", sorted(config.PROFILES))
def test_every_name_loads_a_profile_of_its_module(name):
    module, cls = config.PROFILES[name]
    loaded = profiles.named(name)
    assert issubclass(loaded, Profile) and loaded.__name__ == cls
    assert loaded.__module__ == f"kpt_fn.profiles.{module}"


def test_every_profile_class_of_the_package_has_a_name():
    """A Profile subclass defined in kpt_fn/profiles/ but missing from config.PROFILES could never be chosen."""
    import importlib
    import inspect
    import pkgutil

    defined = set()
    for info in pkgutil.iter_modules(profiles.__path__):
        module = importlib.import_module(f"kpt_fn.profiles.{info.name}")
        defined |= {(info.name, c.__name__) for _, c in inspect.getmembers(module, inspect.isclass)
                    if issubclass(c, Profile) and c is not Profile and c.__module__ == module.__name__}
    assert defined == set(config.PROFILES.values())


@pytest.mark.parametrize("name", sorted(config.PROFILES))
def test_select(name):
    cfg = FunctionConfig(profile=name, kueueQueues=["q"])
    chosen, problems = profiles.select(cfg, [])
    assert type(chosen) is profiles.named(name) and chosen.cfg is cfg and problems == []


@pytest.mark.parametrize("name", sorted(config.PROFILES))
def test_bad_queue_entries_are_reported_whatever_the_profile(name):
    source = {"kind": "ExpandTrainJobs"}
    cfg = FunctionConfig(profile=name, kueueQueues=["=q", "ns=", "ok"], source=source)
    _, problems = profiles.select(cfg, [])
    assert [(p.path, p.subject) for p in problems] == [("spec.kueueQueues", source)] * 2
    assert "'=q'" in problems[0].message and "expected QUEUE or NAMESPACE=QUEUE" in problems[0].message
