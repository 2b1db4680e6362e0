"""Every object the cluster creates for one TrainJob, as it is when the API server admits it, with
the request that creates it.

The rendered output (the JobSet in its created form, the PodGroup, ConfigMaps, Secrets) and the
TrainJob are applied by whoever applies the repository (`applier`). The JobSet controller then
creates each replicated job's Jobs, and the Job controller each Job's Pods:

- Jobs: kubernetes-sigs/jobset v0.12.0 pkg/controllers/jobset_controller.go constructJob (:938-975)
  and labelAndAnnotateObject (:1014-1080): name `<jobset>-<replicatedJob>-<index>`
  (pkg/util/placement/placement.go GenJobName), the replicated job template's labels and
  annotations plus the JobSet's (jobset-name, jobset-uid, replicatedjob-name, restart-attempt,
  replicatedjob-replicas, global-replicas, job-index, job-key, job-global-index, group-name,
  group-replicas, job-group-index; the coordinator with spec.coordinator; the exclusive-placement
  annotations) on the Job and its pod template, the subdomain (GetSubdomain :1082) with
  enableDNSHostnames, suspend from the JobSet, the node-selector strategy of exclusive placement.
  job-restart-attempt is behind the RestartJob gate, off by default (pkg/features/features.go :73).
- Pods: kubernetes pkg/controller/job/indexed_job_utils.go (addCompletionIndexEnvVariables,
  addCompletionIndexAnnotation, addCompletionIndexLabel, podGenerateNameWithIndex) and
  job_controller.go (hostname `<job>-<index>` for Indexed Jobs, the controller owner reference and
  the job-tracking finalizer): generateName `<job>-<index>-` and the name the API server generates
  from it before validation (five random characters: a stand-in, defaults.RANDOM_SUFFIX).

Bounding the count: the pods of one Job differ only in their completion index (name, hostname, the
index label and annotation), the Jobs of one replicated job only in their job index. Each
replicated job's first `SAMPLE` Jobs and its last are judged, and of each the first `SAMPLE` pods
and the last; `Child.elided` says how many were not, and evaluate reports it once per TrainJob.
"""

from __future__ import annotations

import hashlib

from kpt_fn.admission import defaults
from kpt_fn.resource import dig, private_copy

SAMPLE = 3
APPLIER, JOBSET_CONTROLLER, JOB_CONTROLLER = "applier", "jobset-controller", "job-controller"
# Who creates what, by default (the `admissionUsers` option changes them): Argo CD's application
# controller applies the repository; the JobSet controller's and kube-controller-manager's Job
# controller service accounts as installed by their manifests.
USERS = {
    APPLIER: "system:serviceaccount:argocd:argocd-application-controller",
    JOBSET_CONTROLLER: "system:serviceaccount:jobset-system:jobset-controller-manager",
    JOB_CONTROLLER: "system:serviceaccount:kube-system:job-controller",
}
_JS = "jobset.sigs.k8s.io/"
_COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
_EXCLUSIVE = "alpha.jobset.sigs.k8s.io/exclusive-topology"
_NODE_SELECTOR_STRATEGY = "alpha.jobset.sigs.k8s.io/node-selector"
# The plural resource of each kind a TrainJob creates (their CRDs' and core's names).
_RESOURCES = {"Pod": "pods", "Job": "jobs", "ConfigMap": "configmaps", "Secret": "secrets", "JobSet": "jobsets",
              "TrainJob": "trainjobs", "PodGroup": "podgroups", "Namespace": "namespaces"}


class Child:
    """One object at its admission: the object, how findings name it, the request, the JobSet
    path its values came from (for kpt_fn.blame), and how many like it were not judged."""

    __slots__ = ("obj", "label", "request", "creator", "origin", "elided")

    def __init__(self, obj, label, creator, origin=None, elided=0):
        self.obj, self.label, self.creator, self.origin, self.elided = obj, label, creator, origin, elided
        self.request = request(obj)

    def __repr__(self):
        return f"Child({self.label})"


def resource_of(kind: str) -> str:
    """The plural resource of a kind: the known ones, else the RESTMapper's guess (lowercase, plural)."""
    if kind in _RESOURCES:
        return _RESOURCES[kind]
    low = kind.lower()
    if low.endswith("s"):
        return low + "es"
    if low.endswith("y"):
        return low[:-1] + "ies"
    return low + "s"


