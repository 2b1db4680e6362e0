"""The Flux plugin under Trainer v2.2.1: not emulated, so a Flux TrainJob is an error rather than
v2.3.0's objects presented as v2.2.1's.

v2.2.1's Flux differs in what it renders (pkg/runtime/framework/plugins/flux/flux.go and
templates/entrypoint.sh at v2.2.1): no /dev/shm memory volume, the installer written straight into
the JobSet's init containers, `flux R encode --local` instead of `--cores/--gpu`, the runtime
container's command dropped from the wrapped command, and numProcPerNode checked from the runtime
only. docs/fidelity.md lists this among the v2.2.1 deviations.
"""

from __future__ import annotations

from kpt_fn.engine.framework import RenderError
from kpt_fn.plugins import flux as _current

NAME = _current.NAME
RULE_NOT_EMULATED = "trainer-controller/flux-v2.2.1-not-emulated"
RULES = [*_current.RULES,
         {"id": RULE_NOT_EMULATED, "family": "trainer-controller", "applies_to": "TrainJob",
          "description": "trainerVersion v2.2.1: Flux runtimes are not emulated (v2.2.1's Flux plugin renders "
                         "differently); the TrainJob is reported, nothing rendered"}]
is_active = _current.is_active
validate = _current.validate


def enforce_ml_policy(info, trainjob, options) -> None:
    raise RenderError("Flux runtimes are not emulated for Trainer v2.2.1 (its Flux plugin renders differently "
                      "from v2.3.0's; docs/fidelity.md): render this TrainJob with trainerVersion v2.3.0 or "
                      "without expand-trainjobs", path="spec.runtimeRef", rule=RULE_NOT_EMULATED)
