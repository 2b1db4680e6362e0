"""examples/ rendered through the image (the route each example is written for), compared with the
same checked-in `.expected/` as the exec route (tests/test_examples.py)."""

from __future__ import annotations

import pytest

import shipped_examples as ex
from container import engine
from container.sidecar import sidecar_generate

pytestmark = pytest.mark.container


@pytest.mark.parametrize("name", [n for n in ex.NAMES if ex.route(n) == "kpt-render"])
def test_kpt_package(name, kpt, image, cenv, tmp_path):
    pkg = ex.copy_example(name, tmp_path, image=image)
    ex.check(name, ex.run_kpt_render(kpt, pkg, cenv), may_update=False)


@pytest.mark.parametrize("name", [n for n in ex.NAMES if ex.route(n) == "kustomize"])
def test_kustomize(name, kubectl, image, cenv, tmp_path):
    app = ex.copy_example(name, tmp_path, image=image)
    ex.check(name, ex.run_kustomize(kubectl, app, cenv), may_update=False)


@pytest.mark.parametrize("name", [n for n in ex.NAMES if ex.route(n) == "argocd"])
def test_argocd_app(name, image, engine_ready, tmp_path):
    plugin_yaml = tmp_path / "plugin.yaml"
    plugin_yaml.write_text(engine.run(
        ["podman", "run", "--rm", "--network", "none", "--entrypoint", "cat", image, "/home/argocd/cmp-server/config/plugin.yaml"],
        env=engine_ready,
    ).stdout)
    work_root = tmp_path / "cmp"
    work_root.mkdir()
    request = ex.argocd_request(ex.EXAMPLES / name)
    result = sidecar_generate(image, engine_ready, plugin_yaml, ex.EXAMPLES / name, request.pop("app_path"), work_root, **request)
    ex.check(name, result.stdout + "\n", may_update=False)
