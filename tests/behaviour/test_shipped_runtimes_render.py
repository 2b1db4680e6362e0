"""Every shipped v2.3.0 runtime renders a TrainJob without error (manifests/base/runtimes at v2.3.0).

Runtimes are the base manifests with the runtimes overlay's image tags applied (test helper in
test_plugins_golden). When the validation engineer's `kpt_fn.validation.check_object` exists, the
generated JobSet must also pass the JobSet CRD schema.
"""

from __future__ import annotations

import pytest

from kpt_fn.engine import expand, framework
from kpt_fn.problems import has_errors
from support.shipped import shipped_runtimes

pytestmark = pytest.mark.upstream

# Runtime -> (plugins it needs beyond this engine's own, TrainJob trainer section).
TORCHTUNE_TRAINER = {"command": ["tune", "run"], "args": ["epochs=1"],
                     "resourcesPerNode": {"limits": {"nvidia.com/gpu": 2}}}
CASES = {
    "torch-distributed": ((), {"numNodes": 2, "command": ["torchrun", "train.py"],
                               "resourcesPerNode": {"limits": {"nvidia.com/gpu": 4}}}),
    "torch-distributed-with-cache": ((), {"numNodes": 2}),
    "torchtune-llama3.2-1b": ((), TORCHTUNE_TRAINER),
    "torchtune-llama3.2-3b": ((), TORCHTUNE_TRAINER),
    "torchtune-qwen2.5-1.5b": ((), TORCHTUNE_TRAINER),
    "deepspeed-distributed": (("mpi",), {"numNodes": 3, "command": ["mpirun", "python3", "train.py"]}),
    "mlx-distributed": (("mpi",), {"numNodes": 2, "command": ["mpirun", "python3", "train.py"]}),
    "jax-distributed": (("jax",), {"numNodes": 2}),
    "xgboost-distributed": (("xgboost",), {"numNodes": 2}),
}


def _check_object():
    try:
        from kpt_fn.validation import check_object  # noqa: PLC0415
    except ImportError:
        return None
    return check_object


def test_nine_runtimes_are_covered():
    assert sorted(shipped_runtimes()) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_shipped_runtime_renders(name):
    needs, trainer = CASES[name]
    assert set(needs) <= {p.name for p in framework.default().plugins}
    runtime = shipped_runtimes()[name]
    trainjob = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
                "metadata": {"name": "job", "namespace": "team-a"},
                "spec": {"runtimeRef": {"name": name}, "trainer": trainer}}
    result = expand(trainjob, runtime)
    assert not has_errors(result.problems), result.problems
    jobsets = [o for o in result.objects if o["kind"] == "JobSet"]
    assert len(jobsets) == 1
    jobset = jobsets[0]
    assert [rj["name"] for rj in jobset["spec"]["replicatedJobs"]] == \
        [rj["name"] for rj in runtime["spec"]["template"]["spec"]["replicatedJobs"]]
    check_object = _check_object()
    if check_object is None:
        pytest.skip("kpt_fn.validation.check_object not available yet")
    problems = check_object(jobset)
    assert not has_errors(problems), problems
