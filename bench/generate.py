"""A deterministic, realistic repository of N TrainJobs, as the ResourceList kpt would send.

The repository is what a platform team's GitOps repo looks like after a while: a Kptfile, one
Namespace per team, a few ClusterTrainingRuntimes of the platform team's own (gang-scheduled with
coscheduling or Volcano), a TrainingRuntime or two per team namespace, and the TrainJobs, spread over
the nine runtimes Trainer v2.3.0 ships and the custom ones. A share of the TrainJobs carry
`resourcesPerNode` and a share carry `runtimePatches` (labels, node selector, tolerations, a scratch volume).

Every item has the annotations kpt adds to items read from disk (path, index, id, in both the
internal and the legacy spelling), and the functionConfig is kpt's empty `function-input` ConfigMap.

Usage:
    python -m bench.generate -n 2000 -o /tmp/repo-2000.yaml
"""

from __future__ import annotations

import argparse
import copy
import os
import random
import sys

import yaml

API = "trainer.kubeflow.org/v1alpha1"
ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"
QUEUE = "scheduling.volcano.sh/queue-name"

# Runtimes and how often TrainJobs use them (weights). Names in SHIPPED come from the catalog.
SHIPPED_WEIGHTS = {
    "torch-distributed": 20,
    "torch-distributed-with-cache": 8,
    "torchtune-llama3.2-1b": 4,
    "torchtune-llama3.2-3b": 4,
    "torchtune-qwen2.5-1.5b": 4,
    "deepspeed-distributed": 6,
    "mlx-distributed": 4,
    "jax-distributed": 6,
    "xgboost-distributed": 6,
}
# (kind, name) of the custom runtimes; TrainingRuntimes exist once per team namespace.
CUSTOM_WEIGHTS = {
    ("ClusterTrainingRuntime", "platform-torch-gang"): 14,
    ("ClusterTrainingRuntime", "platform-deepspeed-volcano"): 6,
    ("TrainingRuntime", "team-torch"): 12,
    ("TrainingRuntime", "team-jax-volcano"): 6,
}
RESOURCES_SHARE = 0.35
PATCHES_SHARE = 0.25


def shipped_runtimes() -> dict:
    """name -> ClusterTrainingRuntime, from the function's built-in catalog (the default release's)."""
    from kpt_fn import upstream

    return {r["metadata"]["name"]: r for r in upstream.bundle(upstream.DEFAULT_RELEASE).catalog()}


def _family(runtime: dict) -> str:
    ml = runtime["spec"].get("mlPolicy") or {}
    for fw in ("torch", "mpi", "jax", "xgboost"):
        if fw in ml:
            return fw
    return "plain"


def _custom_runtime(base: dict, kind: str, name: str, namespace: str | None, framework: str) -> dict:
    rt = copy.deepcopy(base)
    rt["kind"] = kind
    rt["metadata"] = {"name": name, "labels": {"trainer.kubeflow.org/framework": framework}}
    if namespace:
        rt["metadata"]["namespace"] = namespace
    return rt


def _with_node_resources(rt: dict, cpu: str, memory: str) -> dict:
    for rj in rt["spec"]["template"]["spec"]["replicatedJobs"]:
        if rj["name"] == "node":
            for c in rj["template"]["spec"]["template"]["spec"]["containers"]:
                c["resources"] = {"requests": {"cpu": cpu, "memory": memory}, "limits": {"memory": memory}}
    return rt


def custom_runtimes(shipped: dict, namespaces: list) -> list:
    """The platform team's ClusterTrainingRuntimes and one set of TrainingRuntimes per namespace."""
    out = []
    gang = _with_node_resources(
        _custom_runtime(shipped["torch-distributed"], "ClusterTrainingRuntime", "platform-torch-gang", None, "torch"),
        "4", "16Gi",
    )
    gang["spec"]["podGroupPolicy"] = {"coscheduling": {"scheduleTimeoutSeconds": 120}}
    out.append(gang)
    volcano = _custom_runtime(
        shipped["deepspeed-distributed"], "ClusterTrainingRuntime", "platform-deepspeed-volcano", None, "deepspeed"
    )
    volcano["spec"]["podGroupPolicy"] = {"volcano": {}}
    volcano["spec"]["template"].setdefault("metadata", {})["annotations"] = {QUEUE: "training"}
    out.append(volcano)
    for ns in namespaces:
        team = _with_node_resources(
            _custom_runtime(shipped["torch-distributed-with-cache"], "TrainingRuntime", "team-torch", ns, "torch"),
            "2", "8Gi",
        )
        out.append(team)
        jax = _custom_runtime(shipped["jax-distributed"], "TrainingRuntime", "team-jax-volcano", ns, "jax")
        jax["spec"]["podGroupPolicy"] = {"volcano": {}}
        jax["spec"]["template"].setdefault("metadata", {})["annotations"] = {QUEUE: ns}
        out.append(jax)
    return out


