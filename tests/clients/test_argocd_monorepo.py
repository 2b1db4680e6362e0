"""The Argo CD monorepo layout through the emulated sidecar (tests/support/argocd_cmp.py): an app's
runtimeDirs reach platform/runtimes of the same repository, with and without the repo-server's
--plugin-use-manifest-generate-paths; a path above the repository is refused."""

from __future__ import annotations

import shutil
import tempfile

import pytest

from support import argocd_cmp as cmp
from clients import kit
from kpt_fn import yamlio

pytestmark = pytest.mark.clients

TORCH = kit.FIXTURES / "examples" / "torch-job"
DEPLOY_APP = kit.ROOT / "deploy" / "argocd" / "application.yaml"


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """apps/train (the app of deploy/argocd/application.yaml), platform/runtimes, and apps/escape whose
    runtimeDirs leaves the repository."""
    top = tmp_path_factory.mktemp("monorepo")
    root = top / "repo"
    (root / "platform" / "runtimes").mkdir(parents=True)
    shutil.copy(TORCH / "runtime.yaml", root / "platform" / "runtimes" / "torch.yaml")
    for app in ("train", "escape"):
        (root / "apps" / app).mkdir(parents=True)
        shutil.copy(TORCH / "trainjob.yaml", root / "apps" / app / "trainjob.yaml")
        (root / "apps" / app / "expand-trainjobs.yaml").write_text("")
    (top / "outside").mkdir()
    shutil.copy(TORCH / "runtime.yaml", top / "outside" / "torch.yaml")
    return root


@pytest.fixture
def generate(fn, repo):
    work_root = tempfile.mkdtemp(prefix="argocd-cmp-monorepo-")

    def _generate(app_path, **kw):
        return cmp.generate(kit.PLUGIN_YAML, repo, app_path, work_root=work_root,
                            command_map={kit.IMAGE_PATH_IN_PLUGIN_YAML: fn}, **kw)

    yield _generate
    shutil.rmtree(work_root, ignore_errors=True)


def _deploy_app() -> tuple[dict, list]:
    app = yamlio.load(DEPLOY_APP.read_text())
    return app, app["spec"]["source"]["plugin"]["parameters"]


def _image(result) -> str:
    (js,) = [m for m in result.manifests if m["kind"] == "JobSet"]
    return js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["image"]


def test_the_deploy_application_renders_its_shared_runtimes(generate):
    app, parameters = _deploy_app()
    path = app["spec"]["source"]["path"]
    assert _image(generate(path, parameters=parameters)) == "docker.io/kubeflow/pytorch-mnist"
    # With --plugin-use-manifest-generate-paths the annotation decides what is streamed: the common
    # root of apps/train and /platform/runtimes is the repository, and the runtimes arrive.
    annotation = app["metadata"]["annotations"]["argocd.argoproj.io/manifest-generate-paths"]
    assert cmp.application_root_path(path, annotation) == ""
    assert _image(generate(path, parameters=parameters, manifest_generate_paths=annotation)) == "docker.io/kubeflow/pytorch-mnist"


def test_an_annotation_without_the_runtimes_streams_the_app_alone(generate):
    _, parameters = _deploy_app()
    assert cmp.application_root_path("apps/train", ".") == "apps/train"
    with pytest.raises(cmp.CMPError, match="outside the repository root"):
        generate("apps/train", parameters=parameters, manifest_generate_paths=".")


def test_a_runtime_dir_above_the_repository_is_refused(generate):
    parameters = [{"name": "runtimeDirs", "array": ["../../../outside"]}]
    with pytest.raises(cmp.CMPError) as e:
        generate("apps/escape", parameters=parameters)
    assert "runtime directory '../../../outside' is outside the repository root" in str(e.value)
    # Messages never show the sidecar's work directory.
    assert "_cmp_server" not in str(e.value)


@pytest.mark.parametrize("app_path, annotation, root", [
    ("apps/train", "", ""),
    ("apps/train", ".", "apps/train"),
    ("apps/train", "../shared", "apps"),
    ("apps/train", ".;/platform", ""),
    ("apps/train/x", "../y", "apps/train"),
    # Upstream's quirk: once two paths diverge, a later shorter one no longer shortens the root.
    ("a/b/c", "/a/b/x;/a", "a/b"),
])
def test_application_root_path(app_path, annotation, root):
    assert cmp.application_root_path(app_path, annotation) == root


def test_the_shipped_example_renders_without_a_warning(fn):
    # Argo CD hides a successful render's stderr: the example must not need it read.
    from support import shipped_examples as ex

    request = ex.argocd_request(ex.EXAMPLES / "argocd-app")
    work_root = tempfile.mkdtemp(prefix="argocd-cmp-example-")
    try:
        result = cmp.generate(kit.PLUGIN_YAML, ex.EXAMPLES / "argocd-app", request.pop("app_path"), work_root=work_root,
                              command_map={kit.IMAGE_PATH_IN_PLUGIN_YAML: fn}, **request)
    finally:
        shutil.rmtree(work_root, ignore_errors=True)
    assert result.stderr.startswith("expand-trainjobs: ok: 0 error(s), 0 warning(s)"), result.stderr
    assert _image(result) == "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime"
