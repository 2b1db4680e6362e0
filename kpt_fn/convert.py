"""Conversion of older Trainer API shapes to trainer.kubeflow.org/v1alpha1 at v2.3.0 (the v1alpha1 API types of earlier releases, pkg/apis/trainer/v1alpha1/trainjob_types.go at v2.0.0-v2.2.1).

    convert_trainjob(obj) -> (obj, problems)
    convert_runtime(obj)  -> (obj, problems)

Objects already in the v2.3.0 shape come back unchanged (the same dict, no problems). Otherwise a
converted deep copy comes back with one `info` Problem per conversion step (rule `legacy/<step>`),
a `warning` where v2.3.0 behaves differently from the old API, and an `error` where the old shape has
no faithful equivalent (the object must then not be rendered).

Detected as legacy: apiVersion `kubeflow.org/v2alpha1` (the KEP-2170 design API) or
`trainer.kubeflow.org/v2alpha1`, or a `trainer.kubeflow.org/v1alpha1` object that still carries fields
removed before v2.3.0 (string numProcPerNode, datasetConfig/modelConfig, spec.labels/annotations,
podSpecOverrides/podTemplateOverrides, mlPolicy.torch.numProcPerNode/elasticPolicy).

The KEP-era job layout (trainer job `trainer-node` with container `trainer`, one `initializer` job with
both initializer containers, no ancestor labels) is renamed to the v2.3.0 layout only for objects with
a v2alpha1 apiVersion; a v1alpha1 runtime with such names is valid as it is.
"""

from __future__ import annotations

import re

from kpt_fn.problems import ERROR, INFO, WARNING, Problem, Rule
from kpt_fn.quantity import num_cpu, num_gpu
from kpt_fn.resource import private_copy
from kpt_fn.trainer_names import ANCESTOR_LABEL
from kpt_fn import upstream

API_VERSION = "trainer.kubeflow.org/v1alpha1"
LEGACY_API_VERSIONS = ("kubeflow.org/v2alpha1", "trainer.kubeflow.org/v2alpha1")
KEP_API_VERSION = "kubeflow.org/v2alpha1"
GROUP = "trainer.kubeflow.org"
OLD_GROUP = "kubeflow.org"
CONTROLLER = "trainer.kubeflow.org/trainjob-controller"
OLD_CONTROLLER = "kubeflow.org/trainjob-controller"
# runtimePatches need domain-prefixed, unique managers.
MANAGER_DOMAIN = "expand-trainjobs.fn.kpt.dev"
INITIALIZER_CONTAINERS = ("dataset-initializer", "model-initializer")
# Containers whose env runtimePatches may not set (the webhook rejects it); where it goes instead.
_ENV_HOMES = {"node": ("trainer",), "dataset-initializer": ("initializer", "dataset"),
              "model-initializer": ("initializer", "model")}
_POD_FIELDS = ("serviceAccountName", "nodeSelector", "affinity", "tolerations", "volumes", "initContainers",
               "containers", "schedulingGates", "imagePullSecrets", "securityContext")
_CONTAINER_PATCH_FIELDS = ("name", "env", "volumeMounts", "securityContext")
_INT_RE = r"[+-]?[0-9]+"  # compiled on first use (re's cache)

RULES = [
    Rule(f"legacy/{step}", kind, description)
    for step, kind, description in (
        ("api-version", "TrainJob", "kubeflow.org/v2alpha1 and trainer.kubeflow.org/v2alpha1 objects are converted to "
                                    "trainer.kubeflow.org/v1alpha1"),
        ("runtime-ref", "TrainJob", "spec.runtimeRef.apiGroup kubeflow.org becomes trainer.kubeflow.org"),
        ("managed-by", "TrainJob", "spec.managedBy kubeflow.org/trainjob-controller becomes the current controller name "
                                    "(trainer.kubeflow.org/trainjob-controller)"),
        ("num-proc-per-node", "TrainJob", "string numProcPerNode becomes an integer (auto: removed; cpu/gpu: counted "
                                          "from resourcesPerNode)"),
        ("dataset-config", "TrainJob", "spec.datasetConfig becomes spec.initializer.dataset"),
        ("model-config", "TrainJob", "spec.modelConfig.input becomes spec.initializer.model; output cannot be converted"),
        ("metadata", "TrainJob", "spec.labels/annotations become the first runtimePatch"),
        ("pod-overrides", "TrainJob", "podSpecOverrides/podTemplateOverrides become runtimePatches"),
        ("patch-time", "TrainJob", "runtimePatches[].time is dropped"),
        ("status", "TrainJob", "status is dropped"),
        ("runtime-num-proc-per-node", "TrainingRuntime", "mlPolicy.torch.numProcPerNode is removed"),
        ("elastic-policy", "TrainingRuntime", "mlPolicy.torch.elasticPolicy cannot be converted"),
        ("job-layout", "TrainingRuntime", "KEP-era trainer-node/trainer and initializer jobs get the current names "
                                          "(node, dataset-initializer, model-initializer) and ancestor labels"),
        ("malformed", "TrainJob, TrainingRuntime", "an older object whose fields have the wrong types is refused, "
                                                   "not guessed at"),
    )
]