def _trainer(rng: random.Random, family: str, runtime_name: str) -> dict:
    env = [{"name": "EPOCHS", "value": str(rng.randint(1, 50))}, {"name": "LOG_LEVEL", "value": rng.choice(["info", "debug"])}]
    if family == "torch" and runtime_name.startswith("torchtune-"):
        trainer = {"command": ["tune", "run"], "args": [f"batch_size={rng.choice([2, 4, 8])}", "epochs=1"], "numNodes": 1}
    elif family == "torch":
        trainer = {
            "image": f"registry.example.com/ml/train-torch:{rng.randint(1, 40)}.{rng.randint(0, 9)}",
            "command": ["torchrun", "/workspace/train.py"],
            "args": ["--lr", f"{rng.choice([1, 2, 5])}e-{rng.randint(3, 5)}", "--batch-size", str(rng.choice([16, 32, 64]))],
            "numNodes": rng.randint(1, 4),
        }
        if rng.random() < 0.5:
            trainer["numProcPerNode"] = rng.choice([1, 2, 4, 8])
    elif family == "mpi":
        trainer = {"numNodes": rng.randint(2, 4), "args": ["python3", "/workspace/train.py", "--deepspeed"]}
    elif family == "jax":
        trainer = {"image": "registry.example.com/ml/train-jax:0.4.30", "command": ["python3", "/workspace/train.py"], "numNodes": rng.randint(1, 4)}
    else:
        trainer = {"image": "registry.example.com/ml/train-xgb:2.1", "command": ["python3", "/workspace/train.py"], "numNodes": rng.randint(1, 4)}
    trainer["env"] = env
    return trainer


def _resources(rng: random.Random, torchtune: bool) -> dict:
    gpus = rng.choice([1, 2]) if torchtune else rng.choice([1, 2, 4, 8])
    out = {"limits": {"nvidia.com/gpu": gpus}}
    if not torchtune:
        out["requests"] = {"cpu": str(rng.choice([4, 8, 16])), "memory": f"{rng.choice([16, 32, 64])}Gi"}
        out["limits"]["memory"] = out["requests"]["memory"]
    return out


def _patches(rng: random.Random, team: str) -> list:
    pod_spec = {
        "nodeSelector": {"node.example.com/pool": rng.choice(["a100", "h100", "l4"])},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        # Env on the trainer containers is the TrainJob's business (upstream rejects it in patches).
        "volumes": [{"name": "scratch", "emptyDir": {"sizeLimit": f"{rng.choice([50, 100, 200])}Gi"}}],
        "containers": [{"name": "node", "volumeMounts": [{"name": "scratch", "mountPath": "/scratch"}]}],
    }
    patch = {
        "manager": "platform.example.com/gitops",
        "trainingRuntimeSpec": {
            "template": {
                "metadata": {"labels": {"example.com/team": team}},
                "spec": {
                    "replicatedJobs": [
                        {
                            "name": "node",
                            "template": {
                                "metadata": {"annotations": {"example.com/cost-center": f"cc-{rng.randint(100, 999)}"}},
                                "spec": {"template": {"metadata": {"labels": {"example.com/team": team}}, "spec": pod_spec}},
                            },
                        }
                    ]
                },
            }
        },
    }
    out = [patch]
    if rng.random() < 0.3:
        out.append({
            "manager": "kueue.x-k8s.io/manager",
            "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [{
                "name": "node",
                "template": {"spec": {"template": {"spec": {"schedulingGates": [{"name": "kueue.x-k8s.io/admission"}]}}}},
            }]}}},
        })
    return out


class _Annotator:
    """kpt's per-item annotations: path and index (both spellings), and a running id."""

    def __init__(self):
        self.next_id = 1
        self.index: dict[str, int] = {}

    def __call__(self, obj: dict, path: str) -> dict:
        i = self.index.get(path, 0)
        self.index[path] = i + 1
        n = str(self.next_id)
        self.next_id += 1
        ann = obj.setdefault("metadata", {}).setdefault("annotations", {})
        ann.update({
            "config.kubernetes.io/index": str(i),
            "config.kubernetes.io/path": path,
            "internal.config.kubernetes.io/index": str(i),
            "internal.config.kubernetes.io/path": path,
            "internal.config.kubernetes.io/seqindent": "compact",
            "internal.config.kubernetes.io/id": n,
            "config.k8s.io/id": n,
        })
        return obj


