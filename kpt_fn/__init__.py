"""expand-trainjobs: render Kubeflow Trainer v2.3.0 TrainJobs offline, as a KRM function."""

__version__ = "0.1.0"