class _Conversion:
    """Collects the problems of one object's conversion."""

    def __init__(self, source_version: str, bundle: upstream.Bundle):
        self.source = source_version
        self.release = bundle.release  # the run's release, which the messages compare the old API with
        self.problems: list[Problem] = []

    def info(self, step: str, message: str, path: str = "") -> None:
        self.problems.append(Problem(f"converted from {self.source}: {message}", path, INFO, rule=f"legacy/{step}"))

    def warn(self, step: str, message: str, path: str = "") -> None:
        self.problems.append(Problem(f"converted from {self.source}: {message}", path, WARNING, rule=f"legacy/{step}"))

    def error(self, step: str, message: str, path: str = "") -> None:
        self.problems.append(Problem(f"cannot convert from {self.source}: {message}", path, ERROR, rule=f"legacy/{step}"))


# ---------------------------------------------------------------------------------------------
# Detection


def _spec(obj) -> dict:
    spec = obj.get("spec") if isinstance(obj, dict) else None
    return spec if isinstance(spec, dict) else {}


def is_legacy_trainjob(obj: dict) -> bool:
    if not isinstance(obj, dict) or obj.get("kind") != "TrainJob":
        return False
    if obj.get("apiVersion") in LEGACY_API_VERSIONS:
        return True
    spec = _spec(obj)
    trainer = spec.get("trainer") if isinstance(spec.get("trainer"), dict) else {}
    return (isinstance(trainer.get("numProcPerNode"), str)
            or any(k in spec for k in ("datasetConfig", "modelConfig", "labels", "annotations", "podSpecOverrides",
                                       "podTemplateOverrides")))


def is_legacy_runtime(obj: dict) -> bool:
    if not isinstance(obj, dict) or obj.get("kind") not in ("TrainingRuntime", "ClusterTrainingRuntime"):
        return False
    if obj.get("apiVersion") in LEGACY_API_VERSIONS:
        return True
    torch = ((_spec(obj).get("mlPolicy") or {}).get("torch")) or {}
    return isinstance(torch, dict) and ("numProcPerNode" in torch or "elasticPolicy" in torch)


# ---------------------------------------------------------------------------------------------
# Shared helpers


def _gpu_count(resources: dict) -> int | None:
    """GPUs in a resourcesPerNode (requests before limits), or None when none is given."""
    if not resources:
        return None
    n = num_gpu(resources)
    return n or None


def _cpu_count(resources: dict) -> int | None:
    if not resources or not any("cpu" in (resources.get(k) or {}) for k in ("limits", "requests")):
        return None
    return max(1, num_cpu(resources))


def _convert_api_version(obj: dict, conv: _Conversion) -> None:
    conv.info("api-version", f"apiVersion {obj.get('apiVersion')} -> {API_VERSION}", "apiVersion")
    obj["apiVersion"] = API_VERSION


# ---------------------------------------------------------------------------------------------
# TrainJob