def namespaces_for(n: int) -> list:
    count = max(2, min(50, n // 100))
    return [f"team-{i:02d}" for i in range(count)]


def generate(n: int = 2000, seed: int = 0) -> dict:
    """A config.kubernetes.io/v1 ResourceList holding a repository of `n` TrainJobs."""
    rng = random.Random(f"expand-trainjobs-bench/{seed}/{n}")
    shipped = shipped_runtimes()
    namespaces = namespaces_for(n)
    annotate = _Annotator()
    items = [annotate({
        "apiVersion": "kpt.dev/v1",
        "kind": "Kptfile",
        "metadata": {"name": "training", "annotations": {"config.kubernetes.io/local-config": "true"}},
        "info": {"description": "TrainJobs of every team"},
        "pipeline": {"mutators": [{"exec": "expand-trainjobs"}]},
    }, "Kptfile")]
    for ns in namespaces:
        items.append(annotate({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}, f"{ns}/namespace.yaml"))
    for rt in custom_runtimes(shipped, namespaces):
        ns = rt["metadata"].get("namespace")
        path = f"{ns}/runtimes.yaml" if ns else "platform/runtimes.yaml"
        items.append(annotate(rt, path))

    choices = [("ClusterTrainingRuntime", name) for name in SHIPPED_WEIGHTS] + list(CUSTOM_WEIGHTS)
    weights = list(SHIPPED_WEIGHTS.values()) + list(CUSTOM_WEIGHTS.values())
    custom = {name: rt for name, rt in ((r["metadata"]["name"], r) for r in custom_runtimes(shipped, namespaces[:1]))}
    for i in range(n):
        ns = namespaces[i % len(namespaces)]
        kind, rt_name = rng.choices(choices, weights)[0]
        runtime = shipped.get(rt_name) or custom[rt_name]
        family = _family(runtime)
        torchtune = rt_name.startswith("torchtune-")
        name = f"{runtime['metadata']['labels']['trainer.kubeflow.org/framework']}-{i:05d}"
        ref = {"name": rt_name}
        if kind == "TrainingRuntime":
            ref = {"apiGroup": "trainer.kubeflow.org", "kind": "TrainingRuntime", "name": rt_name}
        spec = {"runtimeRef": ref, "trainer": _trainer(rng, family, rt_name)}
        if torchtune:  # the runtimes whose initializers mount the `initializer` volume
            spec["initializer"] = {
                "dataset": {"storageUri": rng.choice(["hf://tatsu-lab/alpaca", "hf://openai/gsm8k"])},
                "model": {"storageUri": "hf://meta-llama/Llama-3.2-1B-Instruct"},
            }
        if rng.random() < RESOURCES_SHARE:
            spec["trainer"]["resourcesPerNode"] = _resources(rng, torchtune)
        if rng.random() < PATCHES_SHARE:
            spec["runtimePatches"] = _patches(rng, ns)
        tj = {
            "apiVersion": API,
            "kind": "TrainJob",
            "metadata": {"name": name, "namespace": ns, "labels": {"example.com/team": ns, "example.com/project": f"p{i % 37}"}},
            "spec": spec,
        }
        items.append(annotate(tj, f"{ns}/trainjobs/{name}.yaml"))
    return {
        "apiVersion": "config.kubernetes.io/v1",
        "kind": "ResourceList",
        "items": items,
        "functionConfig": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "function-input"}, "data": {}},
    }


def to_yaml(resource_list: dict) -> bytes:
    """Block YAML as kpt writes it; strings a YAML 1.2 reader would retype (`2e-3`) are quoted."""
    return yaml.dump(resource_list, Dumper=_dumper(), sort_keys=False, default_flow_style=False, width=1 << 30).encode()


def _dumper():
    try:
        from kpt_fn.yamlio import Dumper
    except ImportError:  # pragma: no cover - the harness also runs against older trees
        Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return Dumper


def write_app(resource_list: dict, app_dir: str) -> list:
    """The repository as the directory in Git that an Argo CD app points at: each item in the file kpt
    named (several items in a file as a multi-document stream), without kpt's annotations, without the
    Kptfile. Returns the relative paths written."""
    files: dict[str, list] = {}
    for item in resource_list["items"]:
        if item.get("kind") == "Kptfile":
            continue
        item = copy.deepcopy(item)
        ann = item["metadata"].get("annotations") or {}
        path = ann.get("internal.config.kubernetes.io/path")
        for key in [k for k in ann if "config.kubernetes.io/" in k or k == "config.k8s.io/id"]:
            del ann[key]
        if not ann:
            item["metadata"].pop("annotations", None)
        files.setdefault(path, []).append(item)
    for path, docs in files.items():
        target = os.path.join(app_dir, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w") as f:
            yaml.dump_all(docs, f, Dumper=_dumper(), sort_keys=False, default_flow_style=False, width=1 << 30)
    return sorted(files)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-n", type=int, default=2000, help="number of TrainJobs (default 2000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-o", "--output", default="-", help="file to write (default: stdout)")
    args = p.parse_args(argv)
    data = to_yaml(generate(args.n, args.seed))
    if args.output == "-":
        sys.stdout.buffer.write(data)
    else:
        with open(args.output, "wb") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
