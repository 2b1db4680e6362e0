"""`kubectl kustomize --enable-alpha-plugins` with the function image as a container KRM function
(route B), in the generator and the transformer form; kubectl runs `docker run`, our shim runs it
with podman. Output must equal the exec route's (route A, the legacy exec plugin)."""

from __future__ import annotations

import pytest

from clients import kit

pytestmark = pytest.mark.container

# What kubectl asks docker to run: no network, as nobody, structured results on stderr.
DOCKER_RUN = (
    "docker run --rm -i -a STDIN -a STDOUT -a STDERR --network none --user nobody "
    "--security-opt=no-new-privileges -e LOG_TO_STDERR=true -e STRUCTURED_RESULTS=true {}"
)


@pytest.fixture
def env_a(tmp_path, fn):
    return kit.client_env(tmp_path, KUSTOMIZE_PLUGIN_HOME=kit.PLUGIN_HOME, EXPAND_TRAINJOBS=fn)


@pytest.fixture
def logged(cenv, tmp_path):
    log = tmp_path / "docker.log"
    return log, {**cenv, "DOCKER_SHIM_LOG": str(log)}


def build(kubectl, app, env):
    return kit.run([kubectl, "kustomize", "--enable-alpha-plugins", app], env=env, timeout=120)


def test_transformer_equals_exec_route(kubectl, image, tmp_path, logged, env_a):
    log, env = logged
    app = kit.make_app(tmp_path, "app", "transformers", function={"container": {"image": image}})
    r = build(kubectl, app, env).ok()
    assert log.read_text().splitlines() == [DOCKER_RUN.format(image)]
    kit.assert_local_config_dropped(r.stdout, "kubectl kustomize, container function")
    kit.assert_demo_objects(kit.normalize(r.stdout))
    by_exec = build(kubectl, kit.make_app(tmp_path, "app-a", "transformers"), env_a).ok()
    assert kit.normalize(r.stdout) == kit.normalize(by_exec.stdout)
    assert build(kubectl, app, env).ok().stdout == r.stdout


def test_generator_equals_exec_route(kubectl, image, tmp_path, logged, env_a):
    log, env = logged
    extra = {"namespace": "ns1"}
    app = kit.generator_app(tmp_path, "app", function={"container": {"image": image}}, extra=extra)
    r = build(kubectl, app, env).ok()
    assert log.read_text().splitlines() == [DOCKER_RUN.format(image)]
    kit.assert_demo_objects(kit.normalize(r.stdout), namespace="ns1")
    by_exec = build(kubectl, kit.generator_app(tmp_path, "app-a", extra=extra), env_a).ok()
    assert r.stdout == by_exec.stdout


def test_generator_warns_that_it_cannot_see_the_kustomization(kubectl, image, tmp_path, cenv):
    # A container sees no kustomization: with a namePrefix there, the references inside the output
    # would not follow the renamed objects. The function says so (docs/kustomize.md, Limits).
    app = kit.generator_app(tmp_path, "app", function={"container": {"image": image}}, extra={"namePrefix": "p-"})
    r = build(kubectl, app, cenv).ok()
    assert "finds no kustomization file in its working directory" in r.stderr
    assert "list the function under transformers: to be safe" in r.stderr


def test_error_result_fails_the_build(kubectl, image, tmp_path, cenv):
    # The exit code must survive the container engine: a failing function is a failing build.
    app = kit.make_app(
        tmp_path, "app", "transformers", files=("trainjobs.yaml", "settings.yaml"), source=kit.CLIENT_FIXTURES / "bad",
        function={"container": {"image": image}},
    )
    r = build(kubectl, app, cenv).failed()
    assert r.stdout == ""
    assert "couldn't execute function: exit status 1" in r.stderr
    # The TrainJob admission webhook's error for a missing runtime (Trainer v2.3.0 clustertrainingruntime.go ValidateObjects).
    assert ('ClusterTrainingRuntime.trainer.kubeflow.org "no-such-runtime" not found: specified clusterTrainingRuntime must be '
            'created before the TrainJob is created') in r.stderr


def test_transformer_renamed_equals_exec_route(kubectl, image, tmp_path, cenv, env_a):
    # prefix, suffix and namespace (fixtures/kustomize/names): the references inside the output
    # (env, hostfile, volumes, PodGroups) hold through the image as through route A.
    from clients.test_kustomize import RENAMES, assert_renamed, names_app

    expected = kit.normalize(build(kubectl, names_app(tmp_path, "ref", "transformers", RENAMES), env_a).ok().stdout)
    assert_renamed(expected, "p-", "-s", "ns1")
    app = names_app(tmp_path, "app", "transformers", RENAMES, function={"container": {"image": image}})
    objs = kit.normalize(build(kubectl, app, cenv).ok().stdout)
    kit.assert_same_objects(objs, expected, "kubectl kustomize container, transformer, prefix/suffix/namespace")
