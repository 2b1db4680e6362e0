"""The `controller` profile: exactly the objects the Trainer controller creates."""

from __future__ import annotations

from kpt_fn import kueue
from kpt_fn.profiles.base import Profile


class Controller(Profile):
    name = "controller"

    def after_engine(self, trainjob: dict, objects: list, problems: list) -> tuple[list, list]:
        # The controller renders nothing for Kueue, but Kueue's labels and runtime patches in Git are
        # lost on its JobSet: kpt_fn.kueue says so (kueue.prepare outside the kueue profile).
        objects, lost = kueue.prepare(trainjob, objects, self.name, {})
        return objects, problems + lost

    def check(self, trainjob: dict, jobset: dict) -> list:
        # Kueue's webhook checks TAS annotations on any JobSet it sees, whoever rendered it.
        return kueue.check_tas(jobset)
