"""kpt_fn.resolve: which runtime a TrainJob gets, searched in items, runtime directories, catalog."""

from __future__ import annotations

import pytest

from kpt_fn import upstream
from kpt_fn import resolve
from kpt_fn.sources import Reader
from kpt_fn.yamlio import DEFAULT_LIMITS, dump_all

API = "trainer.kubeflow.org/v1alpha1"
PATH = "internal.config.kubernetes.io/path"
# Upstream's texts, verbatim (pkg/runtime/core/{clustertrainingruntime,trainingruntime}.go, v2.3.0), then
# the API server's NotFound error they wrap.
# The TrainJob admission webhook's error (Trainer v2.3.0 pkg/runtime/core/*trainingruntime.go ValidateObjects).
CTR_NOT_FOUND = "ClusterTrainingRuntime.trainer.kubeflow.org"
CTR_NOT_FOUND_DETAIL = "not found: specified clusterTrainingRuntime must be created before the TrainJob is created"
TR_NOT_FOUND = "TrainingRuntime.trainer.kubeflow.org"
TR_NOT_FOUND_DETAIL = "not found: specified trainingRuntime must be created before the TrainJob is created"


def runtime(kind, name, ns=None, marker="items", path=None):
    md = {"name": name}
    if ns:
        md["namespace"] = ns
    if path:
        md["annotations"] = {PATH: path}
    return {"apiVersion": API, "kind": kind, "metadata": md, "spec": {"marker": marker}}


def ctr(name, **kw):
    return runtime("ClusterTrainingRuntime", name, **kw)


def tr(name, ns=None, **kw):
    return runtime("TrainingRuntime", name, ns, **kw)


def trainjob(ref, ns="team-a", **ref_fields):
    md = {"name": "job"}
    if ns:
        md["namespace"] = ns
    return {"apiVersion": API, "kind": "TrainJob", "metadata": md, "spec": {"runtimeRef": {"name": ref, **ref_fields}}}


def find(tj, items=(), dirs=(), catalog=True, default_ns=""):
    index = resolve.build_index(list(items), list(dirs), default_ns, catalog, upstream.bundle("v2.3.0"))
    return resolve.resolve(tj, index, default_ns), index


def test_items_win_over_directories_and_the_catalog():
    (found, label, problems), index = find(
        trainjob("torch-distributed"), [ctr("torch-distributed", marker="items")], [("rt", [ctr("torch-distributed", marker="dir")])]
    )
    assert (found["spec"], label, problems) == ({"marker": "items"}, resolve.ITEMS, [])
    # A different definition of the same runtime in the package and in a runtime directory is an error
    # the package's would silently replace the platform's.
    (e,) = index.problems
    assert e.severity == "error" and "shadows a different definition of the same runtime in runtime directory rt" in e.message


def test_two_runtime_directories_defining_one_runtime_differently_is_an_error():
    dirs = [("first", [ctr("torch-distributed", marker="first")]), ("second", [ctr("torch-distributed", marker="second")])]
    _, index = find(trainjob("torch-distributed"), [], dirs)
    (e,) = index.problems
    assert e.severity == "error" and "from runtime directory first shadows" in e.message and "runtime directory second" in e.message
    # The same definition twice is no conflict; replacing a built-in runtime is the package's right.
    same = [("first", [ctr("torch-distributed", marker="x")]), ("second", [ctr("torch-distributed", marker="x")])]
    assert find(trainjob("torch-distributed"), [ctr("torch-distributed", marker="mine")], same[:1])[1].problems
    assert find(trainjob("torch-distributed"), [], same)[1].problems == []
    assert find(trainjob("torch-distributed"), [ctr("torch-distributed", marker="mine")])[1].problems == []


def test_a_hand_written_previous_names_annotation_cannot_replace_a_platform_runtime():
    # An app-local runtime claims to be "torch-distributed" renamed: the platform's runtime directory has
    # the real one. Nothing kustomize records explains the rename: an error, no runtime.
    evil = renamed(ctr("evil", marker="evil"), "torch-distributed")
    platform = [("platform", [ctr("torch-distributed", marker="platform")])]
    (found, label, (p,)), index = find(trainjob("torch-distributed"), [evil], platform)
    assert found is None and p.severity == "error" and index.problems == []
    assert "previousNames annotation, which no kustomize namePrefix or nameSuffix explains" in p.message
    assert 'ClusterTrainingRuntime "evil"' in p.message or "evil" in p.message
    # With nothing of that name to replace, the rename is the package's own business (a patch may rename).
    (found, _, problems), _ = find(trainjob("torch-distributed"), [evil], catalog=True)
    assert found is evil and problems == []


