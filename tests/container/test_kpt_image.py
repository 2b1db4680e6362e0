"""kpt running the function image with podman (KPT_FN_RUNTIME=podman): `fn eval --image`, `fn render`
with an `image:` mutator and `fn doc --image`, each compared with the exec route."""

from __future__ import annotations

import pytest

from clients import kit
from kpt_fn import yamlio

pytestmark = pytest.mark.container

GENERATED = ("first-job.generated.yaml", "mnist.generated.yaml")


def test_eval_image_unwrap_equals_exec(kpt, image, demo_path, cenv, tmp_path, exec_unwrap):
    r = kit.run([kpt, "fn", "eval", demo_path, "--image", image, "-o", "unwrap"], cwd=tmp_path, env=cenv).ok()
    assert "[PASS]" in r.stderr
    assert r.stdout == exec_unwrap.stdout
    kit.assert_demo_objects(kit.normalize(r.stdout))


def test_eval_image_in_place_twice_equals_exec(kpt, fn, image, cenv, tmp_path):
    by_exec = kit.copy_tree(kit.DEMO, tmp_path / "exec")
    kit.run([kpt, "fn", "eval", by_exec, "--exec", fn], cwd=tmp_path, env=cenv).ok()
    pkg = kit.copy_tree(kit.DEMO, tmp_path / "image")
    kit.run([kpt, "fn", "eval", pkg, "--image", image], cwd=tmp_path, env=cenv).ok()
    first = kit.snapshot(pkg)
    assert set(GENERATED) <= set(first)
    assert first == kit.snapshot(by_exec)
    kit.run([kpt, "fn", "eval", pkg, "--image", image], cwd=tmp_path, env=cenv).ok()
    assert kit.snapshot(pkg) == first


def test_eval_image_error_result_fails_with_exit_1(kpt, image, cenv, tmp_path):
    bad = kit.copy_tree(kit.CLIENT_FIXTURES / "bad", tmp_path / "bad")
    before = kit.snapshot(bad)
    r = kit.run([kpt, "fn", "eval", bad, "--image", image], cwd=tmp_path, env=cenv)
    assert r.rc == 1, f"exit {r.rc}\n{r.stderr}"
    assert "[FAIL]" in r.stderr and "TrainJob/team-a/broken" in r.stderr
    assert "Exit code: 1" in r.stderr
    assert kit.snapshot(bad) == before


def _with_mutator(pkg, mutator: dict) -> None:
    kptfile = yamlio.load((pkg / "Kptfile").read_text())
    kptfile["pipeline"] = {"mutators": [{**mutator, "configPath": "expand-trainjobs.yaml"}]}
    (pkg / "Kptfile").write_text(yamlio.dump(kptfile))


def test_render_with_image_mutator_equals_exec(kpt, fn, image, cenv, tmp_path):
    by_exec = kit.copy_tree(kit.DEMO, tmp_path / "exec")
    _with_mutator(by_exec, {"exec": fn})
    kit.run([kpt, "fn", "render", by_exec, "--allow-exec"], cwd=tmp_path, env=cenv).ok()
    pkg = kit.copy_tree(kit.DEMO, tmp_path / "image")
    _with_mutator(pkg, {"image": image})
    r = kit.run([kpt, "fn", "render", pkg], cwd=tmp_path, env=cenv).ok()
    assert "Successfully executed 1 function(s) in 1 package(s)." in r.stdout + r.stderr
    first = kit.snapshot(pkg)
    expected = kit.snapshot(by_exec)
    assert set(GENERATED) <= set(first)
    assert {f: t for f, t in first.items() if f != "Kptfile"} == {f: t for f, t in expected.items() if f != "Kptfile"}
    kit.run([kpt, "fn", "render", pkg], cwd=tmp_path, env=cenv).ok()
    assert kit.snapshot(pkg) == first


def test_render_with_image_mutator_fails_on_error_result(kpt, image, cenv, tmp_path):
    bad = kit.copy_tree(kit.CLIENT_FIXTURES / "bad", tmp_path / "bad")
    (bad / "expand-trainjobs.yaml").write_text(yamlio.dump({
        "apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs",
        "metadata": {"name": "expand", "annotations": {"config.kubernetes.io/local-config": "true"}}, "spec": {},
    }))
    _with_mutator(bad, {"image": image})
    before = kit.snapshot(bad)
    r = kit.run([kpt, "fn", "render", bad], cwd=tmp_path, env=cenv)
    assert r.rc == 1, f"exit {r.rc}\n{r.stderr}"
    assert "no-such-runtime" in r.stdout + r.stderr
    assert kit.snapshot(bad) == before


def test_fn_doc_image(kpt, fn, image, cenv, tmp_path):
    r = kit.run([kpt, "fn", "doc", "--image", image], cwd=tmp_path, env=cenv).ok()
    assert r.stdout.startswith("Usage: expand-trainjobs")
    # kpt adds a line break of its own after the function's output.
    assert r.stdout.rstrip("\n") == kit.run([fn, "--help"], cwd=tmp_path, env=cenv).ok().stdout.rstrip("\n")


@pytest.fixture
def demo_path(tmp_path):
    return kit.copy_tree(kit.DEMO, tmp_path / "demo")
