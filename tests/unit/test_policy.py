"""Guardrails (kpt_fn/policy.py): each rule passes, fails and is waived, on the rendered pods, with the
field of the TrainJob or runtime that caused it; the fixture repository fixtures/policy/repo."""

from __future__ import annotations

import copy
import pathlib
import shutil
import subprocess

import pytest
import yaml

from kpt_fn import policy
from kpt_fn import resource as res
from support.door import run_with

ROOT = pathlib.Path(__file__).resolve().parents[2]
REPO = ROOT / "fixtures" / "policy" / "repo"


def _load(name):
    return yaml.safe_load((REPO / "team-a" / name).read_text())


RUNTIME = _load("runtime.yaml")
GOOD = _load("good.yaml")
POLICY = yaml.safe_load((REPO / "expand-trainjobs.yaml").read_text())["spec"]["policy"]


def _run(trainjob, runtime=RUNTIME, spec_policy=POLICY, mode="render"):
    fc = {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "metadata": {"name": "x"},
          "spec": {"policy": spec_policy, "mode": mode}}
    return run_with([copy.deepcopy(runtime), copy.deepcopy(trainjob)], fc)


def _policy_results(outcome):
    return [r for r in outcome.results if str((r.get("tags") or {}).get("rule", "")).startswith("policy/")]


def test_good_trainjob_passes():
    outcome = _run(GOOD)
    assert _policy_results(outcome) == [] and outcome.exit_code == 0


def _edit(path, value, base=GOOD):
    tj = copy.deepcopy(base)
    node = tj
    *head, last = path
    for key in head:
        node = node.setdefault(key, {})
    node[last] = value
    return tj


def _runtime_edit(fn):
    rt = copy.deepcopy(RUNTIME)
    fn(rt["spec"]["template"]["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"])
    return rt


CASES = {
    # rule: (TrainJob, runtime, expected field path, subject kind)
    "max-gpus-per-trainjob": (_edit(("spec", "trainer", "numNodes"), 3), RUNTIME, "spec.trainer.resourcesPerNode.requests[nvidia.com/gpu]", "TrainJob"),
    "max-gpus-per-node": (_edit(("spec", "trainer", "resourcesPerNode"), {"requests": {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "9"}, "limits": {"nvidia.com/gpu": "9"}}, _edit(("spec", "trainer", "numNodes"), 1)), RUNTIME, "spec.trainer.resourcesPerNode.requests[nvidia.com/gpu]", "TrainJob"),
    "max-gpus-per-pod": (_edit(("spec", "trainer", "resourcesPerNode"), {"requests": {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "9"}, "limits": {"nvidia.com/gpu": "9"}}, _edit(("spec", "trainer", "numNodes"), 1)), RUNTIME, "spec.trainer.resourcesPerNode.requests[nvidia.com/gpu]", "TrainJob"),
    "max-cpu-per-trainjob": (_edit(("spec", "trainer", "resourcesPerNode"), {"requests": {"cpu": "40", "memory": "1Gi"}}), RUNTIME, "spec.trainer.resourcesPerNode.requests[cpu]", "TrainJob"),
    "max-memory-per-trainjob": (_edit(("spec", "trainer", "resourcesPerNode"), {"requests": {"cpu": "1", "memory": "300Gi"}}), RUNTIME, "spec.trainer.resourcesPerNode.requests[memory]", "TrainJob"),
    "max-nodes": (_edit(("spec", "trainer", "numNodes"), 5, _edit(("spec", "trainer", "resourcesPerNode"), {"requests": {"cpu": "1", "memory": "1Gi"}})), RUNTIME, "spec.trainer.numNodes", "TrainJob"),
    "allowed-images": (_edit(("spec", "trainer", "image"), "docker.io/me/train:v1"), RUNTIME, "spec.trainer.image", "TrainJob"),
    "no-latest-tag": (GOOD, _runtime_edit(lambda pod: pod["containers"][0].update(image="registry.example.com/torch:latest")),
                      "spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0].image", "TrainingRuntime"),
    "allowed-runtimes": (_edit(("spec", "runtimeRef"), {"name": "torch-distributed"}), RUNTIME, "spec.runtimeRef.name", "TrainJob"),
    "required-labels": (_edit(("metadata", "labels"), {}), RUNTIME, "metadata.labels[kueue.x-k8s.io/queue-name]", "TrainJob"),
    "requests-required": ({**GOOD, "spec": {k: v for k, v in GOOD["spec"].items() if k != "trainer"}},
                          _runtime_edit(lambda pod: pod["containers"][0].update(resources={"requests": {"cpu": "1"}})),
                          "spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0].resources", "TrainingRuntime"),
    "gpu-limits-equal-requests": (_edit(("spec", "trainer", "resourcesPerNode"), {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"nvidia.com/gpu": "4"}}), RUNTIME, "spec.trainer.resourcesPerNode.limits[nvidia.com/gpu]", "TrainJob"),
    "active-deadline": (_edit(("spec", "activeDeadlineSeconds"), 90000), RUNTIME, "spec.activeDeadlineSeconds", "TrainJob"),
    "no-privileged": (GOOD, _runtime_edit(lambda pod: pod["containers"][0].update(securityContext={"privileged": True})),
                      "spec.template.spec.replicatedJobs[0].template.spec.template.spec.containers[0].securityContext.privileged", "TrainingRuntime"),
    "no-host-path": (GOOD, _runtime_edit(lambda pod: pod.update(volumes=[{"name": "data", "hostPath": {"path": "/data"}}])),
                     "spec.template.spec.replicatedJobs[0].template.spec.template.spec.volumes[0]", "TrainingRuntime"),
    "no-host-network": (GOOD, _runtime_edit(lambda pod: pod.update(hostNetwork=True)),
                        "spec.template.spec.replicatedJobs[0].template.spec.template.spec.hostNetwork", "TrainingRuntime"),
}


