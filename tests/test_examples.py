"""examples/: every example rendered by its client through the exec route, compared with its
checked-in `.expected/` (tests/shipped_examples.py; the image route is in tests/container/)."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

import argocd_cmp as cmp
import shipped_examples as ex
from clients import kit

pytestmark = pytest.mark.clients


def test_one_example_per_route():
    assert sorted(ex.route(n) for n in ex.NAMES) == ["argocd", "kpt-render", "kustomize", "kustomize"]


@pytest.mark.parametrize("name", [n for n in ex.NAMES if ex.route(n) == "kpt-render"])
def test_kpt_package(name, kpt, fn, tmp_path):
    pkg = ex.copy_example(name, tmp_path, image=None)
    diff = ex.run_kpt_render(kpt, pkg, kit.client_env(tmp_path), exec_fn=fn)
    ex.check(name, diff, may_update=True)


@pytest.mark.parametrize("name", [n for n in ex.NAMES if ex.route(n) == "kustomize"])
def test_kustomize(name, kubectl, fn, tmp_path):
    app = ex.copy_example(name, tmp_path, image=None)
    ex.to_legacy_plugin(app)
    env = kit.client_env(tmp_path, KUSTOMIZE_PLUGIN_HOME=kit.PLUGIN_HOME, EXPAND_TRAINJOBS=fn)
    out = ex.run_kustomize(kubectl, app, env)
    assert "JobSet" in out
    ex.check(name, out, may_update=True)


@pytest.mark.parametrize("name", [n for n in ex.NAMES if ex.route(n) == "argocd"])
def test_argocd_app(name, fn):
    work_root = tempfile.mkdtemp(prefix="argocd-cmp-example-")
    try:
        request = ex.argocd_request(ex.EXAMPLES / name)
        result = cmp.generate(
            kit.PLUGIN_YAML, ex.EXAMPLES / name, request.pop("app_path"), work_root=work_root,
            command_map={kit.IMAGE_PATH_IN_PLUGIN_YAML: fn}, **request,
        )
    finally:
        shutil.rmtree(work_root, ignore_errors=True)
    assert any(m["kind"] == "JobSet" for m in result.manifests)
    ex.check(name, result.stdout + "\n", may_update=True)


def test_examples_name_the_documented_image():
    # The image swap of the container tests relies on this exact reference.
    for name in ex.NAMES:
        if ex.route(name) in ("kpt-render", "kustomize"):
            texts = [p.read_text() for p in (ex.EXAMPLES / name).iterdir() if p.is_file()]
            assert any(ex.IMAGE_IN_EXAMPLES in t for t in texts), name
    assert os.path.isfile(ex.EXAMPLES / "argocd-app" / "application.yaml")


def test_metadata_yaml_in_the_catalog_format():
    from kpt_fn import yamlio

    meta = yamlio.load((kit.ROOT / "metadata.yaml").read_text())
    assert set(meta) == {"image", "description", "tags", "sourceURL", "examplePackageURLs", "emails", "license"}
    assert ex.IMAGE_IN_EXAMPLES.startswith(meta["image"] + ":")
    assert set(meta["tags"]) <= {"mutator", "generator", "validator"}
    linked = [u.rsplit("/examples/", 1)[1] for u in meta["examplePackageURLs"]]
    assert sorted(linked) == ex.NAMES
    assert all(u.startswith(meta["sourceURL"] + "/") for u in meta["examplePackageURLs"])
    import tomllib

    assert meta["license"] == tomllib.loads((kit.ROOT / "pyproject.toml").read_text())["project"]["license"]["text"]


def test_update_mode_rewrites_and_still_fails(monkeypatch, tmp_path):
    target = tmp_path / "output.yaml"
    target.write_text("old\n")
    monkeypatch.setattr(ex, "expected_file", lambda name: target)
    monkeypatch.setattr(ex, "UPDATE", True)
    with pytest.raises(pytest.fail.Exception, match="rewrote"):
        ex.check("x", "new\n", may_update=True)
    assert target.read_text() == "new\n"
    # The image route never rewrites: it compares, and fails on a difference.
    with pytest.raises(pytest.fail.Exception, match="differs"):
        ex.check("x", "other\n", may_update=False)
    ex.check("x", "new\n", may_update=False)
