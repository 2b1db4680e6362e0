"""The `controller` profile: exactly the objects the Trainer controller creates."""

from __future__ import annotations

from kpt_fn.problems import INFO, WARNING, Problem, Rule
from kpt_fn.profiles.base import Profile
from kpt_fn.profiles.kueue_create import stale_runtime_patches
from kpt_fn.profiles.kueue_names import PRIORITY_LABEL, QUEUE_LABEL, RULE_LABEL_LOST, labels
from kpt_fn.profiles.kueue_tas import check_tas


RULE_DEADLINE = "trainer-controller/active-deadline-not-rendered"

RULES = [
    Rule(RULE_DEADLINE, "TrainJob",
         "info: spec.activeDeadlineSeconds is enforced by the controller and not part of the rendered objects"),
]


class Controller(Profile):
    def unrendered(self, trainjob: dict, objects: list) -> list:
        # The Trainer controller enforces activeDeadlineSeconds itself: its reconciler deletes the JobSet
        # once the deadline passes (pkg/controller/trainjob_controller.go reconcileDeadline at v2.3.0),
        # and the JobSet builder does not copy it (pkg/runtime/framework/plugins/jobset/jobset.go Build).
        # Said only of a TrainJob that renders objects: with none, there is nothing it is missing from.
        if not objects or (trainjob.get("spec") or {}).get("activeDeadlineSeconds") is None:
            return []
        return [Problem("activeDeadlineSeconds is enforced by the Trainer controller (it deletes the JobSet when "
                        "the deadline passes) and is not part of the rendered objects", "spec.activeDeadlineSeconds",
                        severity=INFO, rule=RULE_DEADLINE)]

    def after_engine(self, trainjob: dict, objects: list, problems: list) -> tuple[list, list]:
        # The controller renders nothing for Kueue, but Kueue's labels and runtime patches in Git are
        # lost on its JobSet: the user is told so.
        lost = stale_runtime_patches(trainjob)
        kept = sorted(k for k in (QUEUE_LABEL, PRIORITY_LABEL) if k in labels(trainjob))
        if kept and objects:
            lost.append(Problem(
                f"label(s) {', '.join(kept)} stay on the TrainJob: the Trainer controller does not copy them to "
                "the JobSet, so in a cluster without it Kueue never sees them; set `profile: kueue` to render a "
                "JobSet that Kueue manages", f"metadata.labels[{kept[0]}]", severity=WARNING, rule=RULE_LABEL_LOST))
        return objects, problems + lost

    def check(self, trainjob: dict, jobset: dict, blame=None) -> list:
        # Kueue's webhook checks TAS annotations on any JobSet it sees, whoever rendered it.
        return check_tas(jobset)
