"""Each finding points at the field the user must change (issue 32, point 5), and its line is that
field's line in the file (kpt_fn/lines.py), through `validate --format json` as CI runs it.

The rules fixed here pointed at `spec`, at a parent map, or at no field although one field is to
blame: the Kueue quota fit (kpt_fn/profiles/kueue_quota.py), the Kueue queue name, the labels the
controller profile leaves on the TrainJob, the policy's required label and required deadline, and a
secret option the secret policy cannot honour (it pointed at the functionConfig's `spec`).
Controls beside them: a TrainJob that fits renders."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from support.tiny_app import RUNTIME as TINY_RUNTIME

QUEUES = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: cq
  annotations: {config.kubernetes.io/local-config: "true"}
spec:
  resourceGroups:
    - coveredResources: [cpu, memory, nvidia.com/gpu]
      flavors:
        - name: a100
          resources:
            - {name: cpu, nominalQuota: 100}
            - {name: memory, nominalQuota: 1Ti}
            - {name: nvidia.com/gpu, nominalQuota: 8}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata:
  name: q
  namespace: ml
  annotations: {config.kubernetes.io/local-config: "true"}
spec:
  clusterQueue: cq
"""

# The trainer's pod set, and a launcher pod set whose GPUs only the runtime asks for.
RUNTIME = TINY_RUNTIME.replace("  name: tiny\n", "  name: rt\n  namespace: ml\n") + """\
                      resources:
                        limits:
                          nvidia.com/gpu: 1
        - name: launcher
          template:
            spec:
              template:
                spec:
                  containers:
                    - name: launcher
                      image: busybox
                      resources:
                        limits:
                          nvidia.com/gpu: {launcher_gpus}
"""


def runtime(name: str = "rt", launcher_gpus: int = 0) -> str:
    return RUNTIME.replace("name: rt\n", f"name: {name}\n", 1).replace("{launcher_gpus}", str(launcher_gpus))


def trainjob(name: str, trainer: str = "", labels: str = "    kueue.x-k8s.io/queue-name: q\n") -> str:
    return (f"apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: {name}\n  namespace: ml\n"
            f"  annotations: {{config.kubernetes.io/local-config: \"true\"}}\n"
            + (f"  labels:\n{labels}" if labels else "")
            + "spec:\n  runtimeRef:\n    name: rt\n    kind: TrainingRuntime\n"
            + (f"  trainer:\n{trainer}" if trainer else ""))


def _validate(app) -> list:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "EXPAND_TRAINJOBS_"))}
    p = subprocess.run([sys.executable, "-m", "kpt_fn", "validate", "--format", "json", "."], cwd=app, env=env,
                       capture_output=True, text=True)
    return json.loads(p.stdout)["findings"]


def _line(path, text: str) -> int:
    """The 1-based line of the first line of `path` holding `text`."""
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def _app(tmp_path, config: str, files: dict):
    (tmp_path / "expand-trainjobs.yaml").write_text("apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\n"
                                                    f"metadata: {{name: cfg}}\nspec:\n{config}")
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path


@pytest.fixture(scope="module")
def quota(tmp_path_factory):
    app = _app(tmp_path_factory.mktemp("quota"), "  profile: kueue\n", {
        "queues.yaml": QUEUES,
        "runtime.yaml": runtime(),
        "launcher-runtime.yaml": runtime("rt-big", 9),
        # 3 nodes of 4 GPUs: each pod fits the flavor's 8, all of them do not: the node count is to change
        "many.yaml": trainjob("many", "    numNodes: 3\n    resourcesPerNode:\n      limits:\n        nvidia.com/gpu: 4\n"),
        # one node of 16 GPUs: the request is to change (its key under requests)
        "big.yaml": trainjob("big", "    numNodes: 1\n    resourcesPerNode:\n      requests:\n        nvidia.com/gpu: 16\n"
                                    "      limits:\n        nvidia.com/gpu: 16\n"),
        # a resource the ClusterQueue does not cover
        "fpga.yaml": trainjob("fpga", "    resourcesPerNode:\n      limits:\n        example.com/fpga: 1\n"),
        # the launcher's 9 GPUs come from the runtime: the runtime's field, in its file
        "launched.yaml": trainjob("launched").replace("name: rt\n", "name: rt-big\n"),
        # a control: fits
        "fits.yaml": trainjob("fits", "    numNodes: 2\n    resourcesPerNode:\n      limits:\n        nvidia.com/gpu: 4\n"),
    })
    return app, _validate(app)


def _one(findings, name, rule="kueue/quota-fit"):
    found = [f for f in findings if f["rule"] == rule and name in f["message"]]
    assert len(found) == 1, [f["message"] for f in findings]
    return found[0]


def test_quota_a_node_count_that_cannot_fit_points_at_num_nodes(quota):
    app, findings = quota
    f = _one(findings, "12 nvidia.com/gpu")
    assert (f["field"], f["file"], f["line"]) == ("spec.trainer.numNodes", "many.yaml", _line(app / "many.yaml", "numNodes"))


def test_quota_a_request_no_flavor_has_points_at_its_key(quota):
    app, findings = quota
    f = _one(findings, "16 nvidia.com/gpu")
    assert (f["field"], f["file"]) == ("spec.trainer.resourcesPerNode.requests[nvidia.com/gpu]", "big.yaml")
    assert f["line"] == _line(app / "big.yaml", "nvidia.com/gpu: 16")


