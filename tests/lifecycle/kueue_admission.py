"""What Kueue v0.19 does to a JobSet when it admits it, re-implemented.

* Kueue's JobSet webhook (`pkg/controller/jobs/jobset/jobset_webhook.go` :70-87 at v0.19.2, CREATE only)
  suspends a JobSet that names a queue (`jobframework.ApplyDefaultForSuspend`).
* On admission the job reconciler calls `RunWithPodSetsInfo` (`pkg/controller/jobs/jobset/
  jobset_controller.go` :138-155): `spec.suspend` false, and for each replicated job, in order,
  `podset.Merge` of the PodSetInfo into its pod template (`pkg/podset/podset.go` :181-214, Merge of
  PodSetInfo :120-150): annotations, labels and nodeSelector are added (a key the template already
  has with another value is an error), tolerations appended unless an equal one is there
  (`pkg/util/tolerations` Equal: an empty operator is `Equal`), scheduling gates appended unless
  present. The infos come from the admission: the ResourceFlavors' nodeLabels and tolerations
  (`FromAssignment` :58-91), a TAS scheduling gate `kueue.x-k8s.io/topology` and its annotation,
  and the admission checks' PodSetUpdates.
* The change is written with an Update by Kueue's manager (a controller-runtime client Update).

Checked against `pkg/podset/podset_test.go` TestMergeRestore in tests/lifecycle/test_kueue_admission.py.
"""

from __future__ import annotations

import copy

TOPOLOGY_GATE = "kueue.x-k8s.io/topology"


class MergeConflict(Exception):
    """podset.BadPodSetsUpdateError: a key Kueue would set has another value in the template."""


class PodSetInfo:
    def __init__(self, annotations=None, labels=None, node_selector=None, tolerations=(), scheduling_gates=()):
        self.annotations = dict(annotations or {})
        self.labels = dict(labels or {})
        self.node_selector = dict(node_selector or {})
        self.tolerations = [dict(t) for t in tolerations]
        self.scheduling_gates = [dict(g) for g in scheduling_gates]


def _toleration_equal(a: dict, b: dict) -> bool:
    a = {**a, "operator": a.get("operator") or "Equal"}
    b = {**b, "operator": b.get("operator") or "Equal"}
    # corev1 MatchToleration: key, effect, operator, value (Equal) compared.
    return all(a.get(k, "") == b.get(k, "") for k in ("key", "effect", "operator", "value"))


def merge(template: dict, info: PodSetInfo) -> dict:
    """podset.Merge on a pod template (metadata + spec), returning a new template."""
    out = copy.deepcopy(template)
    meta = out.setdefault("metadata", {})
    spec = out.setdefault("spec", {})
    for field, where, new in (("annotations", meta, info.annotations), ("labels", meta, info.labels),
                              ("nodeSelector", spec, info.node_selector)):
        have = where.get(field) or {}
        for k, v in new.items():
            if k in have and have[k] != v:
                raise MergeConflict(f"{field}: conflict for key {k}: {have[k]!r} != {v!r}")
        if new:
            where[field] = {**have, **new}
    tolerations = list(spec.get("tolerations") or [])
    for t in info.tolerations:
        if not any(_toleration_equal(e, t) for e in tolerations):
            tolerations.append(copy.deepcopy(t))
    if tolerations:
        spec["tolerations"] = tolerations
    gates = list(spec.get("schedulingGates") or [])
    for g in info.scheduling_gates:
        if g not in gates:
            gates.append(copy.deepcopy(g))
    if gates:
        spec["schedulingGates"] = gates
    return out


def admit(jobset: dict, infos: list) -> dict:
    """RunWithPodSetsInfo: the admitted JobSet (one PodSetInfo per replicated job, in order)."""
    out = copy.deepcopy(jobset)
    rjobs = out["spec"]["replicatedJobs"]
    if len(infos) != len(rjobs):
        raise ValueError(f"expecting {len(rjobs)} podset, got {len(infos)}")
    out["spec"]["suspend"] = False
    for rjob, info in zip(rjobs, infos):
        job_spec = rjob["template"].setdefault("spec", {})
        job_spec["template"] = merge(job_spec.get("template") or {}, info)
    return out


def flavor_info(node_labels=None, tolerations=(), tas: bool = False) -> PodSetInfo:
    """FromAssignment for one ResourceFlavor (and TAS's gate and annotation when `tas`)."""
    info = PodSetInfo(node_selector=node_labels, tolerations=tolerations)
    if tas:
        info.annotations["kueue.x-k8s.io/podset-unconstrained-topology"] = "true"
        info.scheduling_gates.append({"name": TOPOLOGY_GATE})
    return info
