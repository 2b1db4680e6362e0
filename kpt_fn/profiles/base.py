"""The profile interface: what happens around the engine for the cluster the output is meant for.

The engine renders what the Trainer controller would create; a profile may change the TrainJob the
engine sees (before_engine), note what its cluster does that the objects do not carry (unrendered),
change the objects and problems the engine gives back (after_engine), and add checks of a generated
JobSet (check). One profile is chosen per run (kpt_fn.profiles.select); each hook here changes
nothing, so a profile overrides only what it changes (the controller profile: its notes and Kueue's
leftovers; the Kueue profile, a controller profile without the controller).
"""

from __future__ import annotations


class Profile:
    """Hooks of an output profile. `cfg` is the run's FunctionConfig, `items` its input items (read
    before any is frozen), `queues` the parsed kueueQueues option ({namespace or "": queue})."""

    def __init__(self, cfg, items: list, queues: dict):
        self.cfg = cfg

    def before_engine(self, trainjob: dict) -> dict:
        """The TrainJob as the engine should see it."""
        return trainjob

    def after_engine(self, trainjob: dict, objects: list, problems: list) -> tuple[list, list]:
        """(objects, problems) from what the engine made of `trainjob` and the problems it reported."""
        return objects, problems

    def unrendered(self, trainjob: dict, objects: list) -> list:
        """Problems (notes) on what this profile's cluster does with `trainjob` (as the engine saw it)
        that its rendered `objects` do not carry; run right after the engine (kpt_fn.function.expand_through),
        so that a note is the profile's to give, never the engine's to be filtered out afterwards."""
        return []

    def check(self, trainjob: dict, jobset: dict, blame=None) -> list:
        """Problems of a generated JobSet; `blame` (kpt_fn.blame.Blame of the TrainJob and its runtime)
        finds the field a problem's rendered value was written in."""
        return []

    @staticmethod
    def update_refusals(live: dict, applied: dict) -> list:
        """What this profile's cluster refuses, beyond the JobSet's own rules, when the stored JobSet
        `live` is updated to `applied` (kpt_fn.lifecycle.classify: `diff --fail-on refused`)."""
        return []

    def created(self, jobset: dict) -> dict:
        """A generated JobSet, already in the form the cluster creates it in (kpt_fn.lifecycle.render),
        as this profile's cluster should receive it."""
        return jobset
