"""Runtimes and TrainJobs written as plain dicts for the admission tests: the templates upstream's
plugin tests build as an Info by hand (pkg/runtime/framework/plugins/*/*_test.go at v2.3.0), written here
as the runtime a user would have, so that they go through the whole engine."""

from __future__ import annotations

from kpt_fn.problems import ERROR

ANC = "trainer.kubeflow.org/trainjob-ancestor-step"


def job(name, containers=(), init=(), ancestor=None, mounts=None, priority_class=None):
    pod = {"containers": [{"name": c, **({"volumeMounts": [{"name": m, "mountPath": f"/{m}"} for m in mounts]}
                                       if mounts else {})} for c in containers]}
    if init:
        pod["initContainers"] = [{"name": c} for c in init]
    if priority_class:
        pod["priorityClassName"] = priority_class
    rj = {"name": name, "template": {"spec": {"template": {"spec": pod}}}}
    if ancestor:
        rj["template"]["metadata"] = {"labels": {ANC: ancestor}}
    return rj


def runtime(*jobs, ml_policy=None, pod_group_policy=None, kind="TrainingRuntime", name="test-runtime",
            annotations=None, labels=None):
    spec = {"template": {"spec": {"replicatedJobs": list(jobs)}}}
    if annotations:
        spec["template"]["metadata"] = {"annotations": annotations}
    if ml_policy is not None:
        spec["mlPolicy"] = ml_policy
    if pod_group_policy is not None:
        spec["podGroupPolicy"] = pod_group_policy
    md = {"name": name}
    if kind == "TrainingRuntime":
        md["namespace"] = "default"
    if labels:
        md["labels"] = labels
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": kind, "metadata": md, "spec": spec}


def trainjob(runtime_name="test-runtime", kind="TrainingRuntime", **spec):
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": "test", "namespace": "default"},
            "spec": {"runtimeRef": {"name": runtime_name, "kind": kind}, **spec}}


def errors(problems):
    return [(p.path, p.message) for p in problems if p.severity == ERROR]


def patch(manager, **pod_spec):
    return {"manager": manager, "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [
        {"name": "node", "template": {"spec": {"template": {"spec": pod_spec}}}}]}}}}


NODE = job("node", ["node"], ancestor="trainer")
TORCH = {"torch": {}}


def tune(runtime_name, num_nodes=1, args=None, requests=None, nproc=None):
    trainer = {"numNodes": num_nodes, "image": "ghcr.io/kubeflow/trainer/torchtune-trainer", "command": ["tune", "run"],
               "resourcesPerNode": {"requests": requests or {}}}
    if args is not None:
        trainer["args"] = args
    if nproc is not None:
        trainer["numProcPerNode"] = nproc
    return trainjob(runtime_name=runtime_name, kind="ClusterTrainingRuntime", trainer=trainer)


def tune_runtime(name):
    return runtime(NODE, ml_policy=TORCH, kind="ClusterTrainingRuntime", name=name)


LORA = "model.lora_attn_modules=[q_proj, v_proj, output_proj]"
