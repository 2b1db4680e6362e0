"""Our strategic merge against the real one: `kubectl patch --local --type strategic` runs
apimachinery's strategicpatch on a Pod, whose {metadata, spec} is a PodTemplateSpec.

Each hypothesis example is one patch applied to several random pods in a single kubectl call
(a `kind: List` file). Default 25 examples; set SMP_KUBECTL_EXAMPLES for more.
kubectl never talks to a cluster: --local, and KUBECONFIG points at an empty file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kpt_fn import upstream
from kpt_fn.engine.smp import MergeError, strategic_merge

KUBECTL = shutil.which("kubectl")
EXAMPLES = int(os.environ.get("SMP_KUBECTL_EXAMPLES", "25"))

pytestmark = pytest.mark.skipif(
    KUBECTL is None, reason="kubectl is not on PATH; the cross-check against upstream's merge needs it"
)


class KubectlFailed(Exception):
    pass


def kubectl_patch(pods: list[dict], patch: dict) -> list[dict]:
    """{metadata, spec} of each pod after kubectl applied `patch` to it."""
    with tempfile.TemporaryDirectory() as tmp:
        kubeconfig = Path(tmp, "kubeconfig")
        kubeconfig.write_text("")
        source = Path(tmp, "pods.json")
        items = [{"apiVersion": "v1", "kind": "Pod", **pod} for pod in pods]
        source.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
        env = {"PATH": os.environ.get("PATH", ""), "KUBECONFIG": str(kubeconfig), "HOME": tmp}
        proc = subprocess.run(
            [KUBECTL, "patch", "--local", "-f", str(source), "--type", "strategic",
             "-p", json.dumps(patch), "-o", "json"],
            capture_output=True, text=True, env=env, timeout=120, check=False,
        )
    if proc.returncode != 0:
        raise KubectlFailed(proc.stderr.strip())
    decoder = json.JSONDecoder()
    out, pos, text = [], 0, proc.stdout
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        obj, pos = decoder.raw_decode(text, pos)
        out.append({k: v for k, v in obj.items() if k in ("metadata", "spec")})
    assert len(out) == len(pods), proc.stdout
    return out


# ------------------------------------------------------------------------------------------------
# Strategies. Small key pools so that patches hit existing items, miss them, and reorder them.

def keyed_list(pool, make_item):
    """Items for keys drawn from `pool`: usually distinct keys in random order, sometimes repeats."""
    keys = st.one_of(
        st.lists(st.sampled_from(pool), unique=True, max_size=len(pool)),
        st.lists(st.sampled_from(pool), max_size=len(pool) + 1),
    )
    return keys.flatmap(lambda ks: st.tuples(*[make_item(k) for k in ks]).map(list))


def optional_fields(required: dict, optional: dict, nullable: bool):
    """Dict with `required` entries and a random subset of `optional` ones (values may be None)."""
    def add_null(s):
        return st.one_of(s, st.none()) if nullable else s
    return st.fixed_dictionaries(required, optional={k: add_null(v) for k, v in optional.items()})


short_text = st.sampled_from(["x", "y", "z", "1", ""])


def env_var(nullable):
    def make(name):
        return st.one_of(
            optional_fields({"name": st.just(name)}, {"value": short_text}, nullable),
            st.just({"name": name, "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}),
        )
    return make


def volume_mount(nullable):
    def make(path):
        return optional_fields(
            {"mountPath": st.just(path)},
            {"name": st.sampled_from(["v1", "v2"]), "readOnly": st.booleans(), "subPath": short_text},
            nullable,
        )
    return make


def port(nullable):
    def make(number):
        return optional_fields(
            {"containerPort": st.just(number)},
            {"name": st.sampled_from(["http", "grpc"]), "protocol": st.sampled_from(["TCP", "UDP"])},
            nullable,
        )
    return make


def capabilities():
    caps = st.lists(st.sampled_from(["NET_ADMIN", "SYS_TIME", "ALL"]), unique=True, max_size=2)
    return st.fixed_dictionaries({}, optional={"add": caps, "drop": caps})


def container_security_context(nullable):
    return optional_fields(
        {},
        {"runAsUser": st.integers(0, 3), "privileged": st.booleans(), "capabilities": capabilities()},
        nullable,
    )


def resource_map():
    return st.dictionaries(
        st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]), st.sampled_from(["1", "2", "500m", "1Gi"]),
        max_size=2,
    )


def container(nullable):
    def make(name):
        return optional_fields(
            {"name": st.just(name)},
            {
                "image": st.sampled_from(["img:1", "img:2"]),
                "command": st.lists(st.sampled_from(["a", "b"]), max_size=2),
                "env": keyed_list(["A", "B", "C", "D", "E"], env_var(nullable)),
                "volumeMounts": keyed_list(["/a", "/b", "/c", "/d"], volume_mount(nullable)),
                "ports": keyed_list([80, 443, 8080], port(nullable)),
                "securityContext": container_security_context(nullable),
                "resources": st.fixed_dictionaries({}, optional={"limits": resource_map(), "requests": resource_map()}),
            },
            nullable,
        )
    return make


def volume(name):
    return st.one_of(
        st.just({"name": name, "emptyDir": {}}),
        st.just({"name": name, "emptyDir": {"medium": "Memory"}}),
        st.just({"name": name, "configMap": {"name": "cm"}}),
        st.just({"name": name, "secret": {"secretName": "s"}}),
    )


def string_map(nullable):
    values = st.one_of(short_text, st.none()) if nullable else short_text
    return st.dictionaries(st.sampled_from(["k1", "k2", "k3", "example.com/k4"]), values, max_size=3)


def pod_security_context(nullable):
    return optional_fields(
        {},
        {
            "runAsUser": st.integers(0, 3),
            "supplementalGroups": st.lists(st.integers(1, 4), max_size=3),
            "sysctls": st.lists(st.fixed_dictionaries({"name": st.sampled_from(["a", "b"]), "value": short_text}),
                                max_size=2),
        },
        nullable,
    )


def pod_template(nullable: bool):
    """A {metadata, spec}; with nullable=True it is a patch (values may be null = delete)."""
    finalizers = st.lists(st.sampled_from(["f1", "f2", "f3"]), unique=not nullable, max_size=3)
    metadata = st.fixed_dictionaries(
        {}, optional={"labels": string_map(nullable), "annotations": string_map(nullable), "finalizers": finalizers}
    )
    spec = st.fixed_dictionaries(
        {},
        optional={
            "containers": keyed_list(["a", "b", "c", "d"], container(nullable)),
            "initContainers": keyed_list(["i1", "i2", "i3"], container(nullable)),
            "volumes": keyed_list(["v1", "v2", "v3"], volume),
            "imagePullSecrets": keyed_list(["s1", "s2", "s3"], lambda n: st.just({"name": n})),
            "schedulingGates": keyed_list(["g1", "g2", "g3"], lambda n: st.just({"name": n})),
            "tolerations": st.lists(
                st.fixed_dictionaries({"key": st.sampled_from(["t1", "t2"]), "operator": st.just("Exists")}),
                max_size=2),
            "nodeSelector": string_map(nullable),
            "securityContext": pod_security_context(nullable),
            "serviceAccountName": st.sampled_from(["sa1", "sa2"]),
            "terminationGracePeriodSeconds": st.integers(0, 60),
        },
    )
    return st.fixed_dictionaries({"metadata": metadata, "spec": spec})


def named(pod: dict, index: int) -> dict:
    metadata = dict(pod["metadata"], name=f"p{index}")
    return {"metadata": metadata, "spec": pod["spec"]}


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(pods=st.lists(pod_template(nullable=False), min_size=1, max_size=6), patch=pod_template(nullable=True))
def test_matches_kubectl(pods, patch):
    pods = [named(pod, i) for i, pod in enumerate(pods)]
    expected = kubectl_patch(pods, patch)
    for pod, want in zip(pods, expected):
        assert strategic_merge(pod, patch, "PodTemplateSpec", upstream.bundle("v2.3.0")) == want


# ------------------------------------------------------------------------------------------------
# Fixed cases of apimachinery's strategicpatch that runtimePatches rely on (new items first, patched
# items in patch order, duplicates, nulls, type mismatches, finalizers as a union) and the error path.

FIXED = [
    # env by name: new items first, patched items in patch order
    ({"containers": [{"name": "c", "env": [{"name": "A"}, {"name": "B"}]}]},
     {"containers": [{"name": "c", "env": [{"name": "C"}]}]}),
    ({"containers": [{"name": "c", "env": [{"name": "A"}, {"name": "B"}]}]},
     {"containers": [{"name": "c", "env": [{"name": "B", "value": "2"}, {"name": "C"}]}]}),
    ({"containers": [{"name": "c", "env": [{"name": "A"}, {"name": "B"}]}]},
     {"containers": [{"name": "c", "env": [{"name": "C"}, {"name": "A", "value": "1"}]}]}),
    ({"containers": [{"name": "c", "env": [{"name": "A"}, {"name": "B"}, {"name": "C"}]}]},
     {"containers": [{"name": "c", "env": [{"name": "C"}, {"name": "X"}, {"name": "A"}]}]}),
    # duplicates in the original and in the patch
    ({"containers": [{"name": "c", "env": [{"name": "A", "value": "1"}, {"name": "B"}, {"name": "A", "value": "2"}]}]},
     {"containers": [{"name": "c", "env": [{"name": "Z"}, {"name": "A", "value": "3"}, {"name": "Z", "value": "4"}]}]}),
    ({"imagePullSecrets": [{"name": "s1"}]}, {"imagePullSecrets": [{"name": "s2"}]}),
    ({"tolerations": [{"key": "t1", "operator": "Exists"}], "nodeSelector": {"pool": "a"}},
     {"tolerations": [{"key": "t2", "operator": "Exists"}], "nodeSelector": {"zone": "z1"}}),
    # null handling: a null deletes; nulls inside a new key are dropped; inside a new list item kept
    ({"nodeSelector": {"a": "1", "b": "2"}, "containers": [{"name": "c", "image": "x"}]},
     {"nodeSelector": {"a": None}, "securityContext": {"runAsUser": None, "runAsGroup": 1},
      "containers": [{"name": "c", "image": None}, {"name": "n", "image": None}]}),
    # type mismatch: patch value replaces
    ({"nodeSelector": {"a": "1"}}, {"nodeSelector": "oops"}),
    # finalizers union, with duplicates in the original
    ({"containers": []}, {"containers": []}),
]


@pytest.mark.parametrize("spec,patch", FIXED)
def test_fixed_cases_match_kubectl(spec, patch):
    pod = {"metadata": {"name": "p", "finalizers": ["f1", "f1", "f2"]}, "spec": spec}
    full_patch = {"metadata": {"finalizers": ["f3", "f1"]}, "spec": patch}
    try:
        want = kubectl_patch([pod], full_patch)[0]
    except KubectlFailed as failure:
        with pytest.raises(MergeError):
            strategic_merge(pod, full_patch, "PodTemplateSpec", upstream.bundle("v2.3.0"))
        pytest.skip(f"kubectl refused the patch too: {failure}")
    assert strategic_merge(pod, full_patch, "PodTemplateSpec", upstream.bundle("v2.3.0")) == want


def test_missing_merge_key_fails_like_kubectl():
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "env": [{"name": "A"}]}]}}
    patch = {"spec": {"containers": [{"name": "c", "env": [{"value": "x"}]}]}}
    with pytest.raises(KubectlFailed, match="does not contain declared merge key: name"):
        kubectl_patch([pod], patch)
    with pytest.raises(MergeError, match="does not contain declared merge key: name") as err:
        strategic_merge(pod, patch, "PodTemplateSpec", upstream.bundle("v2.3.0"))
    assert err.value.path == "spec.containers[0].env"