def request(obj: dict) -> dict:
    """The request attributes matching reads (kpt_fn.admission.match), for a CREATE of `obj`."""
    api_version = obj.get("apiVersion") or ""
    group, _, version = api_version.rpartition("/")
    md = obj.get("metadata") or {}
    return {"group": group, "version": version, "resource": resource_of(obj.get("kind") or ""), "subResource": "",
            "namespace": md.get("namespace") or "", "name": md.get("name") or "", "operation": "CREATE",
            "kind": obj.get("kind") or "", "gvk": (group, version, obj.get("kind") or "")}


def _show(kind, name) -> str:
    return f"{kind} `{name}`"


def _count(jobset: dict, key: str, value, upto=None) -> int:
    """How many Jobs the replicated jobs before `upto` (all, when None) with rjob[key] == value hold."""
    total = 0
    for rj in dig(jobset, "spec", "replicatedJobs") or ():
        if upto is not None and rj is upto:
            break
        if value is None or rj.get(key) == value:
            total += rj.get("replicas", 1)
    return total


def _jobset_marks(jobset: dict, rj: dict, index: int, job_name: str) -> dict:
    """labelAndAnnotateObject's keys (the same set as labels and as annotations)."""
    ns = dig(jobset, "metadata", "namespace") or ""
    group = rj.get("groupName", "default")
    marks = {
        _JS + "jobset-name": dig(jobset, "metadata", "name"), _JS + "jobset-uid": defaults.UNKNOWN_UID,
        _JS + "replicatedjob-name": rj.get("name"), _JS + "restart-attempt": "0",
        _JS + "replicatedjob-replicas": str(rj.get("replicas", 1)),
        _JS + "global-replicas": str(_count(jobset, "name", None)),
        _JS + "job-index": str(index),
        _JS + "job-key": hashlib.sha1(f"{ns}/{job_name}".encode()).hexdigest(),
        _JS + "job-global-index": str(_count(jobset, "name", None, rj) + index),
        _JS + "group-name": group, _JS + "group-replicas": str(_count(jobset, "groupName", group)),
        _JS + "job-group-index": str(_count(jobset, "groupName", group, rj) + index),
    }
    coordinator = dig(jobset, "spec", "coordinator")
    if isinstance(coordinator, dict):
        marks[_JS + "coordinator"] = (f"{dig(jobset, 'metadata', 'name')}-{coordinator.get('replicatedJob')}-"
                                      f"{coordinator.get('jobIndex', 0)}-{coordinator.get('podIndex', 0)}.{_subdomain(jobset)}")
    return marks


def _subdomain(jobset: dict) -> str:
    return dig(jobset, "spec", "network", "subdomain") or dig(jobset, "metadata", "name")


def _label(obj: dict, marks: dict, jobset: dict, rj: dict) -> None:
    md = obj.setdefault("metadata", {})
    md["labels"] = {**(md.get("labels") or {}), **marks}
    notes = {**(md.get("annotations") or {}), **marks}
    for source in (dig(jobset, "metadata", "annotations") or {}, dig(rj, "template", "metadata", "annotations") or {}):
        if _EXCLUSIVE in source:
            notes[_EXCLUSIVE] = source[_EXCLUSIVE]
            if _NODE_SELECTOR_STRATEGY in source:
                notes[_NODE_SELECTOR_STRATEGY] = source[_NODE_SELECTOR_STRATEGY]
    md["annotations"] = notes


def job(jobset: dict, rj: dict, index: int) -> dict:
    """constructJob: the Job the JobSet controller creates, after the API server's defaulting."""
    name = f"{dig(jobset, 'metadata', 'name')}-{rj.get('name')}-{index}"
    template = private_copy(rj.get("template") or {})
    obj = {"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": name, "namespace": dig(jobset, "metadata", "namespace") or "",
                        **{k: v for k, v in (template.get("metadata") or {}).items() if k in ("labels", "annotations")}},
           "spec": template.get("spec") or {}}
    marks = _jobset_marks(jobset, rj, index, name)
    _label(obj, marks, jobset, rj)
    pod_template = obj["spec"].setdefault("template", {})
    _label(pod_template, marks, jobset, rj)
    pod = pod_template.setdefault("spec", {})
    if dig(jobset, "spec", "network", "enableDNSHostnames"):
        pod["subdomain"] = _subdomain(jobset)
    notes = obj["metadata"]["annotations"]
    if _EXCLUSIVE in notes and _NODE_SELECTOR_STRATEGY in notes:
        pod.setdefault("nodeSelector", {})["alpha.jobset.sigs.k8s.io/namespaced-job"] = f"{obj['metadata']['namespace']}_{name}"
        pod.setdefault("tolerations", []).append(
            {"key": "alpha.jobset.sigs.k8s.io/no-schedule", "operator": "Exists", "effect": "NoSchedule"})
    obj["spec"]["suspend"] = bool(dig(jobset, "spec", "suspend"))
    defaults.job(obj)
    return obj


