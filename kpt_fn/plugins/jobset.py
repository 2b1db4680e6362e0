"""JobSet: pod network, parallelism sync, the JobSet builder and its admission checks.

Upstream: pkg/runtime/framework/plugins/jobset/{jobset.go,builder.go}. Always active.
"""

from __future__ import annotations

from kpt_fn.engine.apply import (
    env_vars,
    upsert_env_vars,
    upsert_ports,
    upsert_volume_mounts,
    upsert_volumes,
)
from kpt_fn.engine.framework import RenderError
from kpt_fn.engine.info import ancestor_of, pod_spec_of
from kpt_fn.trainer_names import ANCESTOR_LABEL, DATASET_INITIALIZER, MODEL_INITIALIZER, NODE, TRAINER
from kpt_fn.problems import Problem, Rule

NAME = "JobSet"
INITIALIZER_VOLUME = "initializer"
STORAGE_URI = "STORAGE_URI"

RULE_INITIALIZER = "trainer-webhook/initializer-runtime-job"
RULE_PATCH_MANAGER = "trainer-webhook/runtime-patch-manager"
RULE_PATCH_TARGET = "recommendation/runtime-patch-target"
RULE_PATCH_ENV = "trainer-webhook/runtime-patch-reserved-env"
RULE_PATCH_DIRECTIVE = "recommendation/runtime-patch-directive"
RULE_PATCH_CONFLICT = "recommendation/runtime-patch-conflict"

RULES = [
    Rule(RULE_INITIALIZER, "TrainJob",
         "spec.initializer.dataset/model needs a runtime job of that name with a container of that "
         "name mounting the `initializer` volume", behaviour="initializer_volume_check"),
    Rule(RULE_INITIALIZER, "TrainJob",
         "spec.initializer.dataset/model needs a runtime job of that name with a container of that name",
         behaviour="not initializer_volume_check"),
    Rule(RULE_PATCH_MANAGER, "TrainJob",
         "spec.runtimePatches[].manager must be a domain-prefixed path (such as \"acme.io/foo\")"),
    Rule(RULE_PATCH_TARGET, "TrainJob",
         "runtimePatches may only target replicated jobs, containers and init containers that exist in "
         "the runtime template (checked against the unpatched runtime; upstream's webhook "
         "checks the patched template, so it never fires there and the JobSet fails later)"),
    Rule(RULE_PATCH_ENV, "TrainJob",
         "runtimePatches must not set env on the node, dataset-initializer or model-initializer "
         "containers (use spec.trainer.env / spec.initializer.*.env)"),
    Rule(RULE_PATCH_DIRECTIVE, "TrainJob",
         "runtimePatches must not contain strategic-merge directive keys (`$patch`, ...): the controller's "
         "merge would obey them (upstream's webhook lets them through)"),
    Rule(RULE_PATCH_CONFLICT, "TrainJob",
         "a runtimePatch must not give a runtime volume a different source, or turn a runtime env var "
         "between value and valueFrom: the strategic merge would keep both"),
]


# ---------------------------------------------------------------------------------------------
# PodNetwork and SyncParallelCount


def identify_pod_network(info, trainjob, options) -> None:
    name = trainjob["metadata"]["name"]
    subdomain = (info.obj_apply.get("network") or {}).get("subdomain") or name
    every_replica = options.bundle.behaviour.per_replica_endpoints
    for rj, ps in zip(info.replicated_jobs, info.pod_sets):
        replicas = rj.get("replicas") if every_replica else None  # else replica index 0 only
        replicas = 1 if replicas is None else replicas
        # What the pods are named from: PodSet.endpoints() reads the count when asked, so that counts
        # changed by later phases are honoured like upstream's iterator.
        ps.network = (name, rj.get("name"), replicas, subdomain)


def sync_parallel_count(info) -> None:
    for ps in info.pod_sets:
        if ps.count is None:
            continue
        for rj in info.replicated_jobs:
            if rj.get("name") == ps.name:
                job_spec = _ensure(_ensure(rj, "template"), "spec")
                job_spec["parallelism"] = ps.count
                job_spec["completions"] = ps.count
                break