def _guarded(convert, obj: dict) -> tuple[dict, list[Problem]]:
    # The conversion runs before schema validation (the schema describes the converted form), so a
    # field of the wrong type can reach it. Refuse such an object clearly instead of guessing.
    try:
        return convert(obj)
    except (AttributeError, TypeError, KeyError, ValueError, IndexError) as exc:
        return obj, [
            Problem(
                f"cannot convert {obj.get('kind')} from {obj.get('apiVersion')} to {API_VERSION}: a field has "
                f"the wrong type ({type(exc).__name__}: {exc}); check spec against the {obj.get('apiVersion')} API",
                "spec",
                severity=ERROR,
                rule="legacy/malformed",
            )
        ]


def convert_trainjob(obj: dict, bundle: upstream.Bundle) -> tuple[dict, list[Problem]]:
    """The TrainJob in the current v1alpha1 form (v2.2.1 and v2.3.0 share its spec fields) plus the
    problems of the conversion (none if it already was); `bundle`'s release is named in the messages."""
    return _guarded(lambda o: _convert_trainjob(o, bundle), obj)


def convert_runtime(obj: dict, bundle: upstream.Bundle) -> tuple[dict, list[Problem]]:
    """The TrainingRuntime / ClusterTrainingRuntime in the current v1alpha1 form plus the conversion
    problems; `bundle`'s release is named in the messages."""
    return _guarded(lambda o: _convert_runtime(o, bundle), obj)


def _convert_trainjob(obj: dict, bundle: upstream.Bundle) -> tuple[dict, list[Problem]]:
    if not is_legacy_trainjob(obj):
        return obj, []
    out = private_copy(obj)
    conv = _Conversion(obj.get("apiVersion") or "an older API", bundle)
    kep = obj.get("apiVersion") == KEP_API_VERSION
    if out.get("apiVersion") != API_VERSION:
        _convert_api_version(out, conv)
    spec = out.setdefault("spec", {})

    ref = spec.get("runtimeRef") or {}
    if ref.get("apiGroup") == OLD_GROUP:
        ref["apiGroup"] = GROUP
        conv.info("runtime-ref", f"spec.runtimeRef.apiGroup {OLD_GROUP} -> {GROUP}", "spec.runtimeRef.apiGroup")
    if spec.get("managedBy") == OLD_CONTROLLER:
        spec["managedBy"] = CONTROLLER
        conv.info("managed-by", f"spec.managedBy {OLD_CONTROLLER} -> {CONTROLLER}", "spec.managedBy")

    _convert_num_proc_per_node(spec, conv)
    _convert_initializers(spec, conv)
    patches = []
    metadata_patch = _metadata_patch(spec, conv)
    if metadata_patch is not None:
        patches.append(metadata_patch)
    patches += _override_patches(spec, conv, kep)
    if patches:
        existing = spec.get("runtimePatches") or []
        spec["runtimePatches"] = patches + existing
    for i, p in enumerate(spec.get("runtimePatches") or ()):
        if isinstance(p, dict) and "time" in p:
            del p["time"]
            conv.info("patch-time", "runtimePatches[].time dropped (set by the admission webhook)",
                      f"spec.runtimePatches[{i}].time")
    if "status" in out:
        del out["status"]
        conv.info("status", "status dropped", "status")
    return out, conv.problems


