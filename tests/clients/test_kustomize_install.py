"""`expand-trainjobs install-kustomize-plugin` then `kubectl kustomize --enable-alpha-plugins` on the shipped
legacy-plugin example: the wrapper a pip install writes is the route A of docs/clients.md, with and
without the function on PATH."""

from __future__ import annotations

import os
import shutil

import pytest

from clients import kit
from support import shipped_examples as ex

pytestmark = pytest.mark.clients


def _path_without_the_function() -> str:
    """A PATH that has kubectl's tools but not the venv holding expand-trainjobs."""
    return os.pathsep.join(d for d in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep)
                           if d and not os.path.isfile(os.path.join(d, "expand-trainjobs")))


def test_installed_wrapper_renders_the_example_without_the_venv_on_path(kubectl, fn, tmp_path):
    home = tmp_path / "plugins"
    env = kit.client_env(tmp_path, PATH=_path_without_the_function())
    done = kit.run([fn, "install-kustomize-plugin", "--dir", home], env=env).ok()
    assert done.stdout.strip() == str(home / "fn.kpt.dev/v1alpha1/expandtrainjobs/ExpandTrainJobs")
    app = kit.copy_tree(ex.EXAMPLES / "kustomize-legacy-plugin", tmp_path / "app")
    built = kit.run([kubectl, "kustomize", "--enable-alpha-plugins", app],
                    env={**env, "KUSTOMIZE_PLUGIN_HOME": str(home)}).ok()
    expected = kit.run([kubectl, "kustomize", "--enable-alpha-plugins", app],
                       env={**env, "KUSTOMIZE_PLUGIN_HOME": str(kit.PLUGIN_HOME), "EXPAND_TRAINJOBS": fn}).ok()
    assert built.stdout == expected.stdout and "kind: JobSet" in built.stdout


def test_default_directory_is_kustomizes(kubectl, fn, tmp_path):
    """Without --dir: $KUSTOMIZE_PLUGIN_HOME unset, $XDG_CONFIG_HOME/kustomize/plugin, where kubectl looks."""
    env = {k: v for k, v in kit.client_env(tmp_path).items() if k != "KUSTOMIZE_PLUGIN_HOME"}
    done = kit.run([fn, "install-kustomize-plugin"], env=env).ok()
    assert done.stdout.strip().startswith(env["XDG_CONFIG_HOME"] + "/kustomize/plugin/")
    app = kit.copy_tree(ex.EXAMPLES / "kustomize-legacy-plugin", tmp_path / "app")
    assert "kind: JobSet" in kit.run([kubectl, "kustomize", "--enable-alpha-plugins", app], env=env).ok().stdout


def test_a_missing_function_is_named_in_kubectls_error(kubectl, fn, tmp_path):
    # The installing executable is a copy that is then removed: nothing is left to run.
    venv_bin = tmp_path / "venv-gone" / "bin"
    venv_bin.mkdir(parents=True)
    copy = venv_bin / "expand-trainjobs"
    shutil.copy2(fn, copy)
    home = tmp_path / "plugins"
    env = kit.client_env(tmp_path, PATH=_path_without_the_function())
    kit.run([copy, "install-kustomize-plugin", "--dir", home], env=env).ok()
    shutil.rmtree(tmp_path / "venv-gone")
    app = kit.copy_tree(ex.EXAMPLES / "kustomize-legacy-plugin", tmp_path / "app")
    failed = kit.run([kubectl, "kustomize", "--enable-alpha-plugins", app],
                     env={**env, "KUSTOMIZE_PLUGIN_HOME": str(home)}).failed()
    assert "expand-trainjobs is not on PATH" in failed.stderr and "is gone" in failed.stderr
    assert "pip install" in failed.stderr
