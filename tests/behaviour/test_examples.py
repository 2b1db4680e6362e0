"""examples/: every example run the way kpt's function test runner runs it (tests/support/kpt_runner.py) and
compared with its checked-in `.expected/diff.patch`, through the exec route (the image route is in
tests/container/); the Argo CD example also through the emulated sidecar (tests/support/argocd_cmp.py)."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from support import argocd_cmp as cmp
from support import kpt_runner
from support import shipped_examples as ex
from clients import kit

pytestmark = pytest.mark.clients


def test_every_client_has_an_example():
    assert sorted(ex.route(n) for n in ex.NAMES) == ["argocd", "kpt", "kustomize", "kustomize", "kustomize", "monorepo"]
    # kubectl runs one kustomize example without a container runtime: the legacy exec plugin.
    assert [n for n in ex.NAMES if ex.route(n) == "kustomize" and not ex.uses_image(n)] == ["kustomize-legacy-plugin"]


@pytest.mark.parametrize("name", ex.NAMES)
def test_example_has_a_readme_and_only_runner_settings(name):
    assert (ex.EXAMPLES / name / "README.md").is_file()
    kpt_runner.config(ex.EXAMPLES / name)  # unknown keys fail
    assert (ex.EXAMPLES / name / ".expected" / "diff.patch").is_file()
    assert (ex.route(name) == "kpt") != (ex.EXAMPLES / name / ".expected" / "exec.sh").is_file()


@pytest.fixture
def runner_env(tmp_path, fn):
    """What the runner's commands see: the function on PATH (the README's quick start activates its
    venv) and, for kustomize's container functions, a docker that runs the function without one."""
    shim = tmp_path / "docker-bin"
    shim.mkdir()
    (shim / "docker").write_text(ex.DOCKER_WITHOUT_CONTAINERS)
    (shim / "docker").chmod(0o755)
    env = kit.client_env(tmp_path)
    env.pop("KUSTOMIZE_PLUGIN_HOME")  # the legacy-plugin example's exec.sh names the checkout's
    env["PATH"] = os.pathsep.join([str(shim), os.path.dirname(fn), env["PATH"]])
    return env


@pytest.mark.parametrize("name", ex.NAMES)
def test_example_under_the_kpt_test_runner(name, kpt, runner_env):
    kpt_runner.run_case(ex.EXAMPLES / name, kpt, runner_env)


@pytest.mark.parametrize("name", [n for n in ex.NAMES if ex.route(n) == "argocd"])
def test_argocd_app_through_the_sidecar(name, fn):
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
    # exec.sh writes the stdout; the sidecar trims its last newline (tests/support/argocd_cmp.py)
    assert result.stdout + "\n" == ex.expected_output(name)


def test_runner_rejects_unknown_settings(tmp_path):
    case = tmp_path / "case"
    (case / ".expected").mkdir(parents=True)
    (case / ".expected" / "config.yaml").write_text("route: kustomize\n")
    with pytest.raises(kpt_runner.CaseFailed, match="does not know: route"):
        kpt_runner.config(case)


def test_image_copies_name_the_image(tmp_path):
    for name in ex.NAMES:
        if ex.route(name) == "kpt" or ex.uses_image(name):
            d = ex.with_image(name, tmp_path / name, "registry.test/fn:1")
            assert any("registry.test/fn:1" in p.read_text() for p in d.iterdir() if p.is_file())


def test_metadata_yaml_in_the_catalog_format():
    from kpt_fn import yamlio

    meta = yamlio.load((kit.ROOT / "metadata.yaml").read_text())
    assert set(meta) == {"image", "description", "tags", "sourceURL", "examplePackageURLs", "license"}
    assert ex.IMAGE_IN_EXAMPLES.startswith(meta["image"] + ":")
    assert set(meta["tags"]) <= {"mutator", "generator", "validator"}
    linked = [u.rsplit("/examples/", 1)[1] for u in meta["examplePackageURLs"]]
    assert sorted(linked) == ex.NAMES
    assert all(u.startswith(meta["sourceURL"] + "/") for u in meta["examplePackageURLs"])
    import tomllib

    assert meta["license"] == tomllib.loads((kit.ROOT / "pyproject.toml").read_text())["project"]["license"]["text"]
