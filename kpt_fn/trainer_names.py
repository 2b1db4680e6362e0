"""Trainer's names, written once (the role upstream's pkg/constants and plugins/jobset/constants play):
the labels, job and container names, port and Downward API path that the engine, its plugins, the
validation, the legacy conversion and the workload view all read. A plugin's own names (its env vars,
volumes, rule ids) stay in its module. A leaf: it imports nothing.
"""

# The label that says which step of a TrainJob a replicated job runs (upstream LabelTrainJobAncestor).
ANCESTOR_LABEL = "trainer.kubeflow.org/trainjob-ancestor-step"

# The ancestor step of the trainer job (label trainer.kubeflow.org/trainjob-ancestor-step).
TRAINER = "trainer"
# The trainer's job and container name: torchrun, JAX, XGBoost and MPI address `<tj>-node-0-0`.
NODE = "node"
# The initializer jobs' ancestor steps, which are also their job and container names.
DATASET_INITIALIZER = "dataset-initializer"
MODEL_INITIALIZER = "model-initializer"

# The port trainer nodes talk on (upstream ContainerTrainerPort): torch master, JAX coordinator,
# XGBoost tracker, torchtune rendezvous.
PORT = 29500
# Each pod's index within its Job, read by the Downward API (upstream JobCompletionIndexFieldPath).
COMPLETION_INDEX = "metadata.annotations['batch.kubernetes.io/job-completion-index']"

# The project's own names. Set to anything but "" or a spelling Go's strconv.ParseBool reads as false
# (debugging() below), an internal error propagates with its traceback instead of becoming an error result.
DEBUG_ENV = "EXPAND_TRAINJOBS_DEBUG"
# Every line the command writes to stderr begins with it.
OUTPUT_PREFIX = "expand-trainjobs: "


def debugging(env) -> bool:
    """Whether DEBUG_ENV asks for tracebacks: set, and not one of ParseBool's false spellings (`0`,
    `f`, `false`, `False`, ...). A value ParseBool cannot read (`yes`) asks for them too: someone set
    the variable to see more. The command line and the run read it alike."""
    value = env.get(DEBUG_ENV, "")
    if not value:
        return False
    from kpt_fn.strconv import parse_bool  # only when the variable is set

    return parse_bool(value) is not False
# The TrainJob annotation that waives one policy rule: `<prefix><rule name>: <reason>` (kpt_fn.policy
# reads it, the review report shows it beside the finding it waives).
WAIVER_PREFIX = "waive.expand-trainjobs.kpt.dev/"
