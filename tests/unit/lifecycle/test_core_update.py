"""kpt_fn.lifecycle.core_update: the API server's update checks of Secrets and ConfigMaps
(ValidateSecretUpdate, ValidateConfigMapUpdate). Kubernetes' own tables are ported in
tests/upstream/kubernetes/test_core_validation_update.py; the cases below are what those tables
leave out (stringData, a Secret's type, binaryData, metadata changes, empty maps)."""

from __future__ import annotations

import base64

from kpt_fn.lifecycle import core_update as cu

def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def secret(data=None, string_data=None, immutable=None, type_=None) -> dict:
    out = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "ml"}}
    for key, value in (("data", data), ("stringData", string_data), ("immutable", immutable), ("type", type_)):
        if value is not None:
            out[key] = value
    return out


def configmap(data=None, binary=None, immutable=None) -> dict:
    out = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "ml"}}
    for key, value in (("data", data), ("binaryData", binary), ("immutable", immutable)):
        if value is not None:
            out[key] = value
    return out


def paths(found):
    return [r.path for r in found]


def test_an_immutable_secrets_data_cannot_change():
    old = secret({"key": b64("one")}, immutable=True)
    assert paths(cu.refusals(old, secret({"key": b64("two")}, immutable=True))) == ["data"]
    assert paths(cu.refusals(old, secret({"key": b64("two")}))) == ["immutable", "data"]
    assert paths(cu.refusals(old, secret({"key": b64("one")}, immutable=False))) == ["immutable"]
    [refusal] = cu.refusals(old, secret({"key": b64("one"), "more": b64("x")}, immutable=True))
    assert refusal.message == "field is immutable when `immutable` is set"


def test_string_data_is_compared_as_the_data_it_becomes():
    old = secret({"key": b64("one")}, immutable=True)
    assert cu.refusals(old, secret(string_data={"key": "one"}, immutable=True)) == []  # the same bytes
    assert paths(cu.refusals(old, secret({"key": b64("one")}, {"key": "two"}, immutable=True))) == ["data"]


def test_a_secrets_type_never_changes_and_empty_is_opaque():
    assert paths(cu.refusals(secret(type_="Opaque"), secret(type_="kubernetes.io/ssh-auth"))) == ["type"]
    assert cu.refusals(secret(), secret(type_="Opaque")) == []


def test_an_immutable_configmap():
    old = configmap({"a": "1"}, {"b": b64("x")}, immutable=True)
    assert paths(cu.refusals(old, configmap({"a": "2"}, {"b": b64("x")}, immutable=True))) == ["data"]
    assert paths(cu.refusals(old, configmap({"a": "1"}, {"b": b64("y")}, immutable=True))) == ["binaryData"]
    assert paths(cu.refusals(old, configmap({"a": "1"}, {"b": b64("x")}))) == ["immutable"]


def test_controls_that_the_api_server_accepts():
    # Mutable objects change freely; an immutable one may keep its data and change its metadata, and
    # a mutable one may become immutable.
    assert cu.refusals(secret({"k": b64("1")}), secret({"k": b64("2")})) == []
    assert cu.refusals(configmap({"a": "1"}), configmap({"a": "2"}, immutable=True)) == []
    old = configmap({"a": "1"}, immutable=True)
    relabelled = {**configmap({"a": "1"}, immutable=True), "metadata": {"name": "c", "namespace": "ml", "labels": {"x": "y"}}}
    assert cu.refusals(old, relabelled) == []
    assert cu.refusals(configmap(immutable=True), configmap({}, immutable=True)) == []  # {} and absent: both nil once stored
    assert cu.refusals({"apiVersion": "apps/v1", "kind": "Deployment"}, {"apiVersion": "apps/v1", "kind": "Deployment"}) is None
