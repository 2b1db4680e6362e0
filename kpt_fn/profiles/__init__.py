"""Output profiles, one module each, chosen once per run from the `profile` option (select).

A new profile is a module here with a subclass of base.Profile (or of another profile) and one line
in config.PROFILES (its name, module and class), the one declaration of the profile names: the
option's choices follow from it, and `named` loads the class.
"""

from __future__ import annotations

import sys

from kpt_fn.config import PROFILES, RULE_INVALID
from kpt_fn.problems import Problem
from kpt_fn.profiles.base import Profile
from kpt_fn.profiles.kueue_names import parse_queues


def named(name: str) -> type[Profile]:
    """The profile class of `name` (a key of config.PROFILES), its module imported on first use."""
    module, cls = PROFILES[name]
    # __import__, not importlib.import_module: importlib's package imports `warnings` on every start-up.
    qualified = f"{__name__}.{module}"
    __import__(qualified)
    return getattr(sys.modules[qualified], cls)


def select(cfg, items: list) -> tuple[Profile, list[Problem]]:
    """The run's profile, and the problems of the kueueQueues option (checked whatever the profile,
    so that a malformed entry does not wait for the switch to `profile: kueue`)."""
    queues, bad = parse_queues(cfg.kueueQueues)
    problems = [Problem(m, "spec.kueueQueues", subject=cfg.source, rule=RULE_INVALID) for m in bad]
    return named(cfg.profile)(cfg, items, queues), problems
