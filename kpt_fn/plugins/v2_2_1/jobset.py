"""The JobSet plugin as Trainer v2.2.1 has it (pkg/runtime/framework/plugins/jobset/{jobset.go,builder.go}
at v2.2.1); everything not redefined here is v2.3.0's (kpt_fn.plugins.jobset).

- Pod network: every replicated job's endpoints use replica index 0, one replica's pods only
  (jobset.go IdentifyPodNetwork at v2.2.1: `rJobReplicas := constants.DefaultJobReplicas` and
  `rJobReplicas-1` in the host name; v2.3.0 walks every replica).
- Builder: the trainer job's node container (and the MPI launcher-as-node job's) gets
  resourcesPerNode as written, replacing the runtime's resources, when it has limits or requests
  (builder.go Trainer() at v2.2.1 :142-166: `WithResources`, limits and requests only); the
  ancestor label alone decides, no mlPolicy needed. v2.3.0 merges it in the runtime core instead.
- Builder: PodSet init containers are not written back (jobset.go Build :279-302 at v2.2.1 copies
  volumes and containers; v2.3.0 added the init-container loop for Flux's installer, which v2.2.1's
  Flux writes into the JobSet itself). A runtime init container is left as written: its duplicate
  env names, for one, keep their values, where v2.3.0's upsert gives every duplicate the last value.
- Admission: no check that an initializer container mounts the `initializer` volume (new in v2.3.0's
  jobset.go Validate).
"""

from __future__ import annotations

from kpt_fn.engine.info import ancestor_of, pod_spec_of
from kpt_fn.plugins import jobset as _current
from kpt_fn.trainer_names import NODE, TRAINER

NAME = _current.NAME
RULES = [r._replace(description="spec.initializer.dataset/model needs a runtime job of that name with a container "
                                 "of that name")
         if r.id == _current.RULE_INITIALIZER else r for r in _current.RULES]
sync_parallel_count = _current.sync_parallel_count
check_runtime_patches = _current.check_runtime_patches


def identify_pod_network(info, trainjob) -> None:
    name = trainjob["metadata"]["name"]
    subdomain = (info.obj_apply.get("network") or {}).get("subdomain") or name
    for rj, ps in zip(info.replicated_jobs, info.pod_sets):
        # v2.2.1 names one replica's pods only (replica index 0), whatever the replicas.
        ps.network = (name, rj.get("name"), 1, subdomain)


def build(info, trainjob, options) -> list[dict]:
    objects = _current.build(info, trainjob, options, init_containers=False)
    rpn = ((trainjob.get("spec") or {}).get("trainer") or {}).get("resourcesPerNode")
    if rpn is None or (rpn.get("limits") is None and rpn.get("requests") is None):
        return objects
    launcher_as_node = _current._launcher_as_node(info)
    for rj in info.replicated_jobs:
        if ancestor_of(rj) == TRAINER or (launcher_as_node and rj.get("name") == NODE):
            for c in pod_spec_of(rj).get("containers") or ():
                if c.get("name") == NODE:
                    # A copy per container: the launcher's and the node's must not share their maps.
                    c["resources"] = {k: dict(rpn[k]) for k in ("limits", "requests") if rpn.get(k) is not None}
    return objects


def validate(info, trainjob, options):
    unpatched = info.unpatched_spec if info.unpatched_spec is not None else info.obj_apply
    problems = [p for p in _current._validate_initializer(info, trainjob) if "volumeMount" not in p.message]
    return problems + _current.check_runtime_patches(unpatched, trainjob)