def test_every_rule_has_a_case():
    assert {f"policy/{r}" for r in CASES} == set(policy.RULE_IDS)


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_fails_with_the_field_that_caused_it(rule):
    trainjob, runtime, path, kind = CASES[rule]
    outcome = _run(trainjob, runtime)
    found = [r for r in _policy_results(outcome) if r["tags"]["rule"] == f"policy/{rule}"]
    assert found, _policy_results(outcome)
    assert found[0]["severity"] == "error" and outcome.exit_code == 1
    assert found[0]["field"]["path"] == path
    assert found[0]["resourceRef"]["kind"] == kind
    assert not [o for r in outcome.rendered for o in r.objects]


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_waived_is_a_warning(rule):
    trainjob, runtime, path, kind = CASES[rule]
    trainjob = copy.deepcopy(trainjob)
    trainjob["metadata"].setdefault("annotations", {})[f"{policy.WAIVER_PREFIX}{rule}"] = "reviewed in PLAT-1"
    outcome = _run(trainjob, runtime)
    found = [r for r in _policy_results(outcome) if r["tags"]["rule"] == f"policy/{rule}"]
    assert found and all(r["severity"] == "warning" and "reviewed in PLAT-1" in r["message"] for r in found)
    # Some cases break a second rule too (a foreign runtime's image): only the waived rule turns to warnings.
    others = {r["tags"]["rule"] for r in _policy_results(outcome) if r["severity"] == "error"}
    assert outcome.exit_code == (1 if others else 0)


def test_policy_runs_in_validate_mode():
    trainjob, runtime, _, _ = CASES["max-nodes"]
    outcome = _run(trainjob, runtime, mode="validate")
    assert outcome.exit_code == 1 and _policy_results(outcome)


def test_waiver_needs_a_reason_and_a_known_rule():
    tj = copy.deepcopy(GOOD)
    tj["metadata"]["annotations"].update({f"{policy.WAIVER_PREFIX}max-gpus": "x", f"{policy.WAIVER_PREFIX}max-nodes": " "})
    outcome = _run(tj)
    messages = [r["message"] for r in _policy_results(outcome)]
    assert any("unknown policy rule 'max-gpus'" in m for m in messages)
    assert any("gives no reason" in m for m in messages)
    assert outcome.exit_code == 1


def test_runtime_patch_is_blamed():
    tj = copy.deepcopy(GOOD)
    tj["spec"]["runtimePatches"] = [{"manager": "example.com/team", "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [
        {"name": "node", "template": {"spec": {"template": {"spec": {"volumes": [{"name": "scratch", "hostPath": {"path": "/mnt"}}]}}}}}]}}}}]
    outcome = _run(tj)
    [found] = [r for r in _policy_results(outcome) if r["tags"]["rule"] == "policy/no-host-path"]
    assert found["field"]["path"] == ("spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0]"
                                      ".template.spec.template.spec.volumes[0]")
    assert found["resourceRef"]["kind"] == "TrainJob"


def test_bad_policy_settings_are_errors():
    outcome = _run(GOOD, spec_policy={"maxGPUs": 1})
    assert outcome.exit_code == 1 and any("unknown policy setting 'maxGPUs'" in r["message"] for r in outcome.results)
    outcome = _run(GOOD, spec_policy={"maxCPUPerTrainJob": "lots"})
    assert outcome.exit_code == 1 and any("must be a quantity" in r["message"] for r in outcome.results)


def test_configmap_form():
    fc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"},
          "data": {"policy.maxNodes": "1", "policy.forbidLatestTag": "true", "policy.allowedImagePrefixes": "a/, registry.example.com/"}}
    outcome = run_with([copy.deepcopy(RUNTIME), copy.deepcopy(GOOD)], fc)
    assert [r["tags"]["rule"] for r in _policy_results(outcome)] == ["policy/max-nodes"]


def test_rules_command_lists_policy_rules(fn):
    out = subprocess.run([fn, "rules"], check=True, capture_output=True, text=True).stdout
    listed = {line.split()[0] for line in out.splitlines()[1:]}  # the table's first column, under its header
    for rule in policy.RULE_IDS + ("policy/waiver",):
        assert rule in listed


