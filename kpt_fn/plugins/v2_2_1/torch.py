"""The Torch plugin as Trainer v2.2.1 has it (pkg/runtime/framework/plugins/torch/{torch.go,torchtune.go}
at v2.2.1); everything is v2.3.0's (kpt_fn.plugins.torch), which reads the release where the two differ
by one condition (torchtune's QLoRA matching and its v2.3.0-only checks). What differs here is what the
release's rules are:

- No `envInjection`: v2.2.1's TorchMLPolicySource has no such field (its CRD refuses it as an unknown
  field), so the envInjection target check cannot fire.
- torchtune: QLoRA and DoRA are matched as substrings of any argument, whatever the value
  (isUseQLoraFinetune at v2.2.1), and there is no LoRA multi-node check and no immutable-args check
  (both new in v2.3.0's validateTorchTune).
"""

from __future__ import annotations

from kpt_fn.plugins import torch as _current
from kpt_fn.plugins.torch import torchtune

NAME = _current.NAME
REPLACES = _current.REPLACES
_TORCHTUNE = ("torchtune (`command: [tune, run]`): supported model, single node except llama3.3-70B, QLoRA "
              "limits (QLoRA: an argument containing model.quantize_base and none containing use_dora, whatever "
              "their values)")
RULES = [r._replace(description=_TORCHTUNE) if r.id == torchtune.RULE_TORCHTUNE else r
         for r in _current.RULES if r.id != _current.RULE_ENV_INJECTION]
enforce_ml_policy = _current.enforce_ml_policy
validate = _current.validate