def test_a_kustomize_rename_that_shadows_a_platform_runtime_is_a_warning_naming_both():
    mine = renamed(ctr("team-torch-distributed", marker="mine", path="rt.yaml"), "torch-distributed", "team-")
    platform = [("platform", [ctr("torch-distributed", marker="platform", path="platform/rt.yaml")])]
    (found, _, (w,)), _ = find(renamed(trainjob("torch-distributed"), "job", "team-"), [mine], platform)
    assert found is mine and w.severity == "warning"
    assert "team-torch-distributed" in w.message and "platform/rt.yaml" in w.message and "rt.yaml" in w.message


def test_rename_explained_by_prefixes_and_suffixes():
    from kpt_fn import kustomize_names as kn

    assert kn.rename_explained(renamed(tr("p-torch-s", "ns1"), "torch,torch,p-torch", "p-", "-s"), "torch")
    assert kn.rename_explained(renamed(tr("p-torch-s", "ns1"), "torch,torch,p-torch", "p-", "-s"), "p-torch")
    assert kn.rename_explained(renamed(ctr("b-a-x"), "x,a-x", "a-,b-"), "x")
    assert not kn.rename_explained(renamed(ctr("evil"), "torch"), "torch")
    assert not kn.rename_explained(renamed(ctr("p-evil"), "torch", "p-"), "torch")


def test_directories_win_over_the_catalog_in_order():
    dirs = [("first", [ctr("torch-distributed", marker="first")]), ("second", [ctr("torch-distributed", marker="second")])]
    (found, label, _), _ = find(trainjob("torch-distributed"), [], dirs)
    assert found["spec"] == {"marker": "first"} and label == "runtime directory first"


def test_catalog_is_last_and_can_be_switched_off():
    (found, label, problems), index = find(trainjob("torch-distributed"))
    assert label == resolve.CATALOG and found["metadata"]["name"] == "torch-distributed" and problems == []
    assert index.problems == []  # the catalog shadowing nothing is not a warning
    (found, _, (p,)), _ = find(trainjob("torch-distributed"), catalog=False)
    assert found is None
    assert p.message == (
        f'{CTR_NOT_FOUND} "torch-distributed" {CTR_NOT_FOUND_DETAIL}; no ClusterTrainingRuntime "torch-distributed" in the ResourceList items'
    )


def test_builtin_catalog_holds_the_v2_3_0_runtimes():
    from kpt_fn import upstream

    names = {r["metadata"]["name"] for r in upstream.bundle("v2.3.0").catalog()}
    assert {"torch-distributed", "deepspeed-distributed", "jax-distributed", "mlx-distributed", "xgboost-distributed"} <= names
    assert len(names) == 9
    assert all(r["kind"] == "ClusterTrainingRuntime" for r in upstream.bundle("v2.3.0").catalog())


def test_missing_runtime_names_every_searched_source():
    (found, _, (p,)), _ = find(trainjob("nope"), [], [("rt", [])])
    # The ClusterTrainingRuntime webhook writes its path `spec.RuntimeRef` (clustertrainingruntime.go ValidateObjects).
    assert found is None and p.path == "spec.RuntimeRef" and p.severity == "error"
    assert p.message == (
        f'{CTR_NOT_FOUND} "nope" {CTR_NOT_FOUND_DETAIL}; no ClusterTrainingRuntime "nope" in the ResourceList items, runtime directory rt, the built-in catalog'
    )


def test_training_runtime_serves_its_own_namespace_only():
    rt = tr("local", "team-a")
    (found, _, _), _ = find(trainjob("local", kind="TrainingRuntime"), [rt])
    assert found is rt
    (found, _, (p,)), _ = find(trainjob("local", ns="team-b", kind="TrainingRuntime"), [rt])
    assert found is None
    assert p.message == (
        f'{TR_NOT_FOUND} "local" {TR_NOT_FOUND_DETAIL}; no TrainingRuntime "local" in namespace "team-b" in the ResourceList items, '
        'the built-in catalog; a TrainingRuntime of that name exists in namespace "team-a", but a TrainingRuntime is only '
        "used by TrainJobs in its own namespace"
    )


def test_default_namespace_applies_to_runtimes_and_trainjobs_without_one():
    rt = tr("local")
    (found, _, _), _ = find(trainjob("local", ns=None, kind="TrainingRuntime"), [rt], default_ns="ml")
    assert found is rt
    (found, _, _), _ = find(trainjob("local", ns="other", kind="TrainingRuntime"), [rt], default_ns="ml")
    assert found is None


def test_cluster_training_runtime_ignores_namespaces():
    rt = ctr("shared", ns="somewhere")
    (found, _, _), _ = find(trainjob("shared", ns="team-z"), [rt])
    assert found is rt


