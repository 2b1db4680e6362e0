"""Every runtime Trainer ships renders, its JobSet keeps the runtime's jobs in their order, and its output is
valid (manifests/base/runtimes and the install overlays at v2.3.0 and v2.2.1).

Runtimes are read from shared/upstream with the install overlay applied (tests/support/shipped.py
`shipped_runtimes`), independently of the function's built-in catalog, which is checked against it.
"""

from __future__ import annotations

import pytest

from kpt_fn import upstream
from kpt_fn.engine import expand
from kpt_fn.problems import has_errors
from support.golden_engine import engine_options
from support.shipped import shipped_runtimes

pytestmark = pytest.mark.upstream  # every test reads the shipped runtimes from ../shared

SHIPPED = [
    "deepspeed-distributed",
    "jax-distributed",
    "mlx-distributed",
    "torch-distributed",
    "torch-distributed-with-cache",
    "torchtune-llama3.2-1b",
    "torchtune-llama3.2-3b",
    "torchtune-qwen2.5-1.5b",
    "xgboost-distributed",
]
MPI_RUNTIMES = {"deepspeed-distributed", "mlx-distributed"}

# A TrainJob the way the SDK / docs use each runtime.
TYPICAL_TRAINER = {
    "deepspeed-distributed": {"numNodes": 2, "command": ["mpirun", "python3", "/home/mpiuser/train.py"],
                              "resourcesPerNode": {"limits": {"nvidia.com/gpu": 4}}},
    "mlx-distributed": {"numNodes": 3, "numProcPerNode": 2, "command": ["mpirun", "python3", "train.py"]},
    "jax-distributed": {"numNodes": 2, "command": ["python", "train.py"]},
    "torch-distributed": {"numNodes": 2, "command": ["torchrun", "train.py"],
                          "resourcesPerNode": {"requests": {"cpu": "2"}}},
    "torch-distributed-with-cache": {"numNodes": 2, "command": ["torchrun", "train.py"]},
    "torchtune-llama3.2-1b": {"command": ["tune", "run"], "args": ["epochs=1"]},
    "torchtune-llama3.2-3b": {"command": ["tune", "run"], "resourcesPerNode": {"limits": {"nvidia.com/gpu": 1}}},
    "torchtune-qwen2.5-1.5b": {"command": ["tune", "run"], "args": ["model.lora_attn_modules=[q_proj,v_proj]"]},
    "xgboost-distributed": {"numNodes": 2, "resourcesPerNode": {"limits": {"nvidia.com/gpu": 1}}},
}


def _trainjob(runtime: str, trainer: dict | None = None, **spec) -> dict:
    body = {"runtimeRef": {"name": runtime}, **spec}
    if trainer is not None:
        body["trainer"] = trainer
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": "job", "namespace": "team"}, "spec": body}


def _validation():
    validation = pytest.importorskip("kpt_fn.validation")
    return getattr(validation, "check_object", None), getattr(validation, "check_jobset_webhook", None)


def _assert_valid(objects):
    check_object, jobset_webhook = _validation()
    if check_object is None:
        return
    bundle = upstream.bundle("v2.3.0")
    for obj in objects:
        errors = [(p.path, p.message) for p in check_object(obj, bundle) if p.is_error]
        if obj["kind"] == "JobSet" and jobset_webhook is not None:
            errors += [(p.path, p.message) for p in jobset_webhook(obj, bundle) if p.is_error]
        assert errors == [], f"{obj['kind']} {obj['metadata']['name']}"


def test_all_nine_are_shipped():
    assert sorted(shipped_runtimes()) == SHIPPED


@pytest.mark.parametrize("runtime", SHIPPED)
@pytest.mark.parametrize("variant", ["minimal", "typical"])
def test_shipped_runtime_renders(runtime, variant):
    trainer = None if variant == "minimal" else TYPICAL_TRAINER[runtime]
    result = expand(_trainjob(runtime, trainer), shipped_runtimes()[runtime], engine_options({}))
    assert not has_errors(result.problems), [p.message for p in result.problems]
    kinds = [o["kind"] for o in result.objects]
    jobset = result.objects[-1]
    assert [rj["name"] for rj in jobset["spec"]["replicatedJobs"]] == \
        [rj["name"] for rj in shipped_runtimes()[runtime]["spec"]["template"]["spec"]["replicatedJobs"]]
    if runtime in MPI_RUNTIMES:
        # No key material by default: the hostfile, the JobSet, and a result naming the Secret.
        assert kinds == ["ConfigMap", "JobSet"]
        assert [p.rule for p in result.problems] == ["secret-policy/mpi-ssh-secret-required"]
    else:
        assert kinds == ["JobSet"]
        assert result.problems == []
    _assert_valid(result.objects)