def _convert_num_proc_per_node(spec: dict, conv: _Conversion) -> None:
    trainer = spec.get("trainer")
    if not isinstance(trainer, dict) or "numProcPerNode" not in trainer:
        return
    value = trainer["numProcPerNode"]
    path = "spec.trainer.numProcPerNode"
    if isinstance(value, bool):
        conv.error("num-proc-per-node", f"numProcPerNode {value!r} is not a number", path)
        return
    if isinstance(value, int):
        return
    text = str(value).strip()
    rpn = trainer.get("resourcesPerNode") or {}
    if re.fullmatch(_INT_RE, text):
        # an int32 field: a count beyond it is no count (the digits are counted first: Python's int()
        # refuses more than 4300 of them)
        digits = text.lstrip("+-").lstrip("0") or "0"
        number = -int(digits) if text.startswith("-") and len(digits) <= 10 else int(digits) if len(digits) <= 10 else None
        if number is None or not -2**31 <= number < 2**31:
            shown = text if len(text) <= 24 else text[:20] + "…"
            conv.error("num-proc-per-node", f'numProcPerNode "{shown}" is beyond a 32-bit integer '
                                            "(at most 2147483647)", path)
            del trainer["numProcPerNode"]  # reported once: the schema check must not add a second error
            return
        trainer["numProcPerNode"] = number
        conv.info("num-proc-per-node", f'numProcPerNode "{value}" -> {number}', path)
    elif text == "auto":
        del trainer["numProcPerNode"]
        conv.info("num-proc-per-node", f'numProcPerNode "auto" removed ({conv.release} resolves an absent value as auto)', path)
        if _gpu_count(rpn) is None:
            conv.warn("num-proc-per-node", f'without GPUs {conv.release} sets PET_NPROC_PER_NODE to the CPU count instead of '
                                           'the literal "auto"', path)
    elif text == "cpu":
        cpus = _cpu_count(rpn)
        if cpus is None:
            del trainer["numProcPerNode"]
            conv.warn("num-proc-per-node", f'numProcPerNode "cpu" removed: no CPU count in resourcesPerNode, {conv.release} '
                                           "derives it from the runtime when no GPU is requested", path)
        else:
            trainer["numProcPerNode"] = cpus
            conv.info("num-proc-per-node", f'numProcPerNode "cpu" -> {cpus} (CPUs in resourcesPerNode)', path)
    elif text == "gpu":
        gpus = _gpu_count(rpn)
        if gpus is None:
            conv.error("num-proc-per-node", 'numProcPerNode "gpu" needs a GPU count in spec.trainer.resourcesPerNode',
                       path)
            del trainer["numProcPerNode"]  # reported once: the schema check must not add a type error
        else:
            trainer["numProcPerNode"] = gpus
            conv.info("num-proc-per-node", f'numProcPerNode "gpu" -> {gpus} (GPUs in resourcesPerNode)', path)
    else:
        # Not a legacy value either: one error saying what to write, not "cannot convert" (the object
        # may well be v2.3.0), and no second, contradicting type error from the schema check.
        conv.problems.append(Problem(
            f'numProcPerNode "{value}" is not a number of processes: write a whole number without quotes '
            "(numProcPerNode: 4), or leave it out for one process per GPU (per CPU without GPUs); the strings "
            '"auto", "cpu" and "gpu" of Trainer releases before v2.3.0 are converted', path, ERROR,
            rule="legacy/num-proc-per-node"))
        del trainer["numProcPerNode"]


def _convert_initializers(spec: dict, conv: _Conversion) -> None:
    dataset = spec.pop("datasetConfig", None)
    model = spec.pop("modelConfig", None)
    if dataset is None and model is None:
        return
    initializer = spec.setdefault("initializer", {})
    if dataset is not None:
        initializer["dataset"] = {k: v for k, v in dataset.items() if k in ("storageUri", "env", "secretRef")}
        conv.info("dataset-config", "spec.datasetConfig -> spec.initializer.dataset", "spec.datasetConfig")
    if model is not None:
        if model.get("input") is not None:
            initializer["model"] = {k: v for k, v in model["input"].items() if k in ("storageUri", "env", "secretRef")}
            conv.info("model-config", "spec.modelConfig.input -> spec.initializer.model", "spec.modelConfig.input")
        if model.get("output") is not None:
            conv.error("model-config", f"spec.modelConfig.output (model export) has no equivalent in {conv.release}",
                       "spec.modelConfig.output")


def _metadata_patch(spec: dict, conv: _Conversion) -> dict | None:
    labels = spec.pop("labels", None)
    annotations = spec.pop("annotations", None)
    if not labels and not annotations:
        return None
    md = {}
    if labels:
        md["labels"] = labels
    if annotations:
        md["annotations"] = annotations
    manager = f"{MANAGER_DOMAIN}/legacy-metadata"
    conv.info("metadata", f"spec.labels/annotations -> runtimePatches[{manager}] on the JobSet template metadata",
              "spec.labels" if labels else "spec.annotations")
    return {"manager": manager, "trainingRuntimeSpec": {"template": {"metadata": md}}}


def _target_jobs(name: str, kep: bool) -> list[str]:
    if kep and name == "trainer-node":
        return ["node"]
    if kep and name == "initializer":
        return list(INITIALIZER_CONTAINERS)
    return [name]


def _container_name(name: str, kep: bool) -> str:
    return "node" if kep and name == "trainer" else name


