"""Values Trainer admits that cannot train (read at v2.3.0; v2.2.1 is the same): warnings, not errors (the API server takes them).

`numNodes` and `numProcPerNode` are `*int32` without a minimum in the v2.3.0 TrainJob API
(pkg/apis/trainer/v1alpha1/trainjob_types.go, TrainJob Trainer: no +kubebuilder:validation:Minimum on
either), and the TrainJob webhook (pkg/webhooks/trainjob_webhook.go) checks neither. So `numNodes: 0`
renders a trainer Job with parallelism and completions 0, which completes without running a pod, and
`numProcPerNode` below 1 reaches torchrun (PET_NPROC_PER_NODE) or MPI (slots per node) as a count of
processes no node can run. Negative `numNodes` is already an error (the Job API rejects a negative
parallelism) and is not repeated here.
"""

from __future__ import annotations

from kpt_fn.problems import WARNING, Problem, Rule
from kpt_fn import upstream

RULE_NUM_NODES = "admitted/num-nodes-zero"
RULE_NUM_PROC = "admitted/num-proc-per-node-below-one"

RULES = [
    Rule(RULE_NUM_NODES, "TrainJob",
         "warning: spec.trainer.numNodes is 0 (admitted by the selected Trainer release): the trainer Job runs no pod"),
    Rule(RULE_NUM_PROC, "TrainJob",
         "warning: spec.trainer.numProcPerNode is below 1 (admitted by the selected Trainer release): no node can run it"),
]


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def trainjob_warnings(trainjob: dict, bundle: upstream.Bundle) -> list:
    """Warnings for the TrainJob's admitted-but-useless trainer counts (none for absent or sound ones).
    `bundle`'s release is named in the messages (v2.2.1's API has no minimum either)."""
    release = bundle.release
    spec = trainjob.get("spec") if isinstance(trainjob, dict) else None
    trainer = spec.get("trainer") if isinstance(spec, dict) else None
    if not isinstance(trainer, dict):
        return []
    out = []
    if _int(trainer.get("numNodes")) == 0:
        out.append(Problem(
            f"numNodes 0: Trainer {release} admits it, but the trainer Job gets parallelism and completions 0 and "
            "completes without running a pod (nothing trains); write the number of nodes to train on (numNodes: 1 "
            "or more), or leave it out for the runtime's",
            "spec.trainer.numNodes", WARNING, rule=RULE_NUM_NODES))
    procs = _int(trainer.get("numProcPerNode"))
    if procs is not None and procs < 1:
        out.append(Problem(
            f"numProcPerNode {procs}: Trainer {release} admits it, but no node can run fewer than one process "
            "(torchrun's PET_NPROC_PER_NODE, MPI's slots per node); write 1 or more (numProcPerNode: 1), or leave "
            "it out for one process per GPU (per CPU without GPUs)",
            "spec.trainer.numProcPerNode", WARNING, rule=RULE_NUM_PROC))
    return out