@pytest.mark.parametrize(
    "ref_fields, key",
    [({"kind": "Frobnicator"}, "Frobnicator.trainer.kubeflow.org"), ({"apiGroup": "example.com"}, "ClusterTrainingRuntime.example.com"), ({"apiGroup": ""}, "ClusterTrainingRuntime")],
)
def test_unsupported_runtime_reference(ref_fields, key):
    tj = trainjob("x", **ref_fields)
    assert resolve.registry_key(tj, upstream.bundle("v2.3.0")) == key
    (found, _, (p,)), _ = find(tj)
    assert found is None and p.message.startswith(f"unsupported runtime: {key}; ") and p.path == "spec.runtimeRef"


def test_registry_key_defaults():
    assert resolve.registry_key({"spec": {"runtimeRef": {"name": "x"}}}, upstream.bundle("v2.3.0")) == "ClusterTrainingRuntime.trainer.kubeflow.org"
    assert resolve.registry_key({"spec": {"runtimeRef": {"name": "x", "kind": "TrainingRuntime"}}}, upstream.bundle("v2.3.0")) == "TrainingRuntime.trainer.kubeflow.org"


def test_duplicates_in_one_source_are_errors_naming_the_first_file():
    first, second = ctr("dup", path="a.yaml"), ctr("dup", path="b.yaml", marker="2")
    (found, _, _), index = find(trainjob("dup"), [first, second])
    assert found is first
    (p,) = index.problems
    assert p.severity == "error" and p.subject is second
    assert p.message == "ClusterTrainingRuntime dup is defined more than once in the ResourceList items (first in a.yaml); the first definition is used"


def test_read_runtime_dirs(tmp_path):
    d = tmp_path / "rt"
    (d / "sub").mkdir(parents=True)
    (d / ".hidden").mkdir()
    (d / "a.yaml").write_text(dump_all([ctr("a"), {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}]))
    (d / "sub" / "b.yml").write_text(dump_all([tr("b", "team-a")]))
    (d / ".hidden" / "c.yaml").write_text(dump_all([ctr("c")]))
    (d / "notes.txt").write_text("not yaml: [")
    (d / "broken.yaml").write_text("a: [\n")
    out, problems = resolve.read_runtime_dirs(["rt", "missing"], Reader(str(tmp_path)), DEFAULT_LIMITS)
    ((label, found),) = out
    assert label == "rt"
    assert [(r["metadata"]["name"], r["metadata"]["annotations"][PATH]) for r in found] == [("a", "rt/a.yaml"), ("b", "rt/sub/b.yml")]
    messages = [p.message for p in problems]
    assert any("broken.yaml" in m for m in messages)
    assert f"runtime directory 'missing' not found: tried {tmp_path}/missing (relative to the working directory {tmp_path})" in messages


def test_resolve_does_not_import_the_engine():
    # Resolution sits below the engine: both read the registry key from kpt_fn.registry.
    import subprocess
    import sys

    code = "import sys, kpt_fn.resolve; print(sorted(m for m in sys.modules if m.startswith('kpt_fn.engine')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_registry_key_is_the_engines():
    from kpt_fn import engine, registry
    from kpt_fn import upstream

    assert engine.registry_key is registry.registry_key and engine.SUPPORTED_RUNTIMES is registry.SUPPORTED_RUNTIMES
    assert upstream.bundle("v2.3.0").runtime_ref_defaults() == {"apiGroup": registry.API_GROUP, "kind": registry.CLUSTER_TRAINING_RUNTIME}
    assert registry.registry_key({"spec": {"runtimeRef": {"name": "x", "kind": None, "apiGroup": ""}}}, upstream.bundle("v2.3.0")) == "ClusterTrainingRuntime"
    assert registry.registry_key({"spec": []}, upstream.bundle("v2.3.0")) == "ClusterTrainingRuntime.trainer.kubeflow.org"


# --- runtimes renamed by kustomize (transformer form) ----------------------------------------------

PREVIOUS = "internal.config.kubernetes.io/previousNames"
PREFIXES = "internal.config.kubernetes.io/prefixes"
SUFFIXES = "internal.config.kubernetes.io/suffixes"


def renamed(obj, previous, prefixes="", suffixes=""):
    ann = {PREVIOUS: previous, **({PREFIXES: prefixes} if prefixes else {}), **({SUFFIXES: suffixes} if suffixes else {})}
    obj["metadata"]["annotations"] = {**obj["metadata"].get("annotations", {}), **ann}
    return obj


