"""Build the Info for one TrainJob from its (defaulted) runtime (upstream pkg/runtime/core/trainingruntime.go, newRuntimeInfo, at v2.3.0).

Upstream: newRuntimeInfo / mergeRuntimePatches in pkg/runtime/core/trainingruntime.go. Steps:
propagate JobSet labels/annotations, strategic-merge every runtimePatch into the JobSet template
spec and restore the replicated-job order (mergeRuntimePatches), the typed round-trip
(`roundtrip.normalize`), then one PodSet per replicated job with its count and the
resourcesPerNode merge (pkg/util/trainingruntime/trainingruntime.go MergeResourceRequirements) and
its single-pod requests (pkg/runtime/runtime.go WithPodSet).
"""

from __future__ import annotations

from kpt_fn.engine import roundtrip
from kpt_fn.engine.framework import RenderError
from kpt_fn.engine.info import (
    ANCESTOR_LABEL,
    Container,
    Info,
    PodSet,
    RuntimePolicy,
    Scheduler,
    pod_spec_of,
)
from kpt_fn.resource import private_copy, without_nulls
from kpt_fn.trainer_names import NODE, TRAINER



def propagated_metadata(template: dict, trainjob: dict) -> tuple[dict, dict]:
    """JobSet labels and annotations: runtime template metadata overlaid by every patch's (newRuntimeInfo)."""
    md = template.get("metadata") or {}
    labels = dict(md.get("labels") or {})
    annotations = dict(md.get("annotations") or {})
    for patch in (trainjob.get("spec") or {}).get("runtimePatches") or ():
        pmd = (((patch or {}).get("trainingRuntimeSpec") or {}).get("template") or {}).get("metadata")
        if pmd:
            labels.update(pmd.get("labels") or {})
            annotations.update(pmd.get("annotations") or {})
    return labels, annotations


def merge_runtime_patches(spec: dict, trainjob: dict, bundle) -> dict:
    """Apply every runtimePatch's JobSet spec in list order; returns a new spec (input untouched).

    Replicated jobs are then stably re-sorted into the runtime's order; names the runtime does
    not know sort as index 0, like upstream's map lookup miss.
    """
    patches = [
        (i, p["trainingRuntimeSpec"]["template"]["spec"])
        for i, p in enumerate((trainjob.get("spec") or {}).get("runtimePatches") or ())
        if ((((p or {}).get("trainingRuntimeSpec") or {}).get("template") or {}).get("spec")) is not None
    ]
    if not patches:
        return spec
    from kpt_fn.engine import omitempty, smp

    order = {rj.get("name"): i for i, rj in enumerate(spec.get("replicatedJobs") or ())}
    merged = spec
    for index, patch in patches:
        # The API server prunes nulls from the stored TrainJob and the typed patch omits nil
        # fields, so a null never reaches upstream's merge (where it would delete the key).
        patch = without_nulls(patch)
        try:
            merged = smp.merge_jobset_spec(merged, patch, bundle)
        except smp.MergeError as exc:
            where = f"spec.runtimePatches[{index}].trainingRuntimeSpec.template.spec"
            raise RenderError(exc.message, path=f"{where}.{exc.path}" if exc.path else where) from exc
        # Upstream decodes each merge result into a typed JobSetSpec and encodes it again for the
        # next (pkg/runtime/core/trainingruntime.go mergeRuntimePatches): a zero value a patch's
        # pointer field wrote into a plain omitempty field is gone, so `serviceAccountName: ""`
        # removes the runtime's service account.
        omitempty.strip(merged, "JobSetSpec", bundle)
    if merged.get("replicatedJobs"):
        merged["replicatedJobs"] = sorted(merged["replicatedJobs"], key=lambda rj: order.get(rj.get("name"), 0))
    return merged


def _project(containers) -> list:
    return [
        Container(
            name=c.get("name", ""),
            image=c.get("image"),
            command=c.get("command"),
            env=list(c.get("env") or ()),
            ports=list(c.get("ports") or ()),
            volume_mounts=list(c.get("volumeMounts") or ()),
        )
        for c in containers or ()
    ]


def _merge_resources_per_node(pod_spec: dict, rpn: dict) -> None:
    """Merge resourcesPerNode into the first `node` container, per resource name (MergeResourceRequirements).

    Only limits and requests reach the apply form: resources.claims are dropped (newRuntimeInfo
    copies only Limits and Requests into the container's apply configuration).
    """
    from kpt_fn.engine import pod_resources as resources

    for c in pod_spec.get("containers") or ():
        if c.get("name") != NODE:
            continue
        base = c.get("resources") or {}
        merged = resources.merge_resource_requirements(
            {k: base[k] for k in ("limits", "requests") if base.get(k)}, rpn)
        c["resources"] = {k: dict(merged[k]) for k in ("limits", "requests") if merged.get(k)}
        return


