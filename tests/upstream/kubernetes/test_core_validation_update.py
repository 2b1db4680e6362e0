"""Kubernetes' own TestValidateSecretUpdate and TestValidateConfigMapUpdate, ported as data
(pkg/apis/core/validation/validation_test.go of AIAgentSandox/kubernetes@64149d12, the 1.36
development tree docs/validation.md reads; the functions they test: kpt_fn/lifecycle/core_update.py).

Each case is upstream's: the stored (old) object, the applied (new) one, and whether the API server
accepts the update. Upstream builds the objects from one valid Secret (`data-1: bar`) or ConfigMap
(`key: value`) with `immutable` unset, true or false and data added or changed; here each is the
manifest a user writes (a Secret's bytes as base64). A case is run twice: through
`core_update.refusals` (accepted means no refusal) and through what `diff` shows
(`classify.effect`: in-place or refused).
"""

from __future__ import annotations

import base64

import pytest

from kpt_fn import upstream
from kpt_fn.lifecycle import classify, core_update

NOT_PORTED = {
    "TestValidateConfigMapUpdate/invalid": "the new ConfigMap has no resourceVersion (ValidateObjectMetaUpdate); "
                                           "an apply client always sends the live one, a render never writes one",
}


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _secret(immutable=None, **data) -> dict:
    out = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "foo", "namespace": "bar"},
           "data": {"data-1": _b64("bar"), **{k.replace("_", "-"): _b64(v) for k, v in data.items()}}}
    if immutable is not None:
        out["immutable"] = immutable
    return out


def _configmap(immutable=None, **data) -> dict:
    out = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "validname", "namespace": "validdns"},
           "data": {"key": "value", **{k.replace("_", "-"): v for k, v in data.items()}}}
    if immutable is not None:
        out["immutable"] = immutable
    return out


# (upstream test, case name, old, new, valid)
SECRET = "TestValidateSecretUpdate"
CONFIGMAP = "TestValidateConfigMapUpdate"
CASES = [
    (SECRET, "mark secret immutable", _secret(), _secret(True), True),
    (SECRET, "revert immutable secret", _secret(True), _secret(), False),
    (SECRET, "makr immutable secret mutable", _secret(True), _secret(False), False),
    (SECRET, "add data in secret", _secret(), _secret(data_2="baz"), True),
    (SECRET, "add data in immutable secret", _secret(True), _secret(True, data_2="baz"), False),
    (SECRET, "change data in secret", _secret(), _secret(data_1="foo"), True),
    (SECRET, "change data in immutable secret", _secret(True), _secret(True, data_1="foo"), False),
    (CONFIGMAP, "valid", _configmap(), _configmap(), True),
    (CONFIGMAP, "mark configmap immutable", _configmap(), _configmap(True), True),
    (CONFIGMAP, "revert immutable configmap", _configmap(True), _configmap(), False),
    (CONFIGMAP, "mark immutable configmap mutable", _configmap(True), _configmap(False), False),
    (CONFIGMAP, "add data in configmap", _configmap(), _configmap(key_2="value-2"), True),
    (CONFIGMAP, "add data in immutable configmap", _configmap(True), _configmap(True, key_2="value-2"), False),
    (CONFIGMAP, "change data in configmap", _configmap(), _configmap(key="foo"), True),
    (CONFIGMAP, "change data in immutable configmap", _configmap(True), _configmap(True, key="foo"), False),
]

RELEASES = (upstream.bundle("v2.3.0"), upstream.bundle("v2.3.0"))


@pytest.mark.parametrize("test,name,old,new,valid", CASES, ids=[f"{c[0]}/{c[1]}" for c in CASES])
def test_upstream_update_table(test, name, old, new, valid):
    assert f"{test}/{name}" not in NOT_PORTED
    refusals = core_update.refusals(old, new)
    assert (refusals == []) is valid, refusals
    key = f"{new['kind']} {new['metadata']['namespace']}/{new['metadata']['name']}"
    effect = classify.effect(key, old, new, [], RELEASES)["effect"]
    assert effect == (classify.IN_PLACE if valid else classify.REFUSED)


def test_the_refusals_name_upstreams_field_and_detail():
    # ValidateSecretUpdate / ValidateConfigMapUpdate: field.Forbidden on `immutable` and on each
    # changed data map, "field is immutable when `immutable` is set"; a Secret's type through
    # ValidateImmutableField, "field is immutable"
    found = core_update.refusals(_secret(True), _secret(data_1="foo"))
    assert [(r.path, r.message) for r in found] == [("immutable", core_update.WHEN_IMMUTABLE),
                                                    ("data", core_update.WHEN_IMMUTABLE)]
    assert core_update.WHEN_IMMUTABLE == "field is immutable when `immutable` is set"
    old, new = _configmap(True), {**_configmap(True, key="foo"), "binaryData": {"b": _b64("x")}}
    assert [r.path for r in core_update.refusals(old, new)] == ["data", "binaryData"]
    typed = {**_secret(), "type": "kubernetes.io/ssh-auth"}
    assert [(r.path, r.message) for r in core_update.refusals(_secret(), typed)] == [("type", "field is immutable")]


def test_every_case_is_ported_or_says_why_not():
    ported = {f"{t}/{n}" for t, n, *_ in CASES}
    assert not ported & set(NOT_PORTED)
    assert len(ported) + len(NOT_PORTED) == 7 + 9  # upstream's two tables, case for case
