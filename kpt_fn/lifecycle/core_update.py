"""Which changes of a Secret or ConfigMap the API server refuses on UPDATE (docs/lifecycle.md).

Kubernetes' core validation, pkg/apis/core/validation/validation.go `ValidateSecretUpdate` and
`ValidateConfigMapUpdate`, read from AIAgentSandox/kubernetes@64149d12 (the 1.36 development tree
docs/validation.md reads: the kubernetes repository is too large to fetch here, and its stored copy
carries no line numbers); their tables, TestValidateSecretUpdate and TestValidateConfigMapUpdate of
validation_test.go, are ported in tests/upstream/kubernetes/test_core_validation_update.py:

* a Secret's `type` can never change: `ValidateImmutableField(newSecret.Type, oldSecret.Type)`,
  apimachinery v0.36.3 pkg/api/validation/objectmeta.go:131-137, an Invalid error with
  `FieldImmutableErrorMsg` (objectmeta.go:34, "field is immutable");
* once `immutable: true` is stored, `immutable` must stay true and each data map must stay the same,
  each a Forbidden error "field is immutable when `immutable` is set": a Secret's `data`, a ConfigMap's
  `data` and `binaryData`. A Secret's `stringData` is merged into `data` before validation (upstream's
  comment in ValidateSecretUpdate: it "was already converted back to Data"), so what is compared is
  the data the Secret would hold: `data` decoded from base64, `stringData` over it.

Go's `reflect.DeepEqual` on the maps tells a nil map from an empty one; a stored empty map comes back
nil, so an absent map and `{}` are taken as the same here.
"""

from __future__ import annotations

import base64
import binascii

from kpt_fn.lifecycle.jobset_update import Refusal

IMMUTABLE = "field is immutable"
WHEN_IMMUTABLE = "field is immutable when `immutable` is set"
RULE = "core-validation/update"


def _map(obj: dict, field: str) -> dict:
    value = obj.get(field)
    return value if isinstance(value, dict) else {}


def secret_data(secret: dict) -> dict:
    """{key: bytes} a Secret holds once stored: `data` decoded, `stringData` written over it (a value
    that is not base64 is kept as its text: the render refuses it anyway, and it still compares)."""
    out = {}
    for key, value in _map(secret, "data").items():
        try:
            out[key] = base64.b64decode(str(value), validate=True) if value is not None else b""
        except (binascii.Error, ValueError):
            out[key] = str(value).encode("utf-8", "surrogatepass")
    for key, value in _map(secret, "stringData").items():
        out[key] = str(value if value is not None else "").encode("utf-8", "surrogatepass")
    return out


def _immutable(obj: dict) -> bool:
    return obj.get("immutable") is True


def secret_refusals(old: dict, new: dict) -> list[Refusal]:
    """ValidateSecretUpdate's update checks on the stored Secret `old` and the applied `new`."""
    out = []
    # An empty type is defaulted to Opaque when the Secret is created (SetDefaults_Secret).
    if (new.get("type") or "Opaque") != (old.get("type") or "Opaque"):
        out.append(Refusal("type", IMMUTABLE, RULE))
    if _immutable(old):
        if not _immutable(new):
            out.append(Refusal("immutable", WHEN_IMMUTABLE, RULE))
        if secret_data(new) != secret_data(old):
            out.append(Refusal("data", WHEN_IMMUTABLE, RULE))
    return out


def configmap_refusals(old: dict, new: dict) -> list[Refusal]:
    """ValidateConfigMapUpdate's update checks on the stored ConfigMap `old` and the applied `new`."""
    if not _immutable(old):
        return []
    out = []
    if not _immutable(new):
        out.append(Refusal("immutable", WHEN_IMMUTABLE, RULE))
    for field in ("data", "binaryData"):
        if _map(new, field) != _map(old, field):
            out.append(Refusal(field, WHEN_IMMUTABLE, RULE))
    return out


def refusals(old: dict, new: dict) -> list[Refusal] | None:
    """The refusals of a core Secret or ConfigMap update; None for any other kind."""
    if not (isinstance(old, dict) and isinstance(new, dict)) or str(new.get("apiVersion", "")) != "v1":
        return None
    if new.get("kind") == "Secret":
        return secret_refusals(old, new)
    if new.get("kind") == "ConfigMap":
        return configmap_refusals(old, new)
    return None
