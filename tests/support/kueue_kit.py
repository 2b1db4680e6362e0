"""Builders shared by the Kueue profile's tests (tests/behaviour/test_kueue_create_checks.py and the
ports of Kueue's own tests under tests/upstream/kueue/): a function run with a functionConfig, a
namespaced TrainingRuntime and its TrainJob, a LocalQueue, and a JobSet of given pod sets handed to
kueue_tas.check_tas."""

from __future__ import annotations

import copy
from kpt_fn.profiles import kueue_tas
from support.door import run_with

TAS = kueue_tas
RACK, BLOCK, HOST = "cloud.com/rack", "cloud.com/block", "kubernetes.io/hostname"
KUEUE = {"profile": "kueue", "kueueQueues": ["q"]}

def run(items, spec):
    fc = {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "metadata": {"name": "x"}, "spec": spec}
    return run_with(copy.deepcopy(items), fc)

def jobsets(outcome):
    return [o for r in outcome.rendered for o in r.objects if o.get("kind") == "JobSet"]

def found(outcome, rule):
    return [(r["severity"], r["message"]) for r in outcome.results if (r.get("tags") or {}).get("rule") == rule]

def runtime(labels=None, annotations=None, jobs=1, container=None):
    """A namespaced TrainingRuntime of `jobs` replicated jobs; the first is the trainer."""
    container = container or {"name": "node", "image": "img", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}
    replicated = []
    for i in range(jobs):
        step = {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"} if i == 0 else {}
        replicated.append({"name": "node" if i == 0 else f"aux-{i}", "template": {
            "metadata": {"labels": step},
            "spec": {"template": {"spec": {"containers": [copy.deepcopy(container) if i == 0 else
                                                          {"name": "aux", "image": "img", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}}}})
    metadata = {}
    if labels:
        metadata["labels"] = labels
    if annotations:
        metadata["annotations"] = annotations
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
            "metadata": {"name": "rt", "namespace": "ns"},
            "spec": {"mlPolicy": {"numNodes": 1}, "template": {"metadata": metadata, "spec": {"replicatedJobs": replicated}}}}

def trainjob(**spec):
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "job", "namespace": "ns"},
            "spec": {"runtimeRef": {"name": "rt", "kind": "TrainingRuntime"}, **spec}}

def tas(*pod_sets):
    """pod_sets: (annotations, pod count); one replicated job of that many pods each."""
    jobset = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "j"}, "spec": {"replicatedJobs": [
        {"name": f"rj{i}", "replicas": count, "template": {"spec": {"parallelism": 1, "completions": 1, "template": {
            "metadata": {"annotations": notes}, "spec": {"containers": []}}}}}
        for i, (notes, count) in enumerate(pod_sets)]}}
    return [(p.path, p.message) for p in kueue_tas.check_tas(jobset)]

def layers(*entries):
    return "[" + ",".join(f'{{"topology":"{t}","size":{s}}}' for t, s in entries) + "]"

def local_queue(name, namespace="ns", cq="cq"):
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": name, "namespace": namespace},
            "spec": {"clusterQueue": cq}}
