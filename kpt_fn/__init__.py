"""expand-trainjobs: render Kubeflow Trainer TrainJobs offline (v2.3.0, or v2.2.1 with trainerVersion), as a KRM function."""

__version__ = "0.1.0"
