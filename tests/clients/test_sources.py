"""File discovery and confinement through the real clients (docs/sources.md):

- kustomize generator form with `files: [./jobs]` in a kustomization under a dot-directory, through
  the legacy exec plugin (stock kubectl kustomize) and kustomize v4.5.4's exec KRM function;
- `files` that leave the kustomization directory are refused by both;
- `expand-trainjobs render DIR` from another working directory prints what the Argo CD CMP
  (emulated) prints for that app, and an Application parameter cannot leave the app directory;
- kpt: a relative runtimeDirs that is not there names the absolute path tried.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from support import argocd_cmp as cmp
from clients import kit
from kpt_fn import yamlio

pytestmark = pytest.mark.clients


def _files_app(tmp_path, files, function=None):
    """A kustomization at .deploy/app whose generator reads `files`; the demo's TrainJobs and
    runtimes in jobs/ (and the `List` form of the runtimes, to be flattened)."""
    (tmp_path / ".deploy").mkdir()
    spec = {"namespace": "team-a", "files": files}
    app = kit.make_app(tmp_path, ".deploy/app", "generators", files=("settings.yaml",), spec=spec, function=function)
    (app / "jobs").mkdir()
    shutil.copy(kit.DEMO / "trainjobs.yaml", app / "jobs" / "trainjobs.yaml")
    runtimes = [d for d in yamlio.load_all((kit.DEMO / "runtimes.yaml").read_text()) if d]
    (app / "jobs" / "runtimes.yaml").write_text(yamlio.dump({"apiVersion": "v1", "kind": "List", "items": runtimes}))
    return app


@pytest.fixture
def env_a(tmp_path, fn):
    return kit.client_env(tmp_path, KUSTOMIZE_PLUGIN_HOME=kit.PLUGIN_HOME, EXPAND_TRAINJOBS=fn)


def test_legacy_plugin_reads_dot_slash_files_under_a_dot_directory(kubectl, tmp_path, env_a, demo_objects):
    app = _files_app(tmp_path, ["./jobs"])
    r = kit.run([kubectl, "kustomize", "--enable-alpha-plugins", app], env=env_a).ok()
    objs = kit.normalize(r.stdout)
    kit.assert_demo_objects(objs)
    kit.assert_same_objects(objs, demo_objects, "kubectl kustomize, legacy plugin, files: [./jobs] under .deploy/")


def test_kustomize_454_exec_function_reads_dot_slash_files_under_a_dot_directory(kustomize454, fn, tmp_path, env, demo_objects):
    app = _files_app(tmp_path, ["./jobs"], function={"exec": fn})
    r = kit.run([kustomize454, "build", "--enable-alpha-plugins", "--enable-exec", app], env=env).ok()
    objs = kit.normalize(r.stdout)
    kit.assert_demo_objects(objs)
    kit.assert_same_objects(objs, demo_objects, "kustomize v4.5.4, exec function, files: [./jobs] under .deploy/")


def test_files_outside_the_kustomization_are_refused(kubectl, kustomize454, fn, tmp_path, env_a, env):
    (tmp_path / "other").mkdir()
    shutil.copy(kit.DEMO / "trainjobs.yaml", tmp_path / "other" / "stolen.yaml")
    app = _files_app(tmp_path, ["./jobs", "../../other"])
    r = kit.run([kubectl, "kustomize", "--enable-alpha-plugins", app], env=env_a).failed()
    assert "files: '../../other' is outside the kustomization directory: paths are confined to it" in r.stderr
    (tmp_path / "c").mkdir()
    app = _files_app(tmp_path / "c", ["../../other"], function={"exec": fn})
    r = kit.run([kustomize454, "build", "--enable-alpha-plugins", "--enable-exec", app], env=env).failed()
    assert "files: '../../other' is outside the working directory: paths are confined to it" in r.stderr


# --- Argo CD ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sidecar(request, fn):
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return fn, None
    return request.getfixturevalue("readable_fn"), cmp.SIDECAR_UID


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """apps/train: the demo with its runtimes in a hidden runtime directory named by the config."""
    root = tmp_path_factory.mktemp("repo")
    app = kit.copy_tree(kit.DEMO, root / "apps" / "train")
    (app / ".runtimes").mkdir()
    (app / "runtimes.yaml").rename(app / ".runtimes" / "runtimes.yaml")
    (app / "expand-trainjobs.yaml").write_text(yamlio.dump({
        "apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "metadata": {"name": "x"},
        "spec": {"namespace": "team-a", "runtimeDirs": [".runtimes"]},
    }))
    open_app = root / "apps" / "open"
    open_app.mkdir()
    (open_app / "expand-trainjobs.yaml").write_text("")
    shutil.copy(kit.DEMO / "trainjobs.yaml", open_app / "trainjobs.yaml")
    return root


@pytest.fixture(scope="module")
def work_root():
    d = tempfile.mkdtemp(prefix="argocd-cmp-")
    os.chmod(d, 0o711)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def _generate(sidecar, repo, work_root, app_path, **kw):
    function, uid = sidecar
    return cmp.generate(
        kit.PLUGIN_YAML, repo, app_path, work_root=work_root, command_map={kit.IMAGE_PATH_IN_PLUGIN_YAML: function},
        run_as=uid, build_env=cmp.build_env_for_app(namespace="team-a"), **kw
    )


def test_render_dir_from_elsewhere_equals_the_cmp(sidecar, repo, work_root, fn, tmp_path, demo_objects):
    result = _generate(sidecar, repo, work_root, "apps/train")
    env = kit.client_env(tmp_path, ARGOCD_APP_NAMESPACE="team-a")
    for cwd, target in ((repo, "apps/train"), (tmp_path, str(repo / "apps" / "train"))):
        r = kit.run([fn, "render", target], cwd=cwd, env=env).ok()
        assert r.stdout.removesuffix("\n") == result.stdout, f"render {target} from {cwd}"
        assert r.stderr == result.stderr
    kit.assert_same_objects(kit.normalize(result.manifests), demo_objects, "Argo CD CMP, runtimes in a runtime directory")


def test_a_parameter_cannot_leave_the_repository(sidecar, repo, work_root):
    # Under the sidecar the root is the repository (kpt_fn/argocd.py): a sibling app's directory is
    # inside it, an absolute path or one above the repository is not.
    with pytest.raises(cmp.CMPError) as e:
        _generate(sidecar, repo, work_root, "apps/open", parameters=[{"name": "runtimeDirs", "array": ["../train/.runtimes", "../../..", "/"]}])
    message = str(e.value)
    assert "'../train/.runtimes' is outside" not in message
    assert "runtimeDirs: runtime directory '../../..' is outside the repository root: paths are confined to it" in message
    assert "runtimeDirs: runtime directory '/' is outside the repository root" in message


def test_ignored_parameters_are_a_warning(sidecar, repo, work_root):
    result = _generate(sidecar, repo, work_root, "apps/train", parameters=[{"name": "namespace", "string": "other"}])
    assert "warning: Argo CD parameter(s) namespace ignored: expand-trainjobs.yaml holds the functionConfig" in result.stderr


# --- kpt --------------------------------------------------------------------------------------------


def test_kpt_relative_runtime_dir_not_found_names_the_path_tried(kpt, fn, tmp_path, env):
    pkg = kit.copy_tree(kit.DEMO, tmp_path / "pkg")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = kit.run([kpt, "fn", "eval", pkg, "--exec", fn, "--", "runtimeDirs=runtimes"], cwd=elsewhere, env=env).failed()
    assert f"runtime directory 'runtimes' not found: tried {elsewhere}/runtimes (relative to the working directory {elsewhere})" in r.stderr


def test_kpt_trainjob_inside_a_list_is_an_error(kpt, fn, tmp_path, env):
    # kpt hands a `kind: List` document over as one item (it does not flatten it, unlike kubectl,
    # kustomize and Argo CD): its TrainJobs cannot render, and must not vanish with exit 0.
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    trainjobs = [d for d in yamlio.load_all((kit.DEMO / "trainjobs.yaml").read_text()) if d]
    # (kpt refuses a List without metadata.name before the function runs.)
    (pkg / "list.yaml").write_text(yamlio.dump({"apiVersion": "v1", "kind": "List", "metadata": {"name": "jobs"}, "items": trainjobs[:1]}))
    r = kit.run([kpt, "fn", "eval", pkg, "--exec", fn, "--", "namespace=team-a"], cwd=tmp_path, env=env).failed()
    assert "TrainJob team-a/mnist inside List is not expanded" in r.stderr
