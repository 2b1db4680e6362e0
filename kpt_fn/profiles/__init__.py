"""Output profiles, one module each, chosen once per run from the `profile` option (select).

A new profile is a module here with a subclass of base.Profile (or of another profile) and one line
in REGISTRY; the `profile` option's choices are config.PROFILES.
"""

from __future__ import annotations

from kpt_fn.problems import Problem
from kpt_fn.profiles.base import Profile
from kpt_fn.profiles.controller import Controller
from kpt_fn.profiles.kueue import Kueue, parse_queues

REGISTRY: dict[str, type[Profile]] = {
    "controller": Controller,
    "kueue": Kueue,
}


def select(cfg, items: list) -> tuple[Profile, list[Problem]]:
    """The run's profile, and the problems of the kueueQueues option (checked whatever the profile,
    so that a malformed entry does not wait for the switch to `profile: kueue`)."""
    queues, bad = parse_queues(cfg.kueueQueues)
    problems = [Problem(m, "spec.kueueQueues", subject=cfg.source) for m in bad]
    return REGISTRY[cfg.profile](cfg, items, queues), problems
