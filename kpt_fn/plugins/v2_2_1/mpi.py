"""The MPI plugin as Trainer v2.2.1 has it (pkg/runtime/framework/plugins/mpi/mpi.go at v2.2.1);
everything not redefined here is v2.3.0's (kpt_fn.plugins.mpi).

- The SSH Secret volume has no defaultMode and its items no mode (EnforceMLPolicy :128-150 at
  v2.2.1; v2.3.0 added WithDefaultMode and WithMode), so the kubelet's default 0644 applies.
- Admission: no check of reserved MPI env names in spec.trainer.env (new in v2.3.0's Validate).
"""

from __future__ import annotations

from kpt_fn.plugins import mpi as _current

NAME = _current.NAME
REPLACES = _current.REPLACES
RULES = [r for r in _current.RULES if r.id != _current.RULE_RESERVED_ENV]
build = _current.build
TRAINING_NODES = _current.TRAINING_NODES


def ssh_auth_volume(secret_name: str) -> dict:
    return {
        "name": _current.SSH_AUTH_VOLUME,
        "secret": {
            "secretName": secret_name,
            "items": [
                {"key": "ssh-privatekey", "path": "id_rsa"},
                {"key": "ssh-publickey", "path": "id_rsa.pub"},
                {"key": "ssh-publickey", "path": "authorized_keys"},
            ],
        },
    }


def enforce_ml_policy(info, trainjob, options) -> None:
    _current.enforce_with(info, trainjob, options, ssh_auth_volume)


def validate(info, trainjob, options):
    return [p for p in _current.validate(info, trainjob, options) if p.rule != _current.RULE_RESERVED_ENV]