@pytest.mark.parametrize("runtime", sorted(MPI_RUNTIMES))
def test_shipped_mpi_runtime_with_generated_keys_is_valid(runtime):
    options = engine_options({"mpiSSHSecret": "generate", "secretSeed": "a-seed-for-this-test"})
    result = expand(_trainjob(runtime, TYPICAL_TRAINER[runtime]), shipped_runtimes()[runtime], options)
    assert [o["kind"] for o in result.objects] == ["Secret", "ConfigMap", "JobSet"]
    assert [p.severity for p in result.problems] == ["warning"]
    _assert_valid(result.objects)


def test_data_cache_runtime_rejects_dataset_initializer_like_upstream():
    # The SDK's data-cache flow sets spec.initializer.dataset, but the v2.3.0 runtime's
    # dataset-initializer container has no `initializer` volumeMount, so admission rejects it.
    tj = _trainjob("torch-distributed-with-cache", TYPICAL_TRAINER["torch-distributed-with-cache"],
                   initializer={"dataset": {"storageUri": "cache://data"}})
    result = expand(tj, shipped_runtimes()["torch-distributed-with-cache"], engine_options({}))
    assert result.objects == []
    assert [(p.severity, p.path, p.message) for p in result.problems] == [(
        "error", "spec.runtimeRef",
        "must have volumeMount with name - initializer in container dataset-initializer of the dataset-initializer job",
    )]


@pytest.mark.parametrize("runtime", [r for r in SHIPPED if r.startswith("torchtune-")])
def test_torchtune_runtimes_take_both_initializers(runtime):
    tj = _trainjob(runtime, {"command": ["tune", "run"]}, initializer={
        "dataset": {"storageUri": "hf://tatsu-lab/alpaca", "secretRef": {"name": "hf"}},
        "model": {"storageUri": "hf://org/model", "env": [{"name": "X", "value": "1"}], "secretRef": {"name": "hf"}},
    })
    result = expand(tj, shipped_runtimes()[runtime], engine_options({}))
    assert result.problems == []
    [jobset] = result.objects
    containers = {rj["name"]: rj["template"]["spec"]["template"]["spec"]["containers"][0]
                  for rj in jobset["spec"]["replicatedJobs"]}
    assert containers["dataset-initializer"]["env"] == [{"name": "STORAGE_URI", "value": "hf://tatsu-lab/alpaca"}]
    assert containers["model-initializer"]["env"] == [
        {"name": "STORAGE_URI", "value": "hf://org/model"}, {"name": "X", "value": "1"}]
    for name in ("dataset-initializer", "model-initializer"):
        assert containers[name]["envFrom"] == [{"secretRef": {"name": "hf"}}]
    _assert_valid(result.objects)


def test_builtin_catalog_matches_upstream_with_overlay():
    from kpt_fn import upstream

    builtin = {rt["metadata"]["name"]: rt for rt in upstream.bundle("v2.3.0").catalog()}
    assert builtin == shipped_runtimes()


@pytest.mark.parametrize("runtime", SHIPPED)
def test_v2_2_1_shipped_runtime_renders_valid_objects(runtime):
    """Each runtime Trainer v2.2.1 ships renders a typical TrainJob under trainerVersion v2.2.1 into
    objects its CRDs (and JobSet v0.11.1's) accept; the runtimes pass v2.2.1's own schemas and webhooks."""
    from kpt_fn import upstream, validation

    bundle = upstream.bundle("v2.2.1")
    rt = shipped_runtimes("v2.2.1")[runtime]
    assert not [p for p in validation.check_object(rt, bundle) + validation.check_runtime_webhook(rt, upstream.bundle("v2.2.1"))
                if p.is_error]
    options = engine_options({"trainerVersion": "v2.2.1"})
    result = expand(_trainjob(runtime, TYPICAL_TRAINER[runtime]), rt, options)
    assert not has_errors(result.problems), [p.message for p in result.problems]
    for obj in result.objects:
        errors = [(p.path, p.message) for p in validation.check_object(obj, bundle) if p.is_error]
        assert errors == [], f"{obj['kind']} {obj['metadata']['name']}"


def test_v2_2_1_builtin_catalog_matches_upstream_with_overlay():
    from kpt_fn import upstream

    builtin = {rt["metadata"]["name"]: rt for rt in upstream.bundle("v2.2.1").catalog()}
    assert builtin == shipped_runtimes("v2.2.1")
