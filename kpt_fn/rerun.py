"""No rerun loops: a JobSet that deletes itself after it finishes, deployed by a client that puts back
what is missing, runs the training again.

`spec.ttlSecondsAfterFinished` (a runtime's `spec.template.spec`, copied into the JobSet) makes the
JobSet controller delete a finished JobSet (jobset v0.12.0 `pkg/controllers/ttl_after_finished.go`).
What happens next depends on who owns the JobSet:

- The rendered JobSet (render, KRM and kustomize modes) is applied by Argo CD, kubectl or kpt, and each
  of them creates it again when it is missing from the cluster: Argo CD auto-sync with selfHeal within
  seconds, and again after every TTL (argo-cd v3.5 `controller/appcontroller.go` autoSync; argo-cd#13851);
  without selfHeal at the next sync of a new revision; `kubectl apply` and `kpt live apply` at their
  next run. Each time, the training runs again from the start.
- A TrainJob deployed as such (validate mode) leaves its JobSet to the Trainer controller, which does
  not recreate the JobSet of a completed TrainJob (trainer v2.3.0 `pkg/controller/trainjob_controller.go`
  Reconcile skips finished TrainJobs; kubeflow/trainer#2981, fixed by #3013) but does for a failed one:
  Reconcile removes the Failed condition (removeFailedCondition, unless the deadline was exceeded)
  before that test, so the failed run starts again (kubeflow/trainer#3737, open at v2.3.0).

Hence a warning (an error under `strict`), never silence: no render is safe with a TTL.
"""

from __future__ import annotations

from kpt_fn import resource as res
from kpt_fn.problems import WARNING, Problem, Rule
from kpt_fn import upstream

RULE = "lifecycle/jobset-ttl-rerun"
RULES = [
    Rule(RULE, "TrainJob",
         "warning: the JobSet has spec.ttlSecondsAfterFinished: the JobSet controller deletes it once finished "
         "and Argo CD, kubectl or kpt create it again (the training reruns; argo-cd#13851); in validate mode, "
         "the Trainer controller reruns a failed TrainJob whose JobSet was deleted (kubeflow/trainer#3737)"),
]

RUNTIME_FIELD = "spec.template.spec.ttlSecondsAfterFinished"

_ALTERNATIVES = (
    "Instead: leave ttlSecondsAfterFinished out of the runtime and end a finished run by removing its "
    "TrainJob from Git (Argo CD prune or kpt live apply deletes the JobSet), or deploy the TrainJob itself "
    "to a cluster with the Trainer controller (validate mode), which does not rerun a completed TrainJob"
)


def check(jobset: dict, trainjob: dict, runtime: dict, mode: str, bundle: upstream.Bundle) -> list:
    """A warning when the generated `jobset` deletes itself after finishing, blamed on the runtime's
    field when the runtime sets it; `bundle`'s release is named in the message."""
    release = bundle.release
    spec = jobset.get("spec")
    ttl = spec.get("ttlSecondsAfterFinished") if isinstance(spec, dict) else None
    if ttl is None:
        return []
    from_runtime = res.dig(runtime, "spec", "template", "spec", "ttlSecondsAfterFinished") is not None
    source = f" (from {res.display(runtime)})" if from_runtime else ""
    who = f"JobSet {res.name(jobset)} of {res.display(trainjob)}"
    if mode == "validate":
        message = (
            f"{who} gets spec.ttlSecondsAfterFinished {ttl}{source}: the JobSet controller deletes the finished "
            f"JobSet, and the Trainer {release} controller creates it again for a failed TrainJob, which then runs "
            "again, after every TTL (kubeflow/trainer#3737; a completed TrainJob is not rerun). "
            "Instead: leave ttlSecondsAfterFinished out of the runtime, or delete failed TrainJobs yourself"
        )
    else:
        message = (
            f"{who} has spec.ttlSecondsAfterFinished {ttl}{source}: the JobSet controller deletes it "
            f"{ttl}s after it finishes, and Argo CD (auto-sync with selfHeal: within seconds; otherwise at the "
            "next sync), kubectl apply and kpt live apply create the missing JobSet again: the training "
            "reruns, for ever (kubeflow/trainer#2981, argo-cd#13851). " + _ALTERNATIVES
        )
    if from_runtime:
        return [Problem(message, RUNTIME_FIELD, severity=WARNING, subject=runtime, rule=RULE)]
    return [Problem(message, "spec", severity=WARNING, rule=RULE)]
