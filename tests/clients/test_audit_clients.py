"""Audit findings through the real clients (see tests/behaviour/test_never_lose_items.py): runs that said ok while a
TrainJob was not rendered."""

from __future__ import annotations

import pytest

from clients import kit

pytestmark = pytest.mark.clients

def test_kubectl_kustomize_generator_with_trainjobs_under_resources_fails(kubectl, fn, tmp_path):
    """kustomize hands a generator none of the resources: the local-config TrainJob listed there used to
    vanish from the output, exit 0."""
    app = tmp_path / "app"
    app.mkdir()
    (app / "jobs.yaml").write_text(kit.LOCAL_TRAINJOB.format(name="mnist"))
    (app / "other.yaml").write_text(kit.LOCAL_TRAINJOB.format(name="other"))
    (app / "expander.yaml").write_text(
        "apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nmetadata:\n  name: expand\nspec:\n  files: [other.yaml]\n"
    )
    (app / "kustomization.yaml").write_text("resources: [jobs.yaml]\ngenerators: [expander.yaml]\n")
    env = kit.client_env(tmp_path, KUSTOMIZE_PLUGIN_HOME=kit.PLUGIN_HOME, EXPAND_TRAINJOBS=fn)
    r = kit.run([kubectl, "kustomize", "--enable-alpha-plugins", app], env=env).failed()
    assert "TrainJob team-a/mnist in jobs.yaml" in r.stderr and "listed under resources:" in r.stderr
    # Listed under transformers:, the same kustomization renders both.
    (app / "kustomization.yaml").write_text("resources: [jobs.yaml]\ntransformers: [expander.yaml]\n")
    r = kit.run([kubectl, "kustomize", "--enable-alpha-plugins", app], env=env).ok()
    assert sorted(n for k, _, n in kit.ids(kit.load_stream(r.stdout)) if k == "JobSet") == ["mnist", "other"]


INLINE = """apiVersion: fn.kpt.dev/v1alpha1
kind: ExpandTrainJobs
metadata:
  name: expand
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  trainJobs:
  - apiVersion: trainer.kubeflow.org/v1alpha1
    kind: TrainJob
    metadata: {name: inline, namespace: team-a}
    spec: {runtimeRef: {name: torch-distributed}}
"""


def test_render_fails_on_a_config_whose_trainjobs_it_never_renders(fn, tmp_path):
    """An app (Argo CD: `expand-trainjobs render` in its directory) that also holds a kustomize generator
    config with inline TrainJobs: those were silently not rendered, exit 0."""
    app = tmp_path / "app"
    app.mkdir()
    (app / "expand-trainjobs.yaml").write_text("")
    (app / "gen.yaml").write_text(INLINE)
    (app / "jobs.yaml").write_text(kit.LOCAL_TRAINJOB.format(name="mnist"))
    r = kit.run([fn, "render"], cwd=app, env=kit.client_env(tmp_path, ARGOCD_APP_NAMESPACE="team-a")).failed()
    assert r.stdout == ""
    assert "ExpandTrainJobs expand is not this run's functionConfig" in r.stderr and "spec.trainJobs" in r.stderr


def test_kpt_render_with_the_config_as_a_package_file_is_quiet(kpt, fn, tmp_path):
    """kpt fn render hands the configPath file over as an item too: that is the functionConfig itself."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "Kptfile").write_text(
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n"
        f"pipeline:\n  mutators:\n  - exec: {fn}\n    configPath: fn.yaml\n"
    )
    (pkg / "fn.yaml").write_text(INLINE)
    r = kit.run([kpt, "fn", "render", pkg, "--allow-exec", "--truncate-output=false"], cwd=tmp_path, env=kit.client_env(tmp_path)).ok()
    assert "not this run's functionConfig" not in r.stderr
    assert any(d.get("kind") == "JobSet" for p in pkg.rglob("*.yaml") for d in kit.load_stream(p.read_text()))


def test_kubectl_kustomize_generator_files_with_a_configmap_fails(kubectl, fn, tmp_path):
    """`files: [jobs]` read a ConfigMap next to the TrainJobs and never emitted it: gone from the build, exit 0."""
    app = tmp_path / "app"
    (app / "jobs").mkdir(parents=True)
    (app / "jobs" / "jobs.yaml").write_text(kit.LOCAL_TRAINJOB.format(name="mnist"))
    (app / "jobs" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: train-settings, namespace: team-a}\ndata: {lr: '0.1'}\n")
    (app / "expander.yaml").write_text(
        "apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nmetadata:\n  name: expand\nspec:\n  files: [jobs]\n"
    )
    (app / "kustomization.yaml").write_text("generators: [expander.yaml]\n")
    env = kit.client_env(tmp_path, KUSTOMIZE_PLUGIN_HOME=kit.PLUGIN_HOME, EXPAND_TRAINJOBS=fn)
    r = kit.run([kubectl, "kustomize", "--enable-alpha-plugins", app], env=env).failed()
    assert "ConfigMap team-a/train-settings (in jobs/cm.yaml) is read through spec.files" in r.stderr
    # Listed under resources: instead, it is built along with the JobSet.
    (app / "cm.yaml").write_text((app / "jobs" / "cm.yaml").read_text())
    (app / "jobs" / "cm.yaml").unlink()
    (app / "kustomization.yaml").write_text("resources: [cm.yaml]\ngenerators: [expander.yaml]\n")
    r = kit.run([kubectl, "kustomize", "--enable-alpha-plugins", app], env=env).ok()
    assert [k for k, _, _ in kit.ids(kit.load_stream(r.stdout))] == ["ConfigMap", "JobSet"]


def test_kpt_report_option_beside_a_users_object_in_the_report_file(kpt, fn, tmp_path):
    """kpt refused the function's output ('resource at path "expand-trainjobs-report.yaml" and index "0"
    already exists') when that file held the user's own object."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "jobs.yaml").write_text(kit.LOCAL_TRAINJOB.format(name="mnist"))
    (pkg / "fn.yaml").write_text(
        "apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nmetadata:\n  name: fn\n"
        "  annotations: {config.kubernetes.io/local-config: 'true'}\nspec: {report: markdown}\n"
    )
    notes = "# notes for reviewers\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: review-notes\n  namespace: team-a\ndata:\n  owner: alice\n"
    (pkg / "expand-trainjobs-report.yaml").write_text(notes)
    env = kit.client_env(tmp_path)
    kit.run([kpt, "fn", "eval", pkg, "--exec", fn, "--fn-config", pkg / "fn.yaml"], cwd=tmp_path, env=env).ok()
    text = (pkg / "expand-trainjobs-report.yaml").read_text()
    assert text.startswith(notes) and "name: expand-trainjobs-report" in text
    first = kit.snapshot(pkg)
    kit.run([kpt, "fn", "eval", pkg, "--exec", fn, "--fn-config", pkg / "fn.yaml"], cwd=tmp_path, env=env).ok()
    assert kit.snapshot(pkg) == first
