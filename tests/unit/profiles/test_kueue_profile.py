"""The kueue output profile (kpt_fn/profiles/kueue*.py): golden cases in fixtures/kueue/, the TAS and quota rules,
and the Argo CD patch."""

from __future__ import annotations

import copy
import pathlib
import shutil
import subprocess

import pytest
import yaml

from kpt_fn.cli import stderr
from kpt_fn import workload
from kpt_fn.profiles import kueue_names, kueue_tas
from kpt_fn.problems import ERROR, WARNING
from support.door import run_with

ROOT = pathlib.Path(__file__).resolve().parents[3]
CASES = sorted(p.name for p in (ROOT / "fixtures" / "kueue").iterdir() if p.is_dir())


def _run(items, spec):
    fc = {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "metadata": {"name": "x"}, "spec": spec}
    return run_with(copy.deepcopy(items), fc)


def _generated(outcome, kind="JobSet"):
    return [o for r in outcome.rendered for o in r.objects if o.get("kind") == kind]


def _rules(outcome):
    return [{"severity": r["severity"], "rule": (r.get("tags") or {}).get("rule")} for r in outcome.results if (r.get("tags") or {}).get("rule")]


@pytest.mark.parametrize("case", CASES)
def test_golden_profile_delta(case):
    """The profile's JobSet is the controller profile's JobSet plus exactly the expected fields."""
    rl = yaml.safe_load((ROOT / "fixtures" / "kueue" / case / "input.yaml").read_text())
    expected = yaml.safe_load((ROOT / "fixtures" / "kueue" / case / "expected.yaml").read_text())
    spec = rl["functionConfig"]["spec"]
    kueue_run = _run(rl["items"], spec)
    controller_run = _run(rl["items"], {k: v for k, v in spec.items() if k not in ("profile", "kueueQueues")})
    assert _rules(kueue_run) == expected["results"]
    [got] = _generated(kueue_run)
    # MultiKueue TrainJobs are left to another controller by the controller profile: compare with the
    # same TrainJob without managedBy there.
    if not _generated(controller_run):
        items = copy.deepcopy(rl["items"])
        for it in items:
            if it.get("kind") == "TrainJob":
                it["spec"].pop("managedBy", None)
        controller_run = _run(items, {})
    [base] = _generated(controller_run)
    want = copy.deepcopy(base)
    want["metadata"].setdefault("labels", {}).update(expected["metadata"]["labels"])
    want["metadata"].setdefault("annotations", {}).update(expected["metadata"].get("annotations") or {})
    for key, value in expected["spec"].items():  # null: the profile removes the field
        if value is None:
            want["spec"].pop(key, None)
        else:
            want["spec"][key] = value
    assert got == want


TORCH_JOB = {
    "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
    "metadata": {"name": "job", "namespace": "ns"},
    "spec": {"runtimeRef": {"name": "torch-distributed"},
             "trainer": {"numNodes": 2, "resourcesPerNode": {"requests": {"cpu": "4", "memory": "8Gi", "nvidia.com/gpu": "2"},
                                                             "limits": {"nvidia.com/gpu": "2"}}}},
}


def _job(**labels):
    job = copy.deepcopy(TORCH_JOB)
    if labels:
        job["metadata"]["labels"] = {k.replace("_", "-"): v for k, v in labels.items()}
    return job


def test_controller_profile_is_unchanged_and_warns_about_lost_labels():
    job = _job()
    job["metadata"]["labels"] = {kueue_names.QUEUE_LABEL: "q"}
    outcome = _run([job], {})
    [js] = _generated(outcome)
    assert kueue_names.QUEUE_LABEL not in (js["metadata"].get("labels") or {})
    assert "suspend" not in js["spec"] or js["spec"]["suspend"] is False
    assert {"severity": WARNING, "rule": kueue_names.RULE_LABEL_LOST} in _rules(outcome)
    assert outcome.exit_code == 0


