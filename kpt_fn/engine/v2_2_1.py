"""Trainer v2.2.1's mergeRuntimePatches (pkg/runtime/core/trainingruntime.go at v2.2.1), a whole
function that differs from v2.3.0's: v2.2.1's VARIANTS row (kpt_fn.upstream.behaviour) names this
module, and kpt_fn.engine.runtime_info runs it through `bundle.variant`. Every one-condition
difference is a switch of the behaviour table instead.
"""

from __future__ import annotations

from kpt_fn.engine.framework import RenderError
from kpt_fn.resource import without_nulls



def merge_runtime_patches(spec: dict, trainjob: dict, bundle) -> dict:
    """v2.2.1 merges each patch job by job (mergeRuntimePatches :205-238 at v2.2.1): for every
    replicated job of a patch that has a template, a strategic merge of that template into the
    runtime's job of the same name, as a batch/v1 JobTemplateSpec. A patch job the runtime does not
    have is skipped (the webhook rejects it: jobset.go Validate), every other field of the patch's
    JobSet spec is ignored, and the job order is the runtime's (nothing is appended)."""
    from kpt_fn.engine import omitempty, smp

    jobs = None
    for index, patch in enumerate((trainjob.get("spec") or {}).get("runtimePatches") or ()):
        pspec = ((((patch or {}).get("trainingRuntimeSpec") or {}).get("template")) or {}).get("spec")
        if pspec is None:
            continue
        for j, rj_patch in enumerate(pspec.get("replicatedJobs") or ()):
            template = rj_patch.get("template")
            if template is None:
                continue
            if jobs is None:  # copy on first write: the runtime's spec is shared
                spec = dict(spec)
                jobs = spec["replicatedJobs"] = list(spec.get("replicatedJobs") or ())
            for i, job in enumerate(jobs):
                if job.get("name") != rj_patch.get("name"):
                    continue
                try:
                    merged = smp.strategic_merge(job.get("template") or {}, without_nulls(template),
                                                 "io.k8s.api.batch.v1.JobTemplateSpec", bundle)
                except smp.MergeError as exc:
                    where = (f"spec.runtimePatches[{index}].trainingRuntimeSpec.template.spec"
                             f".replicatedJobs[{j}].template")
                    raise RenderError(exc.message, path=f"{where}.{exc.path}" if exc.path else where) from exc
                jobs[i] = {**job, "template": merged}
                # Decoded into a typed JobTemplateSpec (:231-235 at v2.2.1): omitempty zero values go,
                # so `serviceAccountName: ""` removes the runtime's service account here too.
                omitempty.strip(jobs[i], "jobset.v1alpha2.ReplicatedJob", bundle)
    return spec
