"""What will really run: the pod sets of a rendered JobSet, with their pod counts and what each pod asks
for. Kueue's quota check, the policy guardrails and the review report all read the rendered objects
through this module, so they count pods and requests the same way."""

from __future__ import annotations

from kpt_fn import quantity
from kpt_fn.engine import framework
from kpt_fn.resource import dig
from kpt_fn.trainer_names import ANCESTOR_LABEL, TRAINER

POD_SPEC = ("template", "spec", "template", "spec")
POD_META = ("template", "spec", "template", "metadata")


class PodSet:
    """One replicated job of a JobSet: `count` pods (Kueue's count: replicas x min(parallelism,
    completions)) of one pod template."""

    __slots__ = ("index", "name", "count", "pod", "step")

    def __init__(self, index: int, replicated_job: dict):
        self.index = index
        self.name = replicated_job.get("name")
        self.count = pod_count(replicated_job)
        self.pod = dig(replicated_job, *POD_SPEC) or {}
        self.step = dig(replicated_job, "template", "metadata", "labels", ANCESTOR_LABEL)

    @property
    def path(self) -> str:
        return f"spec.replicatedJobs[{self.index}].template.spec.template.spec"

    def containers(self):
        """(field, index, container) for init containers and containers."""
        for field in ("initContainers", "containers"):
            for i, c in enumerate(self.pod.get(field) or ()):
                if isinstance(c, dict):
                    yield field, i, c

    def requests(self) -> dict:
        return pod_requests(self.pod)


def pods_per_replica(replicated_job: dict) -> int:
    job = dig(replicated_job, "template", "spec") or {}
    parallelism = job.get("parallelism", 1)
    completions = job.get("completions", parallelism)
    return min(parallelism, completions) if isinstance(completions, int) else parallelism


def pod_count(replicated_job: dict) -> int:
    return replicated_job.get("replicas", 1) * pods_per_replica(replicated_job)


def pod_sets(jobset: dict) -> list[PodSet]:
    return [PodSet(i, rj) for i, rj in enumerate(dig(jobset, "spec", "replicatedJobs") or ()) if isinstance(rj, dict)]


def _container_requests(container: dict) -> dict:
    res = container.get("resources") or {}
    out = {k: quantity.parse(v) for k, v in (res.get("limits") or {}).items()}
    out.update({k: quantity.parse(v) for k, v in (res.get("requests") or {}).items()})
    # A negative quantity is an error of its own (k8s/resources); counted as zero, it cannot cancel
    # what another container asks for (16 GPUs and -16 GPUs are not "no GPUs").
    return {k: v if v.nanos >= 0 else quantity.ZERO for k, v in out.items()}


def pod_requests(pod: dict) -> dict:
    """Per resource, what one pod asks for, as Kubernetes' PodRequests counts it: max(containers plus
    restartable init containers, the peak of the init phase) plus overhead; limits stand in for
    missing requests; pod-level resources, when set, win."""
    zero = quantity.Quantity
    total: dict = {}
    for c in pod.get("containers") or ():
        for k, v in _container_requests(c).items():
            total[k] = total.get(k, zero()) + v
    sidecars: dict = {}  # restartable init containers started so far: they keep running
    init_peak: dict = {}
    for c in pod.get("initContainers") or ():
        req = _container_requests(c)
        if c.get("restartPolicy") == "Always":
            for k, v in req.items():
                sidecars[k] = sidecars.get(k, zero()) + v
            running = sidecars
        else:
            running = {k: v + sidecars.get(k, zero()) for k, v in req.items()}
        for k, v in running.items():
            init_peak[k] = max(init_peak.get(k, zero()), v)
    for k, v in sidecars.items():
        total[k] = total.get(k, zero()) + v
    for k, v in init_peak.items():
        total[k] = max(total.get(k, zero()), v)
    pod_level = pod.get("resources")
    if isinstance(pod_level, dict):
        total.update(_container_requests({"resources": pod_level}))
    for k, v in (pod.get("overhead") or {}).items():
        total[k] = total.get(k, zero()) + quantity.parse(v)
    return total


def training_node_test(runtime: dict | None):
    """Which pod sets are training nodes (a predicate on PodSet): the pods of the job labelled trainer,
    unless a plugin the runtime switches on says otherwise through its TRAINING_NODES(runtime) (MPI's
    nodes are not all in the trainer-labelled job). The same in every release (one plugin registry)."""
    spec = runtime.get("spec") if isinstance(runtime, dict) else None
    if isinstance(spec, dict) and all(isinstance(spec.get(p) or {}, dict) for p in ("mlPolicy", "podGroupPolicy")):
        for plugin in framework.default().enabled(spec):
            test = getattr(plugin, "TRAINING_NODES", None)
            answer = test(runtime) if test is not None else None
            if answer is not None:
                return answer
    return lambda ps: ps.step == TRAINER


def is_gpu(resource: str) -> bool:
    """A GPU resource name, by Trainer's own test (the lower-cased name contains "gpu")."""
    return "gpu" in resource.lower()


def gpus(requests: dict) -> int:
    """All GPUs in a requests map, whatever their vendor resource name (rounded up)."""
    return sum(quantity.ceil_value(v) for k, v in requests.items() if is_gpu(k))


def totals(jobset: dict) -> dict:
    """Per resource, what every pod of the JobSet asks for together."""
    out: dict = {}
    for ps in pod_sets(jobset):
        for k, v in ps.requests().items():
            out[k] = out.get(k, quantity.Quantity()) + v * ps.count
    return out