def pod(job_obj: dict, index: int) -> dict:
    """The Pod the Job controller creates for completion `index` (Indexed) or its `index`-th pod,
    after the API server's defaulting and built-in mutating admission."""
    spec = job_obj["spec"]
    template = private_copy(spec.get("template") or {})
    md = template.get("metadata") or {}
    name = job_obj["metadata"]["name"]
    obj = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"namespace": job_obj["metadata"]["namespace"],
                        "labels": dict(md.get("labels") or {}), "annotations": dict(md.get("annotations") or {}),
                        "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": name, "uid": defaults.UNKNOWN_UID,
                                             "controller": True, "blockOwnerDeletion": True}],
                        "finalizers": ["batch.kubernetes.io/job-tracking"]},
           "spec": template.get("spec") or {}}
    if spec.get("completionMode") == "Indexed":
        obj["metadata"]["annotations"][_COMPLETION_INDEX] = str(index)
        obj["metadata"]["labels"][_COMPLETION_INDEX] = str(index)
        obj["spec"]["hostname"] = f"{name}-{index}"
        suffix = f"-{index}-"
        prefix = name + suffix
        if len(prefix) > 58:  # names.MaxGeneratedNameLength
            prefix = prefix[:58 - len(suffix)] + suffix
        for field in ("initContainers", "containers"):
            for c in obj["spec"].get(field) or ():
                if isinstance(c, dict) and not any(isinstance(e, dict) and e.get("name") == "JOB_COMPLETION_INDEX" for e in c.get("env") or ()):
                    c.setdefault("env", []).append({"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
                        "apiVersion": "v1", "fieldPath": f"metadata.labels['{_COMPLETION_INDEX}']"}}})
    else:
        prefix = name + "-"
    obj["metadata"]["generateName"] = prefix
    obj["metadata"]["name"] = prefix + defaults.RANDOM_SUFFIX
    defaults.pod_spec(obj["spec"])
    defaults.pod_admission(obj)
    return obj


def _sampled(n: int) -> list:
    """The indexes judged of `n`: the first SAMPLE and the last."""
    return sorted(set(range(min(n, SAMPLE))) | ({n - 1} if n > 0 else set()))


def created(trainjob: dict, objects: list) -> list:
    """The Children of one TrainJob: the TrainJob, every rendered object, and the Jobs and Pods of
    each JobSet (sampled as the module says)."""
    out = [Child(trainjob, _show("TrainJob", dig(trainjob, "metadata", "name")), APPLIER)]
    for obj in objects:
        out.append(Child(obj, _show(obj.get("kind"), dig(obj, "metadata", "name")), APPLIER))
        if obj.get("kind") != "JobSet":
            continue
        for r, rj in enumerate(dig(obj, "spec", "replicatedJobs") or ()):
            if not isinstance(rj, dict):
                continue
            replicas = rj.get("replicas", 1)
            job_indexes = _sampled(replicas)
            for j in job_indexes:
                job_obj = job(obj, rj, j)
                job_label = _show("Job", job_obj["metadata"]["name"])
                out.append(Child(job_obj, f"{job_label} of JobSet `{dig(obj, 'metadata', 'name')}`", JOBSET_CONTROLLER,
                                 (obj, r, "job"), replicas - len(job_indexes) if j == job_indexes[-1] else 0))
                job_spec = job_obj["spec"]
                parallelism = job_spec.get("parallelism", 1)
                completions = job_spec.get("completions")
                pods = min(parallelism, completions) if isinstance(completions, int) else parallelism
                pod_indexes = _sampled(pods)
                for p in pod_indexes:
                    pod_obj = pod(job_obj, p)
                    pod_name = pod_obj["metadata"]["name"]
                    if job_spec.get("completionMode") == "Indexed":
                        pod_name = pod_obj["metadata"]["generateName"].rstrip("-")  # `<job>-<index>`, as people name them
                    out.append(Child(pod_obj, f"Pod `{pod_name}` of {job_label}", JOB_CONTROLLER, (obj, r, "pod"),
                                     pods - len(pod_indexes) if p == pod_indexes[-1] else 0))
    return out


def parse_users(entries) -> tuple[dict, list]:
    """({creator: username}, errors) of the `admissionUsers` option's `CREATOR=USERNAME` entries."""
    users, errors = {}, []
    for entry in entries or ():
        creator, sep, user = str(entry).partition("=")
        if not sep or creator not in USERS or not user:
            errors.append(f"admissionUsers entry {entry!r}: expected CREATOR=USERNAME, CREATOR one of {', '.join(USERS)}")
        else:
            users[creator] = user
    return users, errors
