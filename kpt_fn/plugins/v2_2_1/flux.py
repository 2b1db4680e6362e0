"""The Flux plugin as Trainer v2.2.1 has it (pkg/runtime/framework/plugins/flux/flux.go and
templates/ at v2.2.1); everything else is v2.3.0's (kpt_fn.plugins.flux), run with v2.2.1's switches.

- No shared-memory volume: getViewVolumes returns the spack, install and config volumes only and the
  node container gets four mounts (flux.go :199-205 and :295-310 at v2.2.1; v2.3.0 added the
  Memory emptyDir at /dev/shm).
- entrypoint.sh encodes the host's own resources, `flux R encode --hosts=${hosts} --local`
  (templates/entrypoint.sh :72 at v2.2.1; generateFluxEntrypoint :400-425 fills only the main host
  and the flags). v2.3.0 passes `--cores=<0-(tasks-1)>` and `--gpu=<0-(gpus-1)>`. The rest of both
  templates is the same; init.sh and broker.toml differ only in the licence header.
- The runtime's command is not in the wrapped command: v2.2.1's PodSet containers carry no
  command (pkg/runtime/runtime.go toPodSetContainer at v2.2.1 copies name, env, ports and
  volumeMounts only), so getOriginalCommand (:374-397) sees the TrainJob's command or nothing. A
  runtime-only command therefore starts an interactive Flux cluster instead of the job.
- The flux-installer init container is appended to the JobSet's replicated job directly
  (EnforceMLPolicy :171-194 at v2.2.1), not to the PodSet: v2.2.1's JobSet builder never writes
  PodSet init containers back. The JobSet comes out the same; the PodSet does not list it.
- Admission checks the runtime's flux numProcPerNode only (Validate :110-116 at v2.2.1): a TrainJob
  numProcPerNode below 1 is admitted and renders `-n` from it.
"""

from __future__ import annotations

from kpt_fn.plugins import flux as _current

NAME = _current.NAME
RULES = [r._replace(description="Flux needs the runtime's flux numProcPerNode >= 1 (v2.2.1: the TrainJob's "
                                 "numProcPerNode is not checked)")
         if r.id == _current.RULE_NUM_PROC else r for r in _current.RULES]
BEHAVIOUR = _current.Behaviour(shared_memory=False, runtime_command=False, installer_in_pod_set=False,
                               trainjob_num_proc=False, local_resources=True)
is_active = _current.is_active


def enforce_ml_policy(info, trainjob, options) -> None:
    _current.enforce_ml_policy(info, trainjob, options, BEHAVIOUR)


def build(info, trainjob, options) -> list[dict]:
    return _current.build(info, trainjob, options, BEHAVIOUR)


def validate(info, trainjob, options):
    return _current.validate(info, trainjob, options, BEHAVIOUR)
