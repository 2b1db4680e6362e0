"""The cluster's ValidatingAdmissionPolicies through the whole function: a platform team's corpus
(fixtures/admission/platform: GPU limits, image registries, required labels, team quotas by namespace
label, pod security, pinned images, audited deadlines) judging valid, unusual TrainJobs (controls:
nothing may be reported) and TrainJobs each policy refuses (named with the created object, the
policy and binding, and the TrainJob or runtime field), in render, validate and KRM mode, and through
the command line's formats, report and diff. That a run without policies imports no admission module
is tests/behaviour/test_light_startup.py's."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
import yaml

from kpt_fn import function
from support import krm_mode
from support.door import run_with

REPO = Path(__file__).resolve().parents[2]
PLATFORM = REPO / "fixtures" / "admission" / "platform"
LOCAL = {"config.kubernetes.io/local-config": "true"}


def platform() -> list:
    return [d for f in sorted(PLATFORM.glob("*.yaml")) for d in yaml.safe_load_all(f.read_text()) if d]


def trainjob(name, namespace="team-a", labels=None, trainer=None, patches=None):
    spec = {"runtimeRef": {"name": "torch-platform"}, "trainer": {"numNodes": 2, **(trainer or {})}}
    if patches:
        spec["runtimePatches"] = [{"manager": "example.com/ops", "trainingRuntimeSpec": {"template": {"spec": {
            "replicatedJobs": [{"name": "node", "template": p}]}}}} for p in patches]
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": name, "namespace": namespace, "labels": {"team": "a"} if labels is None else labels,
                         "annotations": LOCAL}, "spec": spec}


def gpus(n):
    return {"resourcesPerNode": {"limits": {"nvidia.com/gpu": n}}}


CONTROLS = [
    trainjob("plain"),
    trainjob("eight-gpus", trainer=gpus(8)),
    trainjob("gpus-as-text", trainer=gpus("8")),
    trainjob("restricted-at-the-limit", namespace="team-b", trainer={"numNodes": 4}),
    trainjob("digest", trainer={"image": "registry.example.com/pytorch@sha256:" + "a" * 64}),
    trainjob("explicitly-unprivileged", patches=[{"spec": {"template": {"spec": {
        "containers": [{"name": "node", "securityContext": {"privileged": False}}]}}}}]),
    trainjob("gpu-policy-not-bound-here", namespace="team-b", trainer=gpus(16)),  # team-b has no gpu label
]

# name, TrainJob, [(severity, text in the message, path, subject kind or None for the TrainJob)]
REFUSALS = [
    ("too-many-gpus", trainjob("big", trainer=gpus(16)),
     [("error", "Pod `big-node-0-0` of Job `big-node-0` (and 1 more like it): ValidatingAdmissionPolicy 'gpu-limit' "
                "with binding 'gpu-limit' denied request: a container may ask for at most 8 GPUs (reason Forbidden)",
       "spec.trainer.resourcesPerNode.limits", None)]),
    ("foreign-registry", trainjob("hub", trainer={"image": "docker.io/me/train:1"}),
     [("error", "ValidatingAdmissionPolicy 'allowed-registry' with binding 'allowed-registry' denied request: image "
                "docker.io/me/train:1 is not from registry.example.com/", "spec.trainer.image", None)]),
    ("no-team", trainjob("anon", labels={}),
     [("error", "TrainJob `anon`: ValidatingAdmissionPolicy 'team-label' with binding 'team-label' denied request: "
                "TrainJob anon has no team label", "metadata.labels", None)]),
    ("restricted-quota", trainjob("wide", namespace="team-b", trainer={"numNodes": 8}),
     [("error", "Job `wide-node-0` of JobSet `wide`: ValidatingAdmissionPolicy 'restricted-parallelism' with binding "
                "'restricted-parallelism' denied request: at most 4 pods per Job in team-b, not 8", "spec.trainer.numNodes", None)]),
    ("privileged-by-patch", trainjob("root", patches=[{"spec": {"template": {"spec": {
        "containers": [{"name": "node", "securityContext": {"privileged": True}}]}}}}]),
     [("error", "denied request: privileged containers are not allowed",
       "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0].template.spec.template.spec"
       ".containers[0].securityContext.privileged", None)]),
    ("latest-tag", trainjob("unpinned", trainer={"image": "registry.example.com/train:latest"}),
     [("warning", "Validation failed for ValidatingAdmissionPolicy 'pinned-images' with binding 'pinned-images': pin images",
       "spec.trainer.image", None)]),
    ("audited-deadline", trainjob("audited", patches=[{"metadata": {"labels": {"audit-deadline": "true"}}}]),
     [("info", "audit: ValidatingAdmissionPolicy 'job-deadline' with binding 'job-deadline' would record validation_failure",
       None, None)]),
    ("unknown-namespace", trainjob("elsewhere", namespace="team-c"),
     [("warning", "ValidatingAdmissionPolicy 'restricted-parallelism' cannot be judged offline: its namespaceSelector needs "
                  "the labels of Namespace 'team-c'", None, None),
      ("warning", "ValidatingAdmissionPolicy 'gpu-limit' with binding 'gpu-limit' cannot be judged offline", None, None)]),
]


def run(items, **spec):
    return run_with(items, {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "spec": spec})


def admission_results(outcome):
    return [r for r in outcome.results if r.rule.startswith("admission/") and r.rule != "admission/sampled"]


@pytest.mark.parametrize("mode", ["render", "validate"])
def test_controls_pass(mode):
    outcome = run(platform() + CONTROLS, mode=mode)
    assert [r.message for r in admission_results(outcome)] == []
    assert outcome.exit_code == 0, [r.message for r in outcome.results]


@pytest.mark.parametrize("mode", ["render", "validate"])
@pytest.mark.parametrize("name,tj,expected", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_refusals_name_object_policy_binding_and_source(name, tj, expected, mode):
    outcome = run(platform() + [tj], mode=mode)
    found = admission_results(outcome)
    for severity, text, path, _ in expected:
        hits = [r for r in found if text in r.message and r.severity == severity]
        assert hits, (text, [(r.severity, r.message) for r in found])
        if path is not None:
            assert hits[0].field == path, hits[0]
    assert len(found) == len(expected), [r.message for r in found]
    assert outcome.exit_code == (1 if any(e[0] == "error" for e in expected) else 0)


def test_krm_mode_reports_and_keeps_every_item(monkeypatch):
    items = platform() + [REFUSALS[1][1]]
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}
    out, err, code = krm_mode.run(monkeypatch, yaml.safe_dump(rl).encode())
    assert code == 1
    result = yaml.safe_load(out)
    messages = [r["message"] for r in result["results"]]
    assert any("'allowed-registry' with binding 'allowed-registry' denied request" in m for m in messages)
    kinds = [i["kind"] for i in result["items"]]
    assert kinds.count("ValidatingAdmissionPolicy") == 7 and kinds.count("ValidatingAdmissionPolicyBinding") == 7


def test_policy_dirs_are_read_like_runtime_dirs(tmp_path):
    for d in ("policies", "runtimes"):
        (tmp_path / d).mkdir()
    for f in PLATFORM.glob("*.yaml"):
        (tmp_path / ("runtimes" if f.name == "runtime.yaml" else "policies") / f.name).write_text(f.read_text())
    outcome = run_with([trainjob("anon", labels={})], {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs",
                                                       "spec": {"policyDirs": ["policies"], "runtimeDirs": ["runtimes"]}},
                       function.Door(base_dir=str(tmp_path)))
    assert any("'team-label' with binding 'team-label' denied request" in r.message for r in outcome.results)
    outside = run_with([trainjob("x")], {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs",
                                         "spec": {"policyDirs": ["../.."]}}, function.Door(base_dir=str(tmp_path)))
    assert any("policyDirs" in r.message and "outside" in r.message for r in outside.results)


def test_admission_users_name_the_creator():
    pol = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "who"},
           "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                                                            "resources": ["pods"]}]},
                    "validations": [{"expression": "request.userInfo.username == 'system:serviceaccount:kube-system:job-controller'",
                                     "messageExpression": "'created by ' + request.userInfo.username"}]}}
    bind = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": "who"},
            "spec": {"policyName": "who", "validationActions": ["Deny"]}}
    items = [*platform(), pol, bind, trainjob("t")]
    assert run(items).exit_code == 0
    outcome = run(items, admissionUsers=["job-controller=system:serviceaccount:ops:fake"])
    assert any("created by system:serviceaccount:ops:fake" in r.message for r in outcome.results)


def _cli(monkeypatch, capfd, *args):
    """(stdout, stderr, exit status) of the command line run in-process."""
    from kpt_fn import cli

    monkeypatch.setattr(sys, "argv", ["expand-trainjobs", *args])
    for k in [k for k in os.environ if k.startswith(("ARGOCD_", "EXPAND_TRAINJOBS_"))]:
        monkeypatch.delenv(k)
    with pytest.raises(SystemExit) as done:
        cli.main()
    out, err = capfd.readouterr()
    return out, err, done.value.code


@pytest.fixture()
def app(tmp_path):
    for f in PLATFORM.glob("*.yaml"):
        (tmp_path / f.name).write_text(f.read_text())
    (tmp_path / "jobs.yaml").write_text(yaml.safe_dump(trainjob("hub", trainer={"image": "docker.io/me/train:1"})))
    return tmp_path


DENIED = "ValidatingAdmissionPolicy 'allowed-registry' with binding 'allowed-registry' denied request"


@pytest.mark.parametrize("fmt", ["json", "sarif", "junit", "github"])
def test_every_validate_format_carries_the_refusal_and_its_field(monkeypatch, capfd, app, fmt):
    out, err, code = _cli(monkeypatch, capfd, "validate", "--format", fmt, str(app))
    assert code == 1 and DENIED in out, (out, err)
    assert "spec.trainer.image" in out
    if fmt == "json":
        [finding] = [f for f in json.loads(out)["findings"] if DENIED in f["message"]]
        assert finding["rule"] == "admission/validating-policy" and finding["file"].endswith("jobs.yaml")


def test_text_and_report_carry_the_refusal(monkeypatch, capfd, app):
    _, err, code = _cli(monkeypatch, capfd, "validate", str(app))
    assert code == 1 and DENIED in err and "jobs.yaml" in err
    out, err, _ = _cli(monkeypatch, capfd, "report", str(app))
    assert DENIED in out, (out, err)


def test_diff_shows_the_refusal_a_change_brings(monkeypatch, capfd, app, tmp_path_factory):
    before = tmp_path_factory.mktemp("before")
    for f in app.glob("*.yaml"):
        (before / f.name).write_text(f.read_text())
    (before / "jobs.yaml").write_text(yaml.safe_dump(trainjob("hub")))
    out, err, _ = _cli(monkeypatch, capfd, "diff", str(before), str(app))
    assert DENIED in out, (out, err)
