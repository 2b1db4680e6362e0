"""Two TrainJobs that generate the same object (a Secret shared by name) emit it once, and nothing
is reported; objects that differ under one identity are an error (function._fingerprint decides,
in KRM mode once the first is frozen to text, and in plain modes alike)."""

from __future__ import annotations

from kpt_fn import function
from kpt_fn.cli import krm
from kpt_fn.problems import ERROR
from kpt_fn.yamlio import dump, load


def _trainjob(name: str) -> dict:
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": name, "namespace": "team"},
            "spec": {"runtimeRef": {"name": "deepspeed-distributed"}, "trainer": {"numNodes": 2}}}


CONFIG = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fc"},
          "data": {"mpiSSHSecret": "generate", "mpiSSHSecretName": "team-ssh", "secretSeed": "0123456789abcdef-seed"}}


def _secrets(items) -> list:
    return [i for i in items if isinstance(i, dict) and i.get("kind") == "Secret"]


def test_a_shared_secret_is_emitted_once_in_plain_runs():
    outcome = function.run([_trainjob("a"), _trainjob("b")], CONFIG)
    assert not [r for r in outcome.results if r.severity == ERROR]
    assert [s["metadata"]["name"] for s in _secrets(outcome.items)] == ["team-ssh"]


def test_a_shared_secret_is_emitted_once_in_krm_mode():
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
          "items": [_trainjob("a"), _trainjob("b")], "functionConfig": CONFIG}
    text, _, code = krm.process(dump(rl).encode())
    out = load(text)
    assert code == 0 and not [r for r in out.get("results") or () if r.get("severity") == "error"]
    assert [s["metadata"]["name"] for s in _secrets(out["items"])] == ["team-ssh"]


def test_fingerprints_tell_content_types_and_key_order_apart():
    fp = function._fingerprint
    shared = "x" * 20
    assert fp({"a": [shared, shared], "n": 1}) == fp({"a": ["x" * 20, "".join(["x"] * 20)], "n": 1})
    assert fp({"n": 1}) != fp({"n": True}) and fp({"n": 1}) != fp({"n": 1.0})
    assert fp({"a": 1, "b": 2}) != fp({"b": 2, "a": 1})  # written in another order: not the same text
    assert fp({"q": object.__new__(object)})[0] > 0  # not plain data: still a fingerprint