def test_quota_a_resource_the_queue_does_not_cover_points_at_its_key(quota):
    app, findings = quota
    f = _one(findings, "example.com/fpga")
    assert (f["field"], f["file"]) == ("spec.trainer.resourcesPerNode.limits[example.com/fpga]", "fpga.yaml")
    assert f["line"] == _line(app / "fpga.yaml", "example.com/fpga")


def test_quota_of_the_runtime_points_into_the_runtime_and_names_the_trainjob(quota):
    app, findings = quota
    f = _one(findings, "9 nvidia.com/gpu")
    assert f["field"] == "spec.template.spec.replicatedJobs[1].template.spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]"
    assert f["file"] == "launcher-runtime.yaml" and f["message"].startswith("TrainJob ml/launched: ")
    assert f["line"] == _line(app / "launcher-runtime.yaml", "nvidia.com/gpu: 9")


def test_quota_findings_point_at_no_parent_and_the_control_fits(quota):
    _, findings = quota
    fields = [f["field"] for f in findings if f["rule"] == "kueue/quota-fit"]
    assert fields and not set(fields) & {"", "spec", "spec.trainer", "metadata"}
    assert not [f for f in findings if f["severity"] == "error" and (f["file"] == "fits.yaml" or "ml/fits" in f["message"])]


def test_a_container_without_requests_points_at_the_requests_to_write(quota):
    # the trainer's node container: the TrainJob's resourcesPerNode; the launcher: its runtime's container
    app, findings = quota
    mine = [f for f in findings if f["rule"] == "kueue/container-requests" and (f["file"] == "fits.yaml" or "ml/fits:" in f["message"])]
    assert sorted((f["field"], f["file"]) for f in mine) == [
        ("spec.template.spec.replicatedJobs[1].template.spec.template.spec.containers[0].resources.requests", "runtime.yaml"),
        ("spec.trainer.resourcesPerNode.requests", "fits.yaml")]
    lines = {f["file"]: f["line"] for f in mine}
    assert lines["fits.yaml"] == _line(app / "fits.yaml", "resourcesPerNode:")  # requests not written: its parent's line
    launcher = [i for i, line in enumerate((app / "runtime.yaml").read_text().splitlines(), 1) if "resources:" in line][1]
    assert lines["runtime.yaml"] == launcher


def test_queue_name_missing_points_at_the_label_to_add(tmp_path):
    app = _app(tmp_path, "  profile: kueue\n", {"runtime.yaml": runtime(),
                                                 "tj.yaml": trainjob("nolabel", labels="    team: a\n")})
    f = _one(_validate(app), "no LocalQueue for this TrainJob", rule="kueue/queue-name")
    assert f["field"] == "metadata.labels[kueue.x-k8s.io/queue-name]"
    assert f["line"] == _line(app / "tj.yaml", "labels:")  # not there yet: its map's line


def test_an_invalid_queue_name_from_the_config_points_at_the_option(tmp_path):
    app = _app(tmp_path, "  profile: kueue\n  kueueQueues: [Not_A_Name]\n",
               {"runtime.yaml": runtime(), "tj.yaml": trainjob("cfg", labels="    team: a\n")})
    f = _one(_validate(app), "is invalid", rule="kueue/queue-name")
    assert f["field"] == "kueueQueues"


def test_labels_left_on_the_trainjob_point_at_the_label(tmp_path):
    app = _app(tmp_path, "", {"runtime.yaml": runtime(), "tj.yaml": trainjob("left")})
    f = _one(_validate(app), "stay on the TrainJob", rule="kueue/labels-not-on-jobset")
    assert f["field"] == "metadata.labels[kueue.x-k8s.io/queue-name]"
    assert f["line"] == _line(app / "tj.yaml", "kueue.x-k8s.io/queue-name")


def test_policy_required_label_and_deadline_point_at_the_field_to_add(tmp_path):
    app = _app(tmp_path, "  policy:\n    requiredLabels: [team]\n    requireActiveDeadline: true\n",
               {"runtime.yaml": runtime(), "tj.yaml": trainjob("p", labels="    other: x\n")})
    findings = _validate(app)
    assert _one(findings, "label team", rule="policy/required-labels")["field"] == "metadata.labels[team]"
    assert _one(findings, "activeDeadlineSeconds", rule="policy/active-deadline")["field"] == "spec.activeDeadlineSeconds"



@pytest.mark.parametrize("config, field", [
    ("  mpiSSHSecret: generate\n", "spec.secretSeed"),
    ("  mpiSSHSecret: sometimes\n", "spec.mpiSSHSecret"),
    ("  fluxCurveSecretName: Bad_Name\n", "spec.fluxCurveSecretName"),
])
def test_a_secret_option_the_policy_cannot_honour_points_at_the_option(tmp_path, config, field):
    app = _app(tmp_path, config, {"runtime.yaml": runtime(), "tj.yaml": trainjob("s", labels="")})
    [f] = [f for f in _validate(app) if f["field"].startswith("spec.") and f["file"] == "expand-trainjobs.yaml"]
    key = field.split(".")[1]
    written = key + ":" in (app / "expand-trainjobs.yaml").read_text()
    assert f["field"] == field and f["line"] == _line(app / "expand-trainjobs.yaml", key if written else "spec:")
