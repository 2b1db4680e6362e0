"""The image as Argo CD's CMP sidecar: plugin.yaml read from inside the image, the repository copied
as the cmp-server does (tests/support/argocd_cmp.py), and `generate` exec'd in the container as uid 999, in
the app directory (mounted read-only), with Argo CD's environment; stdout parsed with the YAML 1.1
reader the repo-server uses. Output must equal the emulated sidecar running the exec route."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from support import argocd_cmp as cmp
from clients import kit
from container import engine
from container.sidecar import sidecar_generate
from kpt_fn import yamlio

pytestmark = pytest.mark.container

PLUGIN_PATH_IN_IMAGE = "/home/argocd/cmp-server/config/plugin.yaml"
TRAINJOB = {
    "apiVersion": "trainer.kubeflow.org/v1alpha1",
    "kind": "TrainJob",
    "metadata": {"name": "params"},
    "spec": {"runtimeRef": {"name": "torch-distributed"}},
}


@pytest.fixture(scope="module")
def plugin_yaml(image, engine_ready, tmp_path_factory) -> Path:
    """plugin.yaml as baked into the image (not the checkout's copy)."""
    p = engine.run(["podman", "run", "--rm", "--network", "none", "--entrypoint", "cat", image, PLUGIN_PATH_IN_IMAGE], env=engine_ready)
    path = tmp_path_factory.mktemp("plugin") / "plugin.yaml"
    path.write_text(p.stdout)
    return path


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("repo")
    kit.copy_tree(kit.DEMO, root / "apps" / "train")
    params = root / "apps" / "params"
    params.mkdir(parents=True)
    (params / "expand-trainjobs.yaml").write_text("")
    (params / "trainjob.yaml").write_text(yamlio.dump(TRAINJOB))
    bad = kit.copy_tree(kit.CLIENT_FIXTURES / "bad", root / "apps" / "bad")
    (bad / "expand-trainjobs.yaml").write_text("")
    kit.copy_tree(kit.DEMO, root / "apps" / "unmarked")
    (root / "apps" / "unmarked" / "expand-trainjobs.yaml").unlink()
    return root


@pytest.fixture(scope="module")
def work_root():
    d = tempfile.mkdtemp(prefix="argocd-cmp-image-")
    os.chmod(d, 0o711)
    yield Path(d)
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def generate(image, engine_ready, plugin_yaml, repo, work_root):
    def _generate(app_path, **kw):
        return sidecar_generate(image, engine_ready, plugin_yaml, repo, app_path, work_root, **kw)

    return _generate


@pytest.fixture
def generate_exec(fn, repo, work_root):
    """The same request to the emulated sidecar running the checkout's function (tests/clients)."""
    def _generate(app_path, **kw):
        kw.setdefault("build_env", cmp.build_env_for_app(namespace="apps-ns"))
        return cmp.generate(kit.PLUGIN_YAML, repo, app_path, work_root=work_root,
                            command_map={kit.IMAGE_PATH_IN_PLUGIN_YAML: fn}, **kw)

    return _generate


def test_plugin_yaml_in_the_image_is_the_shipped_one(plugin_yaml):
    assert plugin_yaml.read_bytes() == kit.PLUGIN_YAML.read_bytes()


def test_generate_as_999_equals_exec(generate, generate_exec):
    result = generate("apps/train")
    assert result.plugin_name == "expand-trainjobs-v1"
    kit.assert_demo_objects(kit.normalize(result.manifests))
    assert result.stderr.startswith("expand-trainjobs: ok:")
    (settings,) = [m for m in result.manifests if m["kind"] == "ConfigMap" and m["metadata"]["name"] == "settings"]
    assert settings["data"] == kit.TRICKY and all(type(v) is str for v in settings["data"].values())
    assert result.stdout == generate_exec("apps/train").stdout


def test_parameters_and_env(generate, generate_exec):
    params = [{"name": "namespace", "string": "ml"}, {"name": "output", "string": "all"}]
    entries = [("GREETING", "hi-$ARGOCD_APP_NAME")]
    result = generate("apps/params", parameters=params, env_entries=entries)
    assert result.env_added["ARGOCD_ENV_GREETING"] == "hi-train"
    jobsets = [(m["metadata"]["name"], m["metadata"].get("namespace")) for m in result.manifests if m["kind"] == "JobSet"]
    assert jobsets == [("params", "ml")]
    assert result.stdout == generate_exec("apps/params", parameters=params, env_entries=entries).stdout
    # Without parameters the Application's namespace is the default.
    default = generate("apps/params")
    assert [m["metadata"].get("namespace") for m in default.manifests if m["kind"] == "JobSet"] == ["apps-ns"]


def test_failure_exits_non_zero(generate):
    with pytest.raises(cmp.CMPError) as e:
        generate("apps/bad")
    assert "render` failed exit status 1: expand-trainjobs: FAILED: 1 error(s)" in str(e.value)
    assert "no-such-runtime" in str(e.value)


def test_discovery_uses_the_marker_file(generate):
    with pytest.raises(cmp.CMPError, match="does not match the application"):
        generate("apps/unmarked")
