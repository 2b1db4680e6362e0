"""A tiny app for the tests of the CI outputs (validate --format, the pre-commit hooks, the GitHub
workflow): one TrainingRuntime and TrainJobs against it, as text, since those tests check line numbers.
Both are marked local-config, as they sit in Git on every route."""

from __future__ import annotations

RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: tiny
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  mlPolicy:
    numNodes: 1
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: busybox
"""


def trainjob(name: str = "mnist", nodes=None) -> str:
    """A TrainJob of the tiny runtime; with `nodes`, spec.trainer.numNodes is line 12."""
    text = f"""\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  runtimeRef:
    name: tiny
    kind: TrainingRuntime
"""
    return text if nodes is None else text + f"  trainer:\n    numNodes: {nodes}\n"