def test_runtime_renamed_by_kustomize_is_found_by_its_previous_name():
    # What kustomize hands a transformer after `namePrefix: p-`, `nameSuffix: -s`, `namespace: ns1`.
    rt = renamed(tr("p-torch-s", "ns1"), "torch,torch,p-torch", "p-", "-s")
    tj = renamed(trainjob("torch", ns="ns1", kind="TrainingRuntime"), "job,job,p-job", "p-", "-s")
    (found, label, problems), _ = find(tj, [rt], catalog=False)
    assert (found, label, problems) == (rt, resolve.ITEMS, [])
    # An intermediate name is a previous name too (a base's prefix seen from an overlay).
    (found, _, _), _ = find(renamed(trainjob("p-torch", ns="ns1", kind="TrainingRuntime"), "job"), [rt], catalog=False)
    assert found is rt


def test_exact_name_wins_over_a_previous_name_and_items_over_the_catalog():
    exact, moved = ctr("torch-distributed", marker="exact"), renamed(ctr("p-torch-distributed"), "torch-distributed", "p-")
    (found, _, _), _ = find(trainjob("torch-distributed"), [moved, exact])
    assert found is exact
    (found, label, _), _ = find(trainjob("torch-distributed"), [moved])
    assert found is moved and label == resolve.ITEMS


def test_renamed_runtimes_are_told_apart_by_prefixes_as_kustomize_does():
    a = renamed(ctr("a-rt"), "rt", "a-")
    b = renamed(ctr("b-rt"), "rt", "b-")
    (found, _, _), _ = find(renamed(trainjob("rt"), "job", "b-"), [a, b], catalog=False)
    assert found is b
    (found, _, (p,)), _ = find(renamed(trainjob("rt"), "job", "c-"), [a, b], catalog=False)
    assert found is None and p.path == "spec.runtimeRef.name" and '"a-rt", "b-rt"' in p.message


def test_a_renamed_training_runtime_serves_its_current_namespace_only():
    rt = renamed(tr("p-torch", "ns1"), "torch", "p-")
    (found, _, (p,)), _ = find(trainjob("torch", ns="team-a", kind="TrainingRuntime"), [rt], catalog=False)
    assert found is None and "not found" in p.message


# --- typical mistakes ---------------------------------------------------------------------------------


def test_misspelt_runtime_name_gets_did_you_mean():
    (_, _, (p,)), _ = find(trainjob("torch-distributd"))
    assert p.message.startswith(f'{CTR_NOT_FOUND} "torch-distributd" {CTR_NOT_FOUND_DETAIL}; ')
    assert p.message.endswith('; did you mean "torch-distributed"?')
    (_, _, (p,)), _ = find(trainjob("deepspeed"))
    assert p.message.endswith('; did you mean "deepspeed-distributed"?')
    # A TrainingRuntime: only names of its own namespace are offered.
    (_, _, (p,)), _ = find(trainjob("mpi-gnag", kind="TrainingRuntime"), [tr("mpi-gang", "team-a"), tr("mpi-gang2", "team-b")], catalog=False)
    assert p.message.endswith('; did you mean "mpi-gang"?')


def test_a_runtime_of_the_other_kind_is_named():
    (_, _, (p,)), _ = find(trainjob("local"), [tr("local", "team-a")])
    assert p.message.endswith('; a TrainingRuntime "local" in namespace "team-a" exists: set spec.runtimeRef.kind to TrainingRuntime')
    (_, _, (p,)), _ = find(trainjob("torch-distributed", kind="TrainingRuntime"))
    assert p.message.startswith(f'{TR_NOT_FOUND} "torch-distributed" {TR_NOT_FOUND_DETAIL}; ')
    assert p.message.endswith('; a ClusterTrainingRuntime "torch-distributed" exists: set spec.runtimeRef.kind to ClusterTrainingRuntime')


def test_a_training_runtime_in_another_namespace_is_named_with_its_file():
    (_, _, (p,)), _ = find(trainjob("local", ns="team-b", kind="TrainingRuntime"), [tr("local", "team-a", path="rt/local.yaml")])
    assert 'exists in namespace "team-a" (rt/local.yaml), but a TrainingRuntime is only used by TrainJobs in its own namespace' in p.message


@pytest.mark.parametrize(
    "ref_fields, hint",
    [
        ({"kind": "TrainingRunTime"}, 'kind "TrainingRunTime": did you mean "TrainingRuntime"?'),
        ({"kind": "ClusterTrainingRuntimes"}, 'kind "ClusterTrainingRuntimes": did you mean "ClusterTrainingRuntime"?'),
        ({"apiGroup": "trainer.kubeflow.com"}, 'apiGroup "trainer.kubeflow.com": did you mean "trainer.kubeflow.org"?'),
    ],
)
def test_misspelt_runtime_kind_or_group_gets_did_you_mean(ref_fields, hint):
    (_, _, (p,)), _ = find(trainjob("x", **ref_fields))
    assert p.message.startswith("unsupported runtime: ")  # upstream's text (pkg/webhooks/trainjob_webhook.go)
    assert p.message.endswith(f"; {hint}")
