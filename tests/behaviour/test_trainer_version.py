"""`trainerVersion`: the option, its command-line flag and what the selected release
decides: the schemas and CEL rules of its CRDs, its runtime webhooks, its built-in runtime catalog."""

from __future__ import annotations

import copy
import subprocess
import sys

import pytest

from kpt_fn import config, upstream, validation
from support.door import run_with

API = "trainer.kubeflow.org/v1alpha1"


def _config(**spec) -> dict:
    return {"apiVersion": config.CONFIG_API_VERSION, "kind": config.CONFIG_KIND, "spec": spec}


def _trainjob(name="tj", **spec) -> dict:
    return {"apiVersion": API, "kind": "TrainJob", "metadata": {"name": name, "namespace": "ml"},
            "spec": {"runtimeRef": {"name": "torch-distributed"}, **spec}}


def _errors(out) -> list[str]:
    return [r["message"] for r in out.results if r.get("severity") == "error"]


def test_default_is_v2_3_0_and_an_unknown_release_lists_the_supported_ones():
    cfg, problems = config.parse(_config())
    assert cfg.trainerVersion == "v2.3.0" and not problems
    _, problems = config.parse(_config(trainerVersion="v2.1.0"))
    assert [p.message for p in problems] == ['Unsupported value: \'v2.1.0\': supported values: "v2.2.1", "v2.3.0"']
    with pytest.raises(upstream.UnknownRelease, match='supported releases are "v2.2.1", "v2.3.0"'):
        upstream.bundle("v2.1.0")


def test_the_builtin_catalog_follows_the_release():
    # manifests/overlays/runtimes/kustomization.yaml: v2.2.1 retags the images and adds no label.
    def images_and_labels(release):
        rt = next(r for r in upstream.bundle(release).catalog() if r["metadata"]["name"] == "torchtune-llama3.2-1b")
        jobs = rt["spec"]["template"]["spec"]["replicatedJobs"]
        images = {c["image"] for rj in jobs for c in rj["template"]["spec"]["template"]["spec"]["containers"]}
        return images, rt["metadata"].get("labels") or {}

    images, labels = images_and_labels("v2.2.1")
    assert "ghcr.io/kubeflow/trainer/torchtune-trainer:v2.2.1" in images
    assert "trainer.kubeflow.org/webhook-validation" not in labels
    images, labels = images_and_labels("v2.3.0")
    assert "ghcr.io/kubeflow/trainer/torchtune-trainer:v2.3.0" in images
    assert labels["trainer.kubeflow.org/webhook-validation"] == "disabled"


def test_rendering_uses_the_releases_catalog():
    out = run_with([_trainjob()], _config(trainerVersion="v2.2.1"))
    jobset = next(i for i in out.items if i.get("kind") == "JobSet")
    node = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]
    assert node["image"] == "pytorch/pytorch:2.10.0-cuda12.8-cudnn9-runtime"
    assert not _errors(out)


def test_the_storage_uri_rule_is_new_in_v2_3_0():
    # pkg/apis/trainer/v1alpha1/trainjob_types.go: the XValidation on storageUri came with v2.3.0.
    tj = _trainjob(initializer={"model": {"storageUri": "not-a-uri"}})
    new = validation.check_object(tj, upstream.bundle("v2.3.0"))
    assert any("storageUri may be empty, or it must be a valid URI" in p.message for p in new)
    assert validation.check_object(tj, upstream.bundle("v2.2.1")) == []


def test_fields_new_in_v2_3_0_are_unknown_to_v2_2_1():
    tj = _trainjob(runtimePatches=[{"manager": "x", "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [
        {"name": "node", "template": {"spec": {"template": {"spec": {"terminationGracePeriodSeconds": 5}}}}}]}}}}])
    assert validation.check_object(tj, upstream.bundle("v2.3.0")) == []
    old = validation.check_object(tj, upstream.bundle("v2.2.1"))
    assert [p.path for p in old] == ["spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[0]"
                                     ".template.spec.template.spec.terminationGracePeriodSeconds"]
    runtime = copy.deepcopy(next(r for r in upstream.bundle("v2.3.0").catalog()
                                 if r["metadata"]["name"] == "torch-distributed"))
    runtime["spec"]["mlPolicy"]["torch"] = {"envInjection": {"targets": [{"jobName": "node", "containerNames": ["x"]}]}}
    assert validation.check_object(runtime, upstream.bundle("v2.3.0")) == []
    assert validation.check_object(runtime, upstream.bundle("v2.2.1"))