# ---------------------------------------------------------------------------------------------
# Build


def _ensure(d: dict, key: str) -> dict:
    value = d.get(key)
    if value is None:
        value = d[key] = {}
    return value


def _ensure_list(d: dict, key: str) -> list:
    value = d.get(key)
    if value is None:
        value = d[key] = []
    return value


def writable_pod_spec(rj: dict) -> dict:
    return _ensure(_ensure(_ensure(_ensure(rj, "template"), "spec"), "template"), "spec")


def _sync_container(target: dict, c) -> None:
    if c.command:
        target["command"] = c.command
    if c.image:
        target["image"] = c.image
    upsert_env_vars(_ensure_list(target, "env"), c.env)
    upsert_ports(_ensure_list(target, "ports"), c.ports)
    upsert_volume_mounts(_ensure_list(target, "volumeMounts"), c.volume_mounts)


def _copy_pod_sets(info, init_containers: bool) -> None:
    """Write every PodSet back into its replicated job, by index (jobset.go Build); its init containers too
    when `init_containers` (the release's init_containers_written_back switch)."""
    jobs = info.replicated_jobs
    if len(jobs) < len(info.pod_sets):
        raise RenderError(f"runtime template has {len(jobs)} replicatedJobs but runtime info has "
                          f"{len(info.pod_sets)} podSets")
    for rj, ps in zip(jobs, info.pod_sets):
        pod = writable_pod_spec(rj)
        upsert_volumes(_ensure_list(pod, "volumes"), ps.volumes)
        containers = _ensure_list(pod, "containers")
        for i, c in enumerate(ps.containers):
            _sync_container(containers[i], c)
        if not init_containers:
            continue
        init_list = _ensure_list(pod, "initContainers")
        for i, c in enumerate(ps.init_containers):
            if i >= len(init_list):
                # Plugins (Flux) add init containers to the PodSet only; give them a slot.
                init_list.append({"name": c.name})
            _sync_container(init_list[i], c)


def _initializer_step(jobs: list, trainjob: dict) -> None:
    initializer = (trainjob.get("spec") or {}).get("initializer") or {}
    for rj in jobs:
        labels = ((rj.get("template") or {}).get("metadata") or {}).get("labels")
        if not labels:
            continue
        for ancestor, key in ((DATASET_INITIALIZER, "dataset"), (MODEL_INITIALIZER, "model")):
            if labels.get(ANCESTOR_LABEL) != ancestor:
                continue
            rj["replicas"] = 1
            source = initializer.get(key)
            if source is None:
                continue
            for c in pod_spec_of(rj).get("containers") or ():
                if c.get("name") != ancestor:
                    continue
                env = _ensure_list(c, "env")
                if source.get("storageUri") is not None:
                    upsert_env_vars(env, [{"name": STORAGE_URI, "value": source["storageUri"]}])
                upsert_env_vars(env, env_vars(source.get("env")))
                if source.get("secretRef") is not None:
                    _ensure_list(c, "envFrom").append({"secretRef": {"name": source["secretRef"].get("name", "")}})


def _launcher_as_node(info) -> bool:
    mpi = (info.runtime_policy.ml_policy_source or {}).get("mpi")
    return bool(mpi is not None and mpi.get("runLauncherAsNode"))


def _trainer_step(info, jobs: list, trainjob: dict) -> None:
    trainer = (trainjob.get("spec") or {}).get("trainer")
    launcher_as_node = _launcher_as_node(info)
    for rj in jobs:
        ancestor = ancestor_of(rj) or ""
        containers = pod_spec_of(rj).get("containers") or ()
        if ancestor == TRAINER:
            rj["replicas"] = 1
            if trainer is not None:
                for c in containers:
                    if c.get("name") != NODE:
                        continue
                    if trainer.get("image") is not None:
                        c["image"] = trainer["image"]
                    if trainer.get("command") is not None:
                        c["command"] = list(trainer["command"])
                    if trainer.get("args") is not None:
                        c["args"] = list(trainer["args"])
        if trainer is not None and (ancestor == TRAINER or (launcher_as_node and rj.get("name") == NODE)):
            for c in containers:
                if c.get("name") == NODE:
                    upsert_env_vars(_ensure_list(c, "env"), env_vars(trainer.get("env")))


