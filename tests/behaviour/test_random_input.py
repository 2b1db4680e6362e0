"""Property tests: random and mutated ResourceLists never break the function's promises.

For every input, through kpt_fn.cli.krm.process (in-process, fast) and a few times through the console
script: stdout is a ResourceList, the exit code agrees with the results (1 iff there is an error
result), nothing raises and nothing prints a traceback, and every item of a parseable input comes
back in order (test_hostile_input.check_invariants).

The normal run is small and derandomized (same examples every time). The long fuzz run:

    FUZZ_EXAMPLES=20000 .venv/bin/python -m pytest -q -n 2 tests/behaviour/test_random_input.py -p no:cacheprovider

draws fresh random examples (and keeps failures in .hypothesis/ to replay them first next time).
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from behaviour.test_hostile_input import CORPUS, check_invariants, load_case

from kpt_fn import yamlio
from kpt_fn.cli import krm

FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES") or 0)
SETTINGS = settings(
    max_examples=FUZZ_EXAMPLES or 40,
    derandomize=not FUZZ_EXAMPLES,
    deadline=None,
    database=None if not FUZZ_EXAMPLES else settings.default.database,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

HEAD = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList"}


def _items_of(case: str) -> list:
    _, data = load_case(CORPUS / case)
    return krm.parse_resource_list(data)["items"]


def _trainjob(name: str, runtime: str, trainer: dict | None = None, kind: str = "ClusterTrainingRuntime") -> dict:
    spec: dict = {"runtimeRef": {"name": runtime, "kind": kind}}
    if trainer is not None:
        spec["trainer"] = trainer
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": name, "namespace": "ml"},
        "spec": spec,
    }


# Objects that render (or nearly): the seeds that mutations start from.
SEEDS = [
    *_items_of("runtime-source-conflict"),  # TrainingRuntime + TrainJob with kpt path annotations
    *_items_of("template-injection"),  # Flux runtime + TrainJob
    _trainjob("ds", "deepspeed-distributed", {"numNodes": 2, "numProcPerNode": 4}),
    _trainjob("jx", "jax-distributed", {"numNodes": 2}),
    _trainjob("xg", "xgboost-distributed", {"numNodes": 3, "env": [{"name": "A", "value": "1"}]}),
    _trainjob("tt", "torchtune-llama3.2-1b", {"resourcesPerNode": {"limits": {"nvidia.com/gpu": 2}}}),
    _trainjob("td", "torch-distributed", {"numNodes": 2, "numProcPerNode": "auto", "resourcesPerNode": {"requests": {"cpu": "3"}}}),
    {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "ml"}, "data": {"a": "1"}},
    {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "td", "namespace": "ml"}, "spec": {}},
]

KINDS = ["TrainJob", "TrainingRuntime", "ClusterTrainingRuntime", "ConfigMap", "JobSet", "Trainjob", "ResourceList", ""]
API_VERSIONS = ["trainer.kubeflow.org/v1alpha1", "trainer.kubeflow.org/v2alpha1", "kubeflow.org/v2alpha1", "v1", "jobset.x-k8s.io/v1alpha2", "x/y/z", ""]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63),
    st.floats(allow_nan=False, width=64),
    st.text(max_size=20),
    st.sampled_from(["auto", "cpu", "gpu", "1Gi", "500m", "node", "trainer", "torch-distributed", "{{ 1 }}", "*a", "&a", "!!str"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(max_size=12), inner, max_size=4),
    ),
    max_leaves=12,
)


def _paths(obj, prefix=()):
    """Every path into obj (dict keys and list indexes), the empty path included."""
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, (*prefix, i))


def _mutate(obj, data):
    obj = copy.deepcopy(obj)
    for _ in range(data.draw(st.integers(min_value=1, max_value=3), label="mutations")):
        paths = list(_paths(obj))
        path = data.draw(st.sampled_from(paths), label="path")
        if not path:
            obj = data.draw(values, label="whole item")
            continue
        parent = obj
        for step in path[:-1]:
            parent = parent[step]
        key = path[-1]
        action = data.draw(st.sampled_from(["replace", "delete", "null", "wrap", "add"]), label="action")
        if action == "replace":
            parent[key] = data.draw(values, label="value")
        elif action == "delete":
            del parent[key]
        elif action == "null":
            parent[key] = None
        elif action == "wrap":
            parent[key] = [parent[key]]
        elif isinstance(parent[key], dict):
            parent[key][data.draw(st.text(max_size=12), label="new key")] = data.draw(values, label="new value")
        elif isinstance(parent[key], list):
            parent[key].append(data.draw(values, label="new element"))
    return obj


@st.composite
def items(draw):
    out = []
    for _ in range(draw(st.integers(min_value=0, max_value=5), label="items")):
        source = draw(st.sampled_from(["seed", "mutated", "value", "object"]), label="source")
        if source == "seed":
            out.append(copy.deepcopy(draw(st.sampled_from(SEEDS))))
        elif source == "mutated":
            out.append(_mutate(draw(st.sampled_from(SEEDS)), draw(st.data())))
        elif source == "value":
            out.append(draw(values))
        else:
            obj = {"apiVersion": draw(st.sampled_from(API_VERSIONS)), "kind": draw(st.sampled_from(KINDS))}
            obj.update(draw(st.dictionaries(st.sampled_from(["metadata", "spec", "data", "items"]), values, max_size=3)))
            out.append(obj)
    return out


OPTION_VALUES = {
    "mode": st.sampled_from(["render", "validate", "bogus"]),
    "namespace": st.sampled_from(["", "ml", "other"]),
    "builtinRuntimes": st.sampled_from([True, False, "true", "no"]),
    "output": st.sampled_from(["generated", "all"]),
    "mpiSSHSecret": st.sampled_from(["reference", "generate"]),
    "fluxCurveSecret": st.sampled_from(["reference", "generate"]),
    "secretSeed": st.sampled_from(["", "a-secret-seed-of-some-length"]),
    "maxDepth": st.sampled_from([1, 3, 10, 100, "5", -1]),
    "maxAliasNodes": st.sampled_from([1, 10, 1000, 5_000_000]),
    "maxInputBytes": st.sampled_from([10, 100, 10_000, 67_108_864]),
    "runtimeDirs": st.sampled_from([[], ["no-such-dir"], "a,b", 7]),
    "trainJobs": st.sampled_from([[], [1], [SEEDS[1]]]),
}


@st.composite
def function_configs(draw):
    shape = draw(st.sampled_from(["none", "empty", "configmap", "expand", "garbage"]), label="functionConfig")
    if shape == "none":
        return None
    if shape == "empty":
        return {}
    if shape == "garbage":
        return draw(values)
    chosen = draw(st.dictionaries(st.sampled_from(sorted(OPTION_VALUES)), st.just(None), max_size=3))
    options = {k: draw(OPTION_VALUES[k]) for k in chosen}
    if shape == "configmap":
        data = {k: v if isinstance(v, str) else (",".join(map(str, v)) if isinstance(v, list) else str(v)) for k, v in options.items()}
        return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}, "data": data}
    return {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "metadata": {"name": "cfg"}, "spec": options}


@st.composite
def resource_lists(draw):
    rl = {**HEAD, "items": draw(items())}
    fc = draw(function_configs())
    if fc is not None or draw(st.booleans()):
        rl["functionConfig"] = fc
    as_json = draw(st.booleans(), label="json")
    return (json.dumps(rl) if as_json else yamlio.dump(rl)).encode("utf-8")


def _run(data: bytes, tmp: Path | None = None):
    stdout, stderr, code = krm.process(data, base_dir=str(tmp or CORPUS), env={})
    return check_invariants(data, stdout, stderr, code)


@SETTINGS
@given(resource_lists())
def test_random_resource_lists(data):
    _run(data)


@st.composite
def mutated_text(draw):
    """A valid serialized ResourceList with bytes deleted, inserted, duplicated or replaced."""
    rl = {**HEAD, "items": [copy.deepcopy(x) for x in draw(st.lists(st.sampled_from(SEEDS), min_size=1, max_size=3))]}
    text = bytearray((json.dumps(rl, indent=draw(st.sampled_from([None, 1]))) if draw(st.booleans()) else yamlio.dump(rl)).encode())
    for _ in range(draw(st.integers(min_value=1, max_value=4), label="edits")):
        if not text:
            break
        i = draw(st.integers(min_value=0, max_value=len(text) - 1), label="at")
        j = draw(st.integers(min_value=i, max_value=min(len(text), i + 40)), label="to")
        edit = draw(st.sampled_from(["delete", "insert", "duplicate", "replace"]), label="edit")
        if edit == "delete":
            del text[i:j]
        elif edit == "duplicate":
            text[i:i] = text[i:j]
        else:
            chunk = draw(
                st.one_of(
                    st.binary(max_size=8),
                    st.sampled_from([b"&a ", b"*a", b"<<: *a", b"!!python/object:os.system ", b"!foo ", b"[", b"{", b"- ", b":", b"\t", b"\x00", b"\xff", b"---\n", b"'", b'"', b"\n  ", b"~", b"0x", b"1e999", b"\xef\xbb\xbf"]),
                ),
                label="bytes",
            )
            if edit == "insert":
                text[i:i] = chunk
            else:
                text[i:j] = chunk
    return bytes(text)


@SETTINGS
@given(mutated_text())
def test_mutated_text(data):
    _run(data)


# A few runs through the console script: the same invariants, and no traceback on stderr.
CONSOLE_EXAMPLES = [
    b"",
    b"\xff\xfe\x00\x00",
    yamlio.dump({**HEAD, "items": [1, None, "x", SEEDS[0], SEEDS[1]]}).encode(),
    json.dumps({**HEAD, "items": [SEEDS[5], {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "spec": []}]}).encode(),
    yamlio.dump({**HEAD, "items": SEEDS, "functionConfig": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"maxDepth": "4"}}}).encode(),
]


@pytest.mark.parametrize("data", CONSOLE_EXAMPLES, ids=["empty", "utf32", "junk-items", "json", "config-limit"])
def test_console_script_examples(data, fn):
    p = subprocess.run([fn], input=data, capture_output=True, cwd=CORPUS, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, timeout=120)
    stderr = p.stderr.decode("utf-8")
    assert "Traceback" not in stderr
    check_invariants(data, p.stdout.decode("utf-8"), stderr.splitlines(), p.returncode)


# --- size-amplifying inputs: aliases that multiply nodes or text, merge-key chains, long
# flow lists. The output must stay proportionate to the input and the alias limits (set low here), on
# the fast path and on the fallback that dumps items (an alias across items).
AMPLIFY_ENV = {"EXPAND_TRAINJOBS_MAX_ALIAS_NODES": "100000", "EXPAND_TRAINJOBS_MAX_ALIAS_BYTES": "100000"}


@st.composite
def amplifying(draw):
    leaf = "x" * draw(st.integers(min_value=1, max_value=5000), label="leaf length")
    shape = draw(st.sampled_from(["laughs", "long-scalar", "merge-chain", "flow-list"]), label="shape")
    lines = []
    if shape == "laughs":
        depth = draw(st.integers(min_value=1, max_value=7), label="depth")
        fanout = draw(st.integers(min_value=2, max_value=12), label="fanout")
        lines.append(f"    l0: &l0 [{leaf}]")
        for i in range(1, depth + 1):
            lines.append(f"    l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * fanout) + "]")
        last = f"*l{depth}"
    elif shape == "long-scalar":
        lines.append(f"    big: &big {leaf}")
        lines.append("    copies: [" + ", ".join(["*big"] * draw(st.integers(min_value=1, max_value=2000), label="copies")) + "]")
        last = "*big"
    elif shape == "merge-chain":
        n = draw(st.integers(min_value=1, max_value=60), label="chain")
        lines.append(f"    m0: &m0 {{k0: {leaf}}}")
        for i in range(1, n + 1):
            lines.append(f"    m{i}: &m{i} {{<<: *m{i - 1}, k{i}: v}}")
        last = f"*m{n}"
    else:
        lines.append(f"    one: &one {leaf}")
        lines.append("    many: [" + ", ".join(["*one"] * draw(st.integers(min_value=1, max_value=5000), label="n")) + "]")
        last = "*one"
    item = "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: amp}\n  data:\n" + "\n".join(lines) + "\n"
    more = ""
    if draw(st.booleans(), label="alias across items"):
        more = "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: amp2}\n  data: {again: " + last + "}\n"
    return ("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" + item + more).encode()


@SETTINGS
@given(amplifying())
def test_size_amplifying_inputs(data):
    stdout, stderr, code = krm.process(data, base_dir=str(CORPUS), env=AMPLIFY_ENV)
    check_invariants(data, stdout, stderr, code, AMPLIFY_ENV)
    limit = int(AMPLIFY_ENV["EXPAND_TRAINJOBS_MAX_ALIAS_BYTES"])
    assert len(stdout) <= 8 * (len(data) + limit) + 100_000, (len(data), len(stdout))