def _override_patches(spec: dict, conv: _Conversion, kep: bool) -> list[dict]:
    patches = []
    for field in ("podSpecOverrides", "podTemplateOverrides"):
        overrides = spec.pop(field, None)
        for i, override in enumerate(overrides or ()):
            path = f"spec.{field}[{i}]"
            manager = f"{MANAGER_DOMAIN}/legacy-override-{len(patches)}"
            pod_spec = override.get("spec") if field == "podTemplateOverrides" else override
            pod_md = override.get("metadata") if field == "podTemplateOverrides" else None
            jobs = []
            for target in override.get("targetJobs") or ():
                for job_name in _target_jobs(target.get("name"), kep):
                    patch_pod = _pod_patch(pod_spec or {}, job_name, spec, conv, kep, path)
                    template = {}
                    if pod_md:
                        template["metadata"] = pod_md
                    if patch_pod:
                        template["spec"] = patch_pod
                    job = {"name": job_name}
                    if template:
                        job["template"] = {"spec": {"template": template}}
                    jobs.append(job)
            patches.append({"manager": manager,
                            "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": jobs}}}})
            conv.info("pod-overrides", f"{field}[{i}] -> runtimePatches[{manager}]", path)
    return patches


def _pod_patch(pod_spec: dict, job_name: str, spec: dict, conv: _Conversion, kep: bool, path: str) -> dict:
    out = {}
    for key in _POD_FIELDS:
        if key not in pod_spec:
            continue
        if key in ("containers", "initContainers"):
            items = []
            for j, c in enumerate(pod_spec[key] or ()):
                item = _container_patch(c, job_name, spec, conv, kep, f"{path}.{key}[{j}]", init=key == "initContainers")
                if item is not None:
                    items.append(item)
            if items:
                out[key] = items
        else:
            out[key] = private_copy(pod_spec[key])
    return out


def _container_patch(c: dict, job_name: str, spec: dict, conv: _Conversion, kep: bool, path: str, init: bool):
    name = _container_name(c.get("name"), kep)
    if kep and job_name in INITIALIZER_CONTAINERS and name in INITIALIZER_CONTAINERS and name != job_name:
        return None  # the other initializer's container, now in its own job
    patch = {k: private_copy(v) for k, v in c.items() if k in _CONTAINER_PATCH_FIELDS}
    patch["name"] = name
    if c.get("envFrom"):
        conv.error("pod-overrides", "envFrom in a container override has no runtimePatches equivalent", f"{path}.envFrom")
    for field in ("command", "args"):
        if c.get(field) is None:
            continue
        if name == "node" and not init:
            trainer = spec.setdefault("trainer", {})
            if trainer.get(field) is not None and trainer[field] != c[field]:
                conv.error("pod-overrides", f"{field} of the node container conflicts with spec.trainer.{field}",
                           f"{path}.{field}")
            else:
                trainer[field] = c[field]
                conv.info("pod-overrides", f"{field} of the node container -> spec.trainer.{field}", f"{path}.{field}")
        else:
            conv.error("pod-overrides", f"{field} of container {name} has no runtimePatches equivalent", f"{path}.{field}")
    if patch.get("env") and name in _ENV_HOMES and not init:
        home = _ENV_HOMES[name]
        target = spec
        for key in home:
            target = target.setdefault(key, {})
        merged = list(target.get("env") or ())
        names = {e.get("name") for e in merged}
        merged += [e for e in patch.pop("env") if e.get("name") not in names]
        target["env"] = merged
        conv.info("pod-overrides", f"env of container {name} -> spec.{'.'.join(home)}.env (runtimePatches may not "
                                   "set it)", f"{path}.env")
    return patch if len(patch) > 1 else None


# ---------------------------------------------------------------------------------------------
# Runtimes