def test_fixture_repository(tmp_path, fn):
    """The fixture repository passes (one waiver warning); a forbidden image added to it fails the
    render with exit 1 and names the file and field."""
    repo = tmp_path / "repo"
    shutil.copytree(REPO, repo)
    ok = subprocess.run([fn, "render"], cwd=repo, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert "policy/max-nodes waived (CPU-only sweep, approved in PLAT-123)" in ok.stderr
    bad = _edit(("metadata", "name"), "bad", _edit(("spec", "trainer", "image"), "docker.io/me/train:latest"))
    (repo / "team-a" / "bad.yaml").write_text(yaml.safe_dump(bad))
    failed = subprocess.run([fn, "render"], cwd=repo, capture_output=True, text=True)
    assert failed.returncode == 1 and failed.stdout == ""
    line = [ln for ln in failed.stderr.splitlines() if "allowed registry" in ln][0]
    assert line.startswith("team-a/bad.yaml:") and "TrainJob team-a/bad: spec.trainer.image: " in line
    assert any("tagged latest" in ln for ln in failed.stderr.splitlines())
    assert res.TRAINJOB  # the module under test names TrainJobs the way resource does


def test_a_negative_gpu_count_does_not_cancel_another_container():
    # 16 GPUs in one container and -16 in a sidecar is not "no GPUs": the negative one is the Job
    # API's error (k8s/resources) and counts as zero here.
    from kpt_fn import policy as policy_mod

    pod = {"containers": [{"name": "a", "resources": {"limits": {"nvidia.com/gpu": "16"}}},
                          {"name": "b", "resources": {"limits": {"nvidia.com/gpu": "-16"}}}]}
    js = {"kind": "JobSet", "metadata": {"name": "j"}, "spec": {"replicatedJobs": [
        {"name": "node", "template": {"spec": {"template": {"spec": pod}}}}]}}
    tj = {"kind": "TrainJob", "metadata": {"name": "j"}, "spec": {}}
    found = policy_mod.check(tj, None, [js], {"maxGPUsPerPod": 8})
    assert [p.rule for p in found] == ["policy/max-gpus-per-pod"] and "requests 16 GPUs" in found[0].message


# --- the runtime actually used; a rule skipped says so ---------------------------------------------


def _allowed_only(names):
    return {**POLICY, "allowedRuntimes": list(names)}


def test_allowed_runtimes_judges_the_runtime_used_not_the_name_referred_to():
    ref = GOOD["spec"]["runtimeRef"]["name"]
    # A runtime reached through a previousNames annotation nothing explains is judged by its own name.
    impostor = copy.deepcopy(RUNTIME)
    impostor["metadata"]["name"] = "anything-goes"
    impostor["metadata"].setdefault("annotations", {})["internal.config.kubernetes.io/previousNames"] = ref
    outcome = _run(GOOD, impostor, _allowed_only([ref]))
    [r] = [r for r in _policy_results(outcome) if r["tags"]["rule"] == "policy/allowed-runtimes"]
    assert "anything-goes" in r["message"] and "from the ResourceList items" in r["message"]
    # kustomize's own rename (namePrefix recorded in its annotations) is the runtime referred to.
    renamed = copy.deepcopy(impostor)
    renamed["metadata"]["name"] = f"team-{ref}"
    renamed["metadata"]["annotations"]["internal.config.kubernetes.io/prefixes"] = "team-"
    outcome = _run(GOOD, renamed, _allowed_only([ref]))
    assert not [r for r in _policy_results(outcome) if r["tags"]["rule"] == "policy/allowed-runtimes"]


def test_a_managed_by_trainjob_says_which_pod_level_rules_were_skipped():
    tj = _edit(("spec", "managedBy"), "kueue.x-k8s.io/multikueue")
    outcome = _run(tj)
    [r] = [r for r in _policy_results(outcome) if r["tags"]["rule"] == "policy/skipped"]
    assert r["severity"] == "warning" and r["field"]["path"] == "spec.managedBy"
    assert "policy/max-gpus-per-trainjob" in r["message"] and "kueue.x-k8s.io/multikueue" in r["message"]
    # TrainJob-level rules still run on it.
    outcome = _run(_edit(("metadata", "labels"), {}, tj))
    assert [r for r in _policy_results(outcome) if r["tags"]["rule"] == "policy/required-labels"]


@pytest.mark.parametrize("reason, seen", [
    ("approved in PLAT-1", True), ("é", True), ("日本", True), ("-", True), ("\u200bok", True),
    ("", False), ("   ", False), ("\u200b", False), ("\u2060\u2060", False), ("\u3164", False), ("\u2800", False),
    ("\u202e", False), ("\u00a0", False), ("\u0301", False), ("\ue000", False),
])
def test_a_waiver_reason_must_have_a_visible_character(reason, seen):
    from kpt_fn.policy import visible

    assert visible(reason) is seen
