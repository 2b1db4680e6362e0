"""The Flux plugin as Trainer v2.2.1 has it (pkg/runtime/framework/plugins/flux/flux.go and
templates/ at v2.2.1): v2.3.0's plugin (kpt_fn.plugins.flux) run with v2.2.1's switches (BEHAVIOUR).

- No shared-memory volume: getViewVolumes (:293-310 at v2.2.1) returns the spack, install and config
  volumes only and the node container gets four mounts (:196-206); v2.3.0 added a Memory emptyDir
  at /dev/shm.
- entrypoint.sh encodes the host's own resources, `flux R encode --hosts=${hosts} --local`
  (templates/entrypoint.sh :72 at v2.2.1; generateFluxEntrypoint :399-425 fills only the main host
  and the flags); v2.3.0 passes `--cores=0-(tasks-1)` and `--gpu=0-(gpus-1)`. The rest of the
  templates is the same (init.sh and broker.toml differ in the licence header only), so both
  releases render from the one set in flux_templates/.
- The runtime's command is not in the wrapped command: v2.2.1's PodSet containers carry none
  (pkg/runtime/runtime.go toPodSetContainer :157-171 at v2.2.1 copies name, env, ports and
  volumeMounts), so getOriginalCommand (:373-397) sees the TrainJob's command or nothing. A command
  set only in the runtime therefore starts an interactive Flux cluster instead of the job.
- The flux-installer init container is appended to the node job of the JobSet directly
  (EnforceMLPolicy :190-194 at v2.2.1), not to the PodSet: v2.2.1's JobSet builder never writes
  PodSet init containers back (jobset/jobset.go Build :279-302 copies volumes and containers only).
  The JobSet comes out the same; the PodSet does not list the installer.
- Admission checks the runtime's flux numProcPerNode only (Validate :112-116 at v2.2.1): a TrainJob
  numProcPerNode below 1 is admitted and gives `-n` from it.
"""

from __future__ import annotations

from kpt_fn.plugins import flux as _current

NAME = _current.NAME
RULES = [r._replace(description="Flux needs the runtime's flux numProcPerNode >= 1 (v2.2.1: the TrainJob's "
                                 "numProcPerNode is not checked)")
         if r.id == _current.RULE_NUM_PROC else r for r in _current.RULES]
BEHAVIOUR = _current.Behaviour(shared_memory=False, runtime_command=False, installer_in_pod_set=False,
                               trainjob_num_proc=False, local_resources=True)


def enforce_ml_policy(info, trainjob, options) -> None:
    _current.enforce_ml_policy(info, trainjob, options, BEHAVIOUR)


def build(info, trainjob, options) -> list[dict]:
    return _current.build(info, trainjob, options, BEHAVIOUR)


def validate(info, trainjob, options):
    return _current.validate(info, trainjob, options, BEHAVIOUR)
