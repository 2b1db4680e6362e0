"""examples/ through the image: each example the way kpt's function test runner runs it
(tests/support/kpt_runner.py), from a copy whose Kptfile mutator or kustomize config names the image built
here, compared with the same checked-in `.expected/diff.patch` as the exec route (tests/behaviour/test_examples.py);
the Argo CD example in the sidecar container. The legacy-plugin example has no image route.
"""

from __future__ import annotations

import pytest

from support import kpt_runner
from support import shipped_examples as ex
from container import engine
from container.sidecar import sidecar_generate

pytestmark = pytest.mark.container


@pytest.mark.parametrize("name", [n for n in ex.NAMES if ex.route(n) == "kpt" or ex.uses_image(n)])
def test_example_under_the_kpt_test_runner(name, kpt, image, cenv, tmp_path):
    case = ex.with_image(name, tmp_path / "examples", image)
    exec_sh = ex.EXAMPLES / name / ".expected" / "exec.sh"
    assert not exec_sh.exists() or "$checkout" not in exec_sh.read_text()  # runs from the copy
    kpt_runner.run_case(case, kpt, cenv)


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
    assert result.stdout + "\n" == ex.expected_output(name)