def test_queue_label_wins_over_config_and_is_validated():
    job = _job()
    job["metadata"]["labels"] = {kueue_names.QUEUE_LABEL: "from-label"}
    [js] = _generated(_run([job], {"profile": "kueue", "kueueQueues": ["ns=from-config"]}))
    assert js["metadata"]["labels"][kueue_names.QUEUE_LABEL] == "from-label"
    job["metadata"]["labels"] = {kueue_names.QUEUE_LABEL: "Not_A_Name"}
    outcome = _run([job], {"profile": "kueue"})
    assert outcome.exit_code == 1 and not _generated(outcome)
    assert {"severity": ERROR, "rule": kueue_names.RULE_QUEUE} in _rules(outcome)


def test_the_queued_note_points_at_the_queue_label_that_names_the_queue():
    job = _job()
    job["metadata"]["labels"] = {kueue_names.QUEUE_LABEL: "from-label"}
    by_label = _run([job], {"profile": "kueue"})
    by_config = _run([_job()], {"profile": "kueue", "kueueQueues": ["from-config"]})
    noted = [[(r.get("field") or {}).get("path") for r in o.results
              if (r.get("tags") or {}).get("rule") == kueue_names.RULE_QUEUE and r["severity"] == "info"]
             for o in (by_label, by_config)]
    assert noted == [[f"metadata.labels[{kueue_names.QUEUE_LABEL}]"], [None]]


def test_no_queue_is_an_error():
    outcome = _run([_job()], {"profile": "kueue", "kueueQueues": ["other=q"]})
    assert outcome.exit_code == 1 and not _generated(outcome)
    assert any("no LocalQueue" in r["message"] for r in outcome.results)


def test_bad_queue_entry_is_reported():
    outcome = _run([_job()], {"profile": "kueue", "kueueQueues": ["=q"]})
    assert outcome.exit_code == 1
    assert any("kueueQueues entry" in r["message"] for r in outcome.results)


def test_kueue_runtime_patch_in_git_is_warned_about():
    job = _job()
    job["spec"]["runtimePatches"] = [{"manager": kueue_names.RUNTIME_PATCH_MANAGER, "trainingRuntimeSpec": {}}]
    outcome = _run([job], {"profile": "kueue", "kueueQueues": ["q"]})
    assert {"severity": WARNING, "rule": kueue_names.RULE_STALE_PATCH} in _rules(outcome)


def test_podgroup_with_kueue_is_double_gating():
    runtime = {
        "apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
        "metadata": {"name": "gang", "namespace": "ns"},
        "spec": {"mlPolicy": {"numNodes": 1, "torch": {}}, "podGroupPolicy": {"coscheduling": {"scheduleTimeoutSeconds": 60}},
                 "template": {"spec": {"replicatedJobs": [{"name": "node", "template": {
                     "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                     "spec": {"template": {"spec": {"containers": [{"name": "node", "image": "img",
                              "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}}}}]}}},
    }
    job = _job()
    job["spec"]["runtimeRef"] = {"name": "gang", "kind": "TrainingRuntime"}
    outcome = _run([runtime, job], {"profile": "kueue", "kueueQueues": ["q"]})
    assert _generated(outcome, "PodGroup")
    assert {"severity": WARNING, "rule": kueue_names.RULE_DOUBLE_GANG} in _rules(outcome)


def test_containers_without_requests_are_warned_about():
    job = _job()
    del job["spec"]["trainer"]["resourcesPerNode"]
    outcome = _run([job], {"profile": "kueue", "kueueQueues": ["q"]})
    assert {"severity": WARNING, "rule": kueue_names.RULE_REQUESTS} in _rules(outcome)


# --- TAS annotations through the profile (the rules themselves: tests/unit/profiles/test_kueue_tas.py) -------


def test_tas_errors_stop_the_trainjob():
    job = _job()
    job["spec"]["runtimePatches"] = [{"manager": "example.com/platform", "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [
        {"name": "node", "template": {"spec": {"template": {"metadata": {"annotations": {kueue_tas.SLICE_SIZE: "2"}}}}}}]}}}}]
    outcome = _run([job], {"profile": "kueue", "kueueQueues": ["q"]})
    assert outcome.exit_code == 1
    assert {"severity": ERROR, "rule": kueue_names.RULE_TAS} in _rules(outcome)


# --- quota fit ---------------------------------------------------------------------------------


def _queues(gpu_quota, borrowing=None, cohort=False, resources=("cpu", "memory", "nvidia.com/gpu")):
    gpu = {"name": "nvidia.com/gpu", "nominalQuota": gpu_quota}
    if borrowing is not None:
        gpu["borrowingLimit"] = borrowing
    cq = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue", "metadata": {"name": "cq"},
          "spec": {"resourceGroups": [{"coveredResources": list(resources), "flavors": [{"name": "f", "resources": [
              r for r in ({"name": "cpu", "nominalQuota": 100}, {"name": "memory", "nominalQuota": "1Ti"}, gpu)
              if r["name"] in resources]}]}]}}
    if cohort:
        cq["spec"]["cohort"] = "all"
    lq = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue", "metadata": {"name": "q", "namespace": "ns"},
          "spec": {"clusterQueue": "cq"}}
    return [cq, lq]