def replaced_resources_pod_spec(rj: dict, trainjob: dict, ml_policy, ancestor) -> dict:
    """The pod spec the PodSet is made from without the rpn_merged_in_core switch (newRuntimeInfo
    :181-195 at v2.2.1): a copy of the template's in which, for the trainer job of a runtime with an
    mlPolicy, the node container's resources are *replaced* by resourcesPerNode as written (claims
    included; `{}` empties them). The JobSet gets resourcesPerNode from the builder instead
    (kpt_fn.plugins.jobset)."""
    pod_spec = pod_spec_of(rj)
    rpn = ((trainjob.get("spec") or {}).get("trainer") or {}).get("resourcesPerNode")
    if rpn is None or ancestor != TRAINER or ml_policy is None:
        return pod_spec
    pod_spec = dict(pod_spec)
    containers = pod_spec["containers"] = list(pod_spec.get("containers") or ())
    for k, c in enumerate(containers):
        if c.get("name") == NODE:
            containers[k] = {**c, "resources": private_copy(rpn)}
            break
    return pod_spec


def build_info(trainjob: dict, runtime: dict, bundle) -> Info:
    """The Info for `trainjob` (defaulted copy) and `runtime` (defaulted private copy).

    The runtime's template spec is used as the base of `obj_apply` without copying when there are
    no runtimePatches, so the runtime dict passed in must be private to this render.
    """
    rt_spec = runtime.get("spec") or {}
    template = rt_spec.get("template") or {}
    ml_policy = rt_spec.get("mlPolicy")
    labels, annotations = propagated_metadata(template, trainjob)

    unpatched = template.get("spec") or {}
    spec = bundle.variant(merge_runtime_patches)(unpatched, trainjob, bundle)
    merged_in_core = bundle.behaviour.rpn_merged_in_core
    if spec is not unpatched:
        # Upstream's merge re-encodes the typed spec, so from here on every quantity is in its
        # canonical form; without patches the pod requests below see the quantities as written,
        # which decides the format of PodGroup totals (kpt_fn/quantity.py).
        roundtrip.normalize_jobset_spec(spec)

    ml_source = None
    if ml_policy is not None:
        ml_source = {k: v for k, v in ml_policy.items() if k != "numNodes"}
    info = Info(
        labels=labels,
        annotations=annotations,
        runtime_policy=RuntimePolicy(ml_policy_source=ml_source, pod_group_policy=rt_spec.get("podGroupPolicy")),
        scheduler=Scheduler(),
        obj_apply=spec,
        pod_sets=[],
        unpatched_spec=unpatched,
    )

    trainer = (trainjob.get("spec") or {}).get("trainer")
    rpn = trainer.get("resourcesPerNode") if trainer else None
    mpi = (ml_policy or {}).get("mpi")
    launcher_as_node = bool(mpi is not None and mpi.get("runLauncherAsNode"))

    from kpt_fn.engine import pod_resources as resources

    for rj in spec.get("replicatedJobs") or ():
        job_spec = (rj.get("template") or {}).get("spec") or {}
        count = job_spec.get("parallelism")
        count = 1 if count is None else count
        job_labels = ((rj.get("template") or {}).get("metadata") or {}).get("labels")
        ancestor = None
        if job_labels is not None and ANCESTOR_LABEL in job_labels:
            ancestor = job_labels[ANCESTOR_LABEL]
            if ancestor == TRAINER and ml_policy is not None:
                count = ml_policy.get("numNodes")
                count = 1 if count is None else count
        pod_spec = pod_spec_of(rj)
        if not merged_in_core:
            # The PodSet's copy only; the JobSet builder writes the JobSet's (plugins/jobset.py).
            pod_spec = replaced_resources_pod_spec(rj, trainjob, ml_policy, ancestor)
        elif rpn is not None:
            is_trainer = ancestor == TRAINER and ml_policy is not None
            if is_trainer or (launcher_as_node and rj.get("name") == NODE):
                _merge_resources_per_node(pod_spec, rpn)
        info.pod_sets.append(PodSet(
            name=rj.get("name"),
            ancestor=ancestor,
            count=max(count, 1),
            init_containers=_project(pod_spec.get("initContainers")),
            containers=_project(pod_spec.get("containers")),
            volumes=list(pod_spec.get("volumes") or ()),
            single_pod_requests=resources.pod_requests(pod_spec),
        ))
    roundtrip.normalize_jobset_spec(spec)
    return info