def _replace_resources_per_node(info, jobs: list, trainjob: dict) -> None:
    """Without the rpn_merged_in_core switch (Trainer v2.2.1, builder.go Trainer() :142-166 at
    v2.2.1: `WithResources`, limits and requests only) the builder gives the trainer job's node
    container, and the MPI launcher-as-node job's, resourcesPerNode as written, replacing the
    runtime's resources, when it has limits or requests; the ancestor label alone decides."""
    rpn = ((trainjob.get("spec") or {}).get("trainer") or {}).get("resourcesPerNode")
    if rpn is None or (rpn.get("limits") is None and rpn.get("requests") is None):
        return
    launcher_as_node = _launcher_as_node(info)
    for rj in jobs:
        if ancestor_of(rj) == TRAINER or (launcher_as_node and rj.get("name") == NODE):
            for c in pod_spec_of(rj).get("containers") or ():
                if c.get("name") == NODE:
                    # A copy per container: the launcher's and the node's must not share their maps.
                    c["resources"] = {k: dict(rpn[k]) for k in ("limits", "requests") if rpn.get(k) is not None}


def build(info, trainjob, options) -> list[dict]:
    behaviour = options.bundle.behaviour
    _copy_pod_sets(info, behaviour.init_containers_written_back)
    spec = info.obj_apply
    jobs = info.replicated_jobs
    _initializer_step(jobs, trainjob)
    _trainer_step(info, jobs, trainjob)
    for rj in jobs:
        if info.scheduler.pod_labels:
            pod_md = _ensure(_ensure(_ensure(_ensure(rj, "template"), "spec"), "template"), "metadata")
            _ensure(pod_md, "labels").update(info.scheduler.pod_labels)
        if info.scheduler.pod_annotations:
            pod_md = _ensure(_ensure(_ensure(_ensure(rj, "template"), "spec"), "template"), "metadata")
            _ensure(pod_md, "annotations").update(info.scheduler.pod_annotations)
    suspend = (trainjob.get("spec") or {}).get("suspend")
    if suspend is None:
        spec.pop("suspend", None)
    else:
        spec["suspend"] = suspend
    if not behaviour.rpn_merged_in_core:
        _replace_resources_per_node(info, jobs, trainjob)

    md = trainjob["metadata"]
    metadata = {"name": md["name"]}
    if md.get("namespace") is not None:
        metadata["namespace"] = md["namespace"]
    if info.labels:
        metadata["labels"] = dict(info.labels)
    if info.annotations:
        metadata["annotations"] = dict(info.annotations)
    return [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": metadata, "spec": spec}]


# ---------------------------------------------------------------------------------------------
# Admission (CustomValidation)

def domain_prefixed_path_errors(value: str) -> list[str]:
    """apimachinery IsDomainPrefixedPath (kpt_fn.apimachinery.validation), as messages."""
    from kpt_fn.apimachinery.validation import is_domain_prefixed_path

    return [detail or kind for kind, _, detail in is_domain_prefixed_path(value)]


def _container_names(spec: dict) -> dict:
    """replicated job name -> (init container names, container names)."""
    out = {}
    for rj in spec.get("replicatedJobs") or ():
        pod = pod_spec_of(rj)
        out[rj.get("name")] = (
            {c.get("name") for c in pod.get("initContainers") or ()},
            {c.get("name") for c in pod.get("containers") or ()},
        )
    return out


def _validate_initializer(info, trainjob, volume_check: bool) -> list[Problem]:
    """`volume_check`: the release's initializer_volume_check switch."""
    problems = []
    initializer = (trainjob.get("spec") or {}).get("initializer") or {}
    names = _container_names(info.obj_apply)
    for key, job, config in (("dataset", DATASET_INITIALIZER, "datasetConfig"),
                             ("model", MODEL_INITIALIZER, "modelConfig")):
        if initializer.get(key) is None:
            continue
        if job not in names:
            msg = f"must have {job} job when trainJob is configured with input {config}"
        elif job not in names[job][0] | names[job][1]:
            msg = f"must have container with name - {job} in the {job} job"
        elif volume_check and not _has_initializer_mount(info.obj_apply, job):
            msg = f"must have volumeMount with name - {INITIALIZER_VOLUME} in container {job} of the {job} job"
        else:
            continue
        problems.append(Problem(msg, "spec.runtimeRef", rule=RULE_INITIALIZER))
    return problems


def _has_initializer_mount(spec: dict, job: str) -> bool:
    for rj in spec.get("replicatedJobs") or ():
        if rj.get("name") != job:
            continue
        for c in pod_spec_of(rj).get("containers") or ():
            if c.get("name") == job and any(vm.get("name") == INITIALIZER_VOLUME for vm in c.get("volumeMounts") or ()):
                return True
    return False


def check_runtime_patches(unpatched_spec: dict, trainjob: dict) -> list[Problem]:
    """The runtimePatches checks, which need only the runtime's (defaulted) JobSet spec before
    patching; also usable when building the Info failed (e.g. a merge error)."""
    return _validate_runtime_patches(unpatched_spec, trainjob) + _validate_patch_conflicts(unpatched_spec, trainjob)


def _validate_runtime_patches(spec: dict, trainjob) -> list[Problem]:
    from kpt_fn.engine import smp

    problems = []
    path = "spec.runtimePatches"
    # Targets must exist in the runtime as written, not in the already-patched template, and an
    # init container cannot be patched as a regular container or vice versa. Kept on purpose although
    # upstream's webhook never rejects these: pkg/runtime/core/trainingruntime.go ValidateObjects calls
    # newRuntimeInfo(new, ...) -- runtimePatches already merged -- and jobset.go Validate collects the
    # job/container names from that patched template, which the strategic merge has extended by every
    # unknown job or container (only jobset_test.go, with a hand-built Info, sees the errors). In a
    # cluster such a TrainJob is admitted and then fails: a patch has no `image` field
    # (ContainerPatch: name, env, volumeMounts, securityContext), so an added container has no image
    # and an added job has no runnable pod template; the Job API rejects them when the JobSet
    # controller creates the Jobs. Reporting it here, with upstream's own messages, is the useful
    # offline answer; the rule is in the "recommendation" family because no upstream webhook
    # enforces it.
    names = _container_names(spec)
    for i, patch in enumerate((trainjob.get("spec") or {}).get("runtimePatches") or ()):
        patch = patch or {}
        for msg in domain_prefixed_path_errors(patch.get("manager") or ""):
            problems.append(Problem(msg, f"{path}.manager", rule=RULE_PATCH_MANAGER))
        # Directive keys: the controller's merge would obey them and no upstream webhook refuses them;
        # the merge here implements none (engine/smp.py), so they are refused, a recommendation too.
        for where in smp.find_directive_keys(patch.get("trainingRuntimeSpec") or {}, f"{path}[{i}].trainingRuntimeSpec"):
            problems.append(Problem("must not contain strategic merge directive keys ($patch, $retainKeys, "
                                    "$setElementOrder/..., $deleteFromPrimitiveList/...)", where,
                                    rule=RULE_PATCH_DIRECTIVE))
        spec = (((patch.get("trainingRuntimeSpec") or {}).get("template")) or {}).get("spec")
        if spec is None:
            continue
        for rj in spec.get("replicatedJobs") or ():
            job = rj.get("name")
            if job not in names:
                problems.append(Problem("must not have replicated job that doesn't exist in the runtime job template",
                                        path, rule=RULE_PATCH_TARGET))
                continue
            init_names, container_names = names[job]
            pod = pod_spec_of(rj)
            for c in pod.get("initContainers") or ():
                if c.get("name") not in init_names:
                    problems.append(Problem(f"must not have initContainer that doesn't exist in the runtime job {job}",
                                            path, rule=RULE_PATCH_TARGET))
            for c in pod.get("containers") or ():
                if c.get("name") not in container_names:
                    problems.append(Problem(f"must not have container that doesn't exist in the runtime job {job}",
                                            path, rule=RULE_PATCH_TARGET))
                elif c.get("env") and c.get("name") in (DATASET_INITIALIZER, MODEL_INITIALIZER, NODE):
                    problems.append(Problem(
                        f"must not have envs for the {DATASET_INITIALIZER}, {MODEL_INITIALIZER}, {NODE} containers",
                        path, rule=RULE_PATCH_ENV))
    return problems


def _by_name(items) -> dict:
    return {i.get("name"): i for i in items or () if isinstance(i, dict)}


def _validate_patch_conflicts(spec: dict, trainjob) -> list[Problem]:
    """Merges upstream would perform silently but that yield objects the API rejects or that do
    not mean what the patch says (a volume with two sources, an env var with value and valueFrom)."""
    problems = []
    jobs = _by_name(spec.get("replicatedJobs"))
    for i, patch in enumerate((trainjob.get("spec") or {}).get("runtimePatches") or ()):
        pspec = ((((patch or {}).get("trainingRuntimeSpec") or {}).get("template")) or {}).get("spec") or {}
        for j, rj in enumerate(pspec.get("replicatedJobs") or ()):
            runtime_job = jobs.get(rj.get("name"))
            if runtime_job is None:
                continue
            base = f"spec.runtimePatches[{i}].trainingRuntimeSpec.template.spec.replicatedJobs[{j}]" \
                   ".template.spec.template.spec"
            pod, runtime_pod = pod_spec_of(rj), pod_spec_of(runtime_job)
            volumes = _by_name(runtime_pod.get("volumes"))
            for k, v in enumerate(pod.get("volumes") or ()):
                old = volumes.get(v.get("name"))
                if old is None:
                    continue
                new_sources = set(v) - {"name"}
                old_sources = set(old) - {"name"}
                if new_sources and new_sources != old_sources:
                    problems.append(Problem(
                        f'must not change the source of runtime volume "{v.get("name")}" ({", ".join(sorted(old_sources))}'
                        f' -> {", ".join(sorted(new_sources))}): the merge would keep both sources',
                        f"{base}.volumes[{k}]", rule=RULE_PATCH_CONFLICT))
            for kind in ("initContainers", "containers"):
                runtime_containers = _by_name(runtime_pod.get(kind))
                for k, c in enumerate(pod.get(kind) or ()):
                    envs = _by_name((runtime_containers.get(c.get("name")) or {}).get("env"))
                    for m, e in enumerate(c.get("env") or ()):
                        old = envs.get(e.get("name"))
                        if old is None:
                            continue
                        # Both sides as the Go types hold them: an empty `value` is already gone
                        # (omitempty), so only a real value meeting a valueFrom conflicts.
                        if ("valueFrom" in e and "value" in old) or ("value" in e and "valueFrom" in old):
                            problems.append(Problem(
                                f'must not switch runtime env var "{e.get("name")}" between value and valueFrom: '
                                "the merge would keep both", f"{base}.{kind}[{k}].env[{m}]", rule=RULE_PATCH_CONFLICT))
    return problems


def validate(info, trainjob, options) -> list[Problem]:
    unpatched = info.unpatched_spec if info.unpatched_spec is not None else info.obj_apply
    return (_validate_initializer(info, trainjob, options.bundle.behaviour.initializer_volume_check)
            + check_runtime_patches(unpatched, trainjob))