def test_command_and_args_items_are_shorter_in_v2_2_1():
    # The TrainJob CRD's trainer.command/args items: maxLength 65536 at v2.2.1, 1048576 at v2.3.0.
    for field in ("command", "args"):
        at_limit = _trainjob(trainer={field: ["x" * 65536]})
        over = _trainjob(trainer={field: ["x" * 65537]})
        for release in ("v2.2.1", "v2.3.0"):
            assert validation.check_object(at_limit, upstream.bundle(release)) == [], (field, release)
        assert validation.check_object(over, upstream.bundle("v2.3.0")) == []
        old = validation.check_object(over, upstream.bundle("v2.2.1"))
        assert [p.path for p in old] == [f"spec.trainer.{field}[0]"]
        assert "65536" in old[0].message


def test_shipped_launcher_runtimes_differ():
    # manifests/base/runtimes/{deepspeed,mlx}_distributed.yaml: v2.2.1 lists the launcher first, without the
    # launcher's dependsOn on the node job and without fsGroup; v2.3.0 has the node job first.
    def layout(release, name):
        rt = next(r for r in upstream.bundle(release).catalog() if r["metadata"]["name"] == name)
        jobs = rt["spec"]["template"]["spec"]["replicatedJobs"]
        return [(j["name"], j.get("dependsOn"), (j["template"]["spec"]["template"]["spec"].get("securityContext")
                                                 or {}).get("fsGroup")) for j in jobs]

    for name in ("deepspeed-distributed", "mlx-distributed"):
        assert layout("v2.2.1", name) == [("launcher", None, None), ("node", None, None)]
        assert layout("v2.3.0", name) == [("node", None, 1000),
                                          ("launcher", [{"name": "node", "status": "Ready"}], 1000)]


def test_v2_2_1_runtime_webhooks_have_no_object_selector():
    # v2.3.0's manifests/base/webhook/patch_validating.yaml adds the objectSelector; v2.2.1's has none.
    runtime = copy.deepcopy(next(r for r in upstream.bundle("v2.3.0").catalog()
                                 if r["metadata"]["name"] == "torch-distributed"))
    runtime["spec"]["template"]["spec"]["replicatedJobs"][0]["replicas"] = 2
    assert validation.check_runtime_webhook(runtime, upstream.bundle("v2.3.0")) == []  # labelled disabled: not seen
    assert [p.message for p in validation.check_runtime_webhook(runtime, upstream.bundle("v2.2.1"))] == ["always must be 1"]


def test_rules_per_release():
    from kpt_fn import rules

    def texts(release):
        return {r["description"] for r in rules.rules(upstream.bundle(release))}

    assert any("storageUri" in t for t in texts("v2.3.0"))
    assert not any("storageUri" in t for t in texts("v2.2.1"))


def test_the_command_line_flag(tmp_path):
    (tmp_path / "tj.yaml").write_text(
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: tj, namespace: ml}\n"
        "spec: {runtimeRef: {name: torch-distributed}}\n")
    run = lambda *args: subprocess.run([sys.executable, "-m", "kpt_fn", *args], capture_output=True, text=True,  # noqa: E731
                                       cwd=tmp_path)
    old = run("render", "--trainer-version", "v2.2.1", ".")
    assert old.returncode == 0, old.stderr
    assert "pytorch/pytorch:2.10.0-cuda12.8-cudnn9-runtime" in old.stdout
    bad = run("render", "--trainer-version", "v2.1.0", ".")
    assert bad.returncode == 2 and "'v2.1.0' is not one of 'v2.2.1', 'v2.3.0'" in bad.stderr
    listing = run("runtimes", "--trainer-version", "v2.2.1")
    assert listing.stdout.startswith("NAME ") and "torch-distributed " in listing.stdout
    assert "the ClusterTrainingRuntimes Kubeflow Trainer v2.2.1 ships" in listing.stderr


def test_the_argo_cd_parameter(tmp_path):
    from kpt_fn.cli import plain

    (tmp_path / "tj.yaml").write_text(
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: tj, namespace: ml}\n"
        "spec: {runtimeRef: {name: torch-distributed}}\n")
    params = '[{"name": "trainerVersion", "string": "v2.2.1"}]'
    out, lines, code = plain.render([], str(tmp_path), {"ARGOCD_APP_PARAMETERS": params})
    assert code == 0, lines
    assert "pytorch/pytorch:2.10.0-cuda12.8-cudnn9-runtime" in out
    out, lines, code = plain.render([], str(tmp_path), {"ARGOCD_APP_PARAMETERS": params.replace("v2.2.1", "v2.0")})
    assert code == 1 and any('supported values: "v2.2.1", "v2.3.0"' in line for line in lines)