@pytest.mark.parametrize("quota, borrowing, cohort, fits", [
    (4, None, False, True),      # 2 nodes x 2 GPUs
    (3, None, False, False),
    (3, 1, True, True),          # borrowing limit counts (it needs a cohort: the CRD's rule "borrowingLimit must be nil when cohort is empty")
    (2, 1, True, False),
    (3, None, True, True),       # in a cohort without a borrowing limit: cannot say never
])
def test_quota_fit(quota, borrowing, cohort, fits):
    outcome = _run([_job(), *_queues(quota, borrowing, cohort)], {"profile": "kueue", "kueueQueues": ["q"]})
    assert (outcome.exit_code == 0) is fits
    if not fits:
        [msg] = [r["message"] for r in outcome.results if (r.get("tags") or {}).get("rule") == kueue_names.RULE_QUOTA]
        assert "needs 4 nvidia.com/gpu (2 pod(s) x 2)" in msg and "at most 3" in msg


def test_quota_uncovered_resource():
    outcome = _run([_job(), *_queues(8, resources=("cpu", "memory"))], {"profile": "kueue", "kueueQueues": ["q"]})
    assert outcome.exit_code == 1
    assert any("does not cover" in r["message"] for r in outcome.results)


def test_pod_requests_follow_kubernetes_rules():
    pod = {"containers": [{"resources": {"requests": {"cpu": "1"}}}, {"resources": {"limits": {"cpu": "2"}}}],
           "initContainers": [{"resources": {"requests": {"cpu": "5"}}},
                              {"restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}}}],
           "overhead": {"cpu": "100m"}}
    req = workload.pod_requests(pod)
    # containers 1 + 2, sidecar 1 -> 4; the plain init container runs before the sidecar: 5 -> max 5; + overhead
    assert str(req["cpu"]) in ("5100m", "5.1")


# --- Argo CD -----------------------------------------------------------------------------------


def test_argocd_patch_builds_into_an_application(tmp_path, fn):
    """The printed fields merge into an Application with kustomize, keeping the app's own settings."""
    kubectl = shutil.which("kubectl")
    assert kubectl, "kubectl is needed on PATH"
    patch = subprocess.run([fn, "argocd-kueue-patch"], check=True, capture_output=True, text=True).stdout
    app = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "metadata": {"name": "train", "namespace": "argocd"},
           "spec": {"project": "default", "source": {"repoURL": "https://example.com/repo.git", "path": "apps/train",
                                                     "plugin": {"name": "expand-trainjobs-v1"}},
                    "destination": {"server": "https://kubernetes.default.svc", "namespace": "team-a"},
                    "syncPolicy": {"automated": {"prune": True, "selfHeal": True}}}}
    (tmp_path / "app.yaml").write_text(yaml.safe_dump(app))
    patch_doc = yaml.safe_load(patch)
    patch_doc.update({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "metadata": {"name": "train", "namespace": "argocd"}})
    (tmp_path / "patch.yaml").write_text(yaml.safe_dump(patch_doc))
    (tmp_path / "kustomization.yaml").write_text("resources: [app.yaml]\npatches: [{path: patch.yaml}]\n")
    built = yaml.safe_load(subprocess.run([kubectl, "kustomize", str(tmp_path)], check=True, capture_output=True, text=True).stdout)
    assert built["spec"]["syncPolicy"]["automated"] == {"prune": True, "selfHeal": True}
    assert built["spec"]["syncPolicy"]["syncOptions"] == ["RespectIgnoreDifferences=true"]
    [ignore] = built["spec"]["ignoreDifferences"]
    # Field names of Argo CD's ResourceIgnoreDifferences (pkg/apis/application/v1alpha1/types.go)
    assert set(ignore) == {"group", "kind", "jsonPointers"}
    assert ignore["jsonPointers"] == ["/spec/suspend"] and (ignore["group"], ignore["kind"]) == ("jobset.x-k8s.io", "JobSet")


# --- a queue name that matches no LocalQueue among the inputs (issue 32, point 4) ----------------

def _local_queue(name, namespace="ns"):
    md = {"name": name, **({"namespace": namespace} if namespace is not None else {})}
    return {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue", "metadata": md, "spec": {"clusterQueue": "cq"}}


def _labelled(queue):
    job = _job()
    job["metadata"]["labels"] = {kueue_names.QUEUE_LABEL: queue}
    return job


def test_a_queue_name_no_local_queue_of_the_namespace_has_is_an_error_with_the_closest_name():
    outcome = _run([_labelled("gpu-queu"), _local_queue("gpu-queue"), _local_queue("cpu-queue")], {"profile": "kueue"})
    assert outcome.exit_code == 1 and not _generated(outcome)
    [r] = [r for r in outcome.results if r.rule == kueue_names.RULE_QUEUE and r.severity == ERROR]
    assert "'gpu-queu'" in r.message and "(cpu-queue, gpu-queue)" in r.message and "did you mean 'gpu-queue'?" in r.message
    assert r.field == f"metadata.labels[{kueue_names.QUEUE_LABEL}]"
    # from kueueQueues: the option is the field to change; nothing close: no suggestion
    outcome = _run([_job(), _local_queue("gpu-queue")], {"profile": "kueue", "kueueQueues": ["zzz"]})
    [r] = [r for r in outcome.results if r.rule == kueue_names.RULE_QUEUE and r.severity == ERROR]
    assert r.field == "kueueQueues" and "did you mean" not in r.message


@pytest.mark.parametrize("items", [
    [_local_queue("gpu-queue")],                         # the name is one of them
    [_local_queue("gpu-queue", namespace=None)],         # written without a namespace: the run's
    [_local_queue("gpu-queue"), _local_queue("other", namespace="elsewhere")],
], ids=["same-namespace", "no-namespace", "other-namespace-too"])
def test_controls_a_queue_among_the_inputs_renders(items):
    outcome = _run([_labelled("gpu-queue"), *items], {"profile": "kueue"})
    assert outcome.exit_code == 0, [r.message for r in outcome.results]
    assert not [r for r in outcome.results if r.rule == kueue_names.RULE_QUEUE_UNCHECKED]


def test_without_local_queues_of_the_namespace_the_name_could_not_be_checked_and_that_is_shown():
    # a LocalQueue of another namespace does not count: the TrainJob's namespace has none among the inputs
    outcome = _run([_labelled("gpu-queu"), _local_queue("gpu-queue", namespace="elsewhere")], {"profile": "kueue"})
    assert outcome.exit_code == 0
    [r] = [r for r in outcome.results if r.rule == kueue_names.RULE_QUEUE_UNCHECKED]
    assert r.shown and "could not be checked: no LocalQueue of namespace ns among the inputs" in r.message
    assert any("could not be checked" in line for line in stderr.lines(outcome))
