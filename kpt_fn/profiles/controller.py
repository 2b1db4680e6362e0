"""The `controller` profile: exactly the objects the Trainer controller creates."""

from __future__ import annotations

from kpt_fn.problems import WARNING, Problem
from kpt_fn.profiles.base import Profile
from kpt_fn.profiles.kueue_create import stale_runtime_patches
from kpt_fn.profiles.kueue_names import PRIORITY_LABEL, QUEUE_LABEL, RULE_LABEL_LOST, labels
from kpt_fn.profiles.kueue_tas import check_tas


class Controller(Profile):
    def after_engine(self, trainjob: dict, objects: list, problems: list) -> tuple[list, list]:
        # The controller renders nothing for Kueue, but Kueue's labels and runtime patches in Git are
        # lost on its JobSet: the user is told so.
        lost = stale_runtime_patches(trainjob)
        kept = sorted(k for k in (QUEUE_LABEL, PRIORITY_LABEL) if k in labels(trainjob))
        if kept and objects:
            lost.append(Problem(
                f"label(s) {', '.join(kept)} stay on the TrainJob: the Trainer controller does not copy them to "
                "the JobSet, so in a cluster without it Kueue never sees them; set `profile: kueue` to render a "
                "JobSet that Kueue manages", "metadata.labels", severity=WARNING, rule=RULE_LABEL_LOST))
        return objects, problems + lost

    def check(self, trainjob: dict, jobset: dict) -> list:
        # Kueue's webhook checks TAS annotations on any JobSet it sees, whoever rendered it.
        return check_tas(jobset)
