"""Names and numbers several plugins share (upstream: pkg/constants and plugins/jobset/constants).

A plugin's own names (its env vars, volumes, rule ids) stay in its module.
"""

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