def _convert_runtime(obj: dict, bundle: upstream.Bundle) -> tuple[dict, list[Problem]]:
    if not is_legacy_runtime(obj):
        return obj, []
    out = private_copy(obj)
    conv = _Conversion(obj.get("apiVersion") or "an older API", bundle)
    if out.get("apiVersion") != API_VERSION:
        _convert_api_version(out, conv)
    spec = out.setdefault("spec", {})
    torch = (spec.get("mlPolicy") or {}).get("torch")
    if isinstance(torch, dict):
        path = "spec.mlPolicy.torch"
        if "numProcPerNode" in torch:
            value = torch.pop("numProcPerNode")
            conv.info("runtime-num-proc-per-node", f'mlPolicy.torch.numProcPerNode "{value}" removed (the field '
                                                   "moved to TrainJobs)", f"{path}.numProcPerNode")
            if str(value).strip() != "auto":
                conv.warn("runtime-num-proc-per-node", f'TrainJobs that do not set spec.trainer.numProcPerNode no '
                          f'longer get "{value}" from the runtime; {conv.release} resolves them as auto',
                          f"{path}.numProcPerNode")
        if "elasticPolicy" in torch:
            conv.error("elastic-policy", f"mlPolicy.torch.elasticPolicy has no equivalent in {conv.release}",
                       f"{path}.elasticPolicy")
    if obj.get("apiVersion") == KEP_API_VERSION:
        _convert_kep_layout(spec, conv)
    return out, conv.problems


def _job_labels(rj: dict) -> dict:
    return rj.setdefault("template", {}).setdefault("metadata", {}).setdefault("labels", {})


def _convert_kep_layout(spec: dict, conv: _Conversion) -> None:
    jobs = ((spec.get("template") or {}).get("spec") or {}).get("replicatedJobs") or []
    renames: dict[str, list[str]] = {}
    new_jobs = []
    for i, rj in enumerate(jobs):
        path = f"spec.template.spec.replicatedJobs[{i}]"
        name = rj.get("name")
        pod = ((((rj.get("template") or {}).get("spec") or {}).get("template") or {}).get("spec")) or {}
        if name == "trainer-node":
            rj["name"] = "node"
            renames[name] = ["node"]
            _job_labels(rj).setdefault(ANCESTOR_LABEL, "trainer")
            for c in pod.get("containers") or ():
                if c.get("name") == "trainer":
                    c["name"] = "node"
            conv.info("job-layout", "job trainer-node (container trainer) -> job node (container node) with the "
                                    "trainer ancestor label", path)
            new_jobs.append(rj)
        elif name == "initializer":
            split = _split_initializer(rj, pod, conv, path)
            renames[name] = [j["name"] for j in split]
            new_jobs += split
        else:
            new_jobs.append(rj)
    if not renames:
        return
    spec["template"]["spec"]["replicatedJobs"] = new_jobs
    names = {j.get("name") for j in new_jobs}
    for rj in new_jobs:
        deps = rj.get("dependsOn")
        if deps:
            rj["dependsOn"] = [dict(d, name=n) for d in deps for n in renames.get(d.get("name"), [d.get("name")])]
    if "initializer" in renames and "node" in names:
        trainer = next(j for j in new_jobs if j.get("name") == "node")
        if not trainer.get("dependsOn"):
            trainer["dependsOn"] = [{"name": n, "status": "Complete"} for n in renames["initializer"]]
            conv.info("job-layout", "the trainer job now depends on the initializer jobs (Complete)",
                      "spec.template.spec.replicatedJobs")
    success = (spec["template"]["spec"].get("successPolicy") or {})
    if success.get("targetReplicatedJobs"):
        success["targetReplicatedJobs"] = [n for t in success["targetReplicatedJobs"] for n in renames.get(t, [t])]


def _split_initializer(rj: dict, pod: dict, conv: _Conversion, path: str) -> list[dict]:
    containers = pod.get("containers") or []
    names = [c.get("name") for c in containers]
    unknown = [n for n in names if n not in INITIALIZER_CONTAINERS]
    if unknown or not names:
        conv.error("job-layout", f"job initializer holds containers {names}; only dataset-initializer and "
                                 "model-initializer can be split into their own jobs", path)
        return [rj]
    out = []
    for c in containers:
        job = private_copy(rj)
        job["name"] = c["name"]
        job_pod = job["template"]["spec"]["template"]["spec"]
        job_pod["containers"] = [private_copy(c)]
        _job_labels(job)[ANCESTOR_LABEL] = c["name"]
        out.append(job)
    conv.info("job-layout", f"job initializer split into {', '.join(j['name'] for j in out)} with their ancestor "
                            "labels", path)
    return out
