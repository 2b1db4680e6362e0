"""kpt_fn.kustomize_names: what a kustomize generator's kustomization does to the names it emits."""

from __future__ import annotations

from kpt_fn import function, kustomize_names, output
from kpt_fn.sources import load_file
from kpt_fn.yamlio import DEFAULT_LIMITS, dump, load_all
from support.door import run_with

API = "trainer.kubeflow.org/v1alpha1"


def load(path):
    return load_file(path, DEFAULT_LIMITS)


def write(directory, doc, name="kustomization.yaml"):
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text(dump(doc))


def test_no_kustomization_is_a_warning_and_no_renames(tmp_path):
    renames, (p,) = kustomize_names.generator_renames(str(tmp_path), load)
    assert renames is None and p.severity == "warning" and "transformers:" in p.message


def test_a_kustomization_without_renames_gives_none(tmp_path):
    write(tmp_path, {"resources": ["a.yaml"]})
    assert kustomize_names.generator_renames(str(tmp_path), load) == (None, [])


def test_components_rename_before_the_kustomization(tmp_path, monkeypatch):
    # kustomize runs generators, then each component's transformers, then the kustomization's own.
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "c1", {"kind": "Component", "namePrefix": "c1-", "nameSuffix": "-c1", "namespace": "from-c1"})
    write(tmp_path / "c2", {"kind": "Component", "namePrefix": "c2-"}, "Kustomization")
    write(tmp_path, {"components": ["c1", "c2", "remote?ref=x"], "namePrefix": "p-", "nameSuffix": "-s"}, "kustomization.yml")
    renames, (p,) = kustomize_names.generator_renames(str(tmp_path), load)
    assert (renames.path, renames.prefix, renames.suffix, renames.namespace) == ("kustomization.yml", "p-c2-c1-", "-c1-s", "from-c1")
    assert p.severity == "warning" and "remote?ref=x" in p.message


def test_restore_and_check():
    r = kustomize_names.Renames("kustomization.yaml", "p-", "-s", "ns1")
    tj = {"apiVersion": API, "kind": "TrainJob", "metadata": {"name": "job", "namespace": "a"}}
    assert r.trainjob(tj)["metadata"] == {"name": "p-job-s", "namespace": "ns1"}
    objs = [{"kind": "JobSet", "metadata": {"name": "p-job-s"}}, {"kind": "ConfigMap", "metadata": {"name": "p-job-s-mpi-hostfile"}}]
    (p,) = r.check(objs, tj)
    assert p.path == "metadata.name" and 'sets namePrefix "p-" and nameSuffix "-s"' in p.message
    assert r.restore(objs[:1]) == [{"kind": "JobSet", "metadata": {"name": "job"}}]
    assert objs[0]["metadata"]["name"] == "p-job-s"  # not mutated


def test_krm_generator_call_is_recognised():
    fc = {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "metadata": {"name": "x"}}
    item = {**fc, "metadata": {"name": "x", "annotations": {"config.k8s.io/id": "1"}}}
    assert kustomize_names.is_kustomize_generator_call([item], fc)
    from_kpt_package = {**fc, "metadata": {"name": "x", "annotations": {"internal.config.kubernetes.io/path": "fn.yaml"}}}
    assert not kustomize_names.is_kustomize_generator_call([from_kpt_package], fc)
    assert not kustomize_names.is_kustomize_generator_call([item, item], fc)
    assert not kustomize_names.is_kustomize_generator_call([item], None)


def test_generator_renders_under_final_names_and_emits_unprefixed(tmp_path):
    write(tmp_path, {"namePrefix": "p-", "namespace": "ns1"})
    spec = {"runtimeRef": {"name": "torch-distributed"}, "trainer": {"numNodes": 2}}
    tj = {"apiVersion": API, "kind": "TrainJob", "metadata": {"name": "job", "namespace": "a"}, "spec": spec}
    fc = {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "metadata": {"name": "x"}, "spec": {"trainJobs": [tj]}}
    out = run_with([], fc, function.Door(base_dir=str(tmp_path), kustomization_root=str(tmp_path)))
    assert out.exit_code == 0, out.results
    (js,) = [o for o in out.items if o.get("kind") == "JobSet"]
    # The marker names the TrainJob as kustomize will name it (output.MARKER).
    assert js["metadata"] == {"name": "job", "namespace": "ns1", "annotations": {output.MARKER: "p-job"}}
    env = {e["name"]: e.get("value") for e in js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["PET_MASTER_ADDR"] == "p-job-node-0-0.p-job"
    # Without a kustomization root (kpt, transformer form) nothing is renamed.
    out = run_with([], fc, function.Door(base_dir=str(tmp_path)))
    (js,) = [o for o in out.items if o.get("kind") == "JobSet"]
    assert js["metadata"] == {"name": "job", "namespace": "a", "annotations": {output.MARKER: "job"}}


def test_container_generator_without_kustomization_warns(tmp_path):
    from kpt_fn.cli import krm

    tj = {"apiVersion": API, "kind": "TrainJob", "metadata": {"name": "job", "namespace": "a"}, "spec": {"runtimeRef": {"name": "torch-distributed"}}}
    fc = {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "metadata": {"name": "x"}, "spec": {"trainJobs": [tj]}}
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [fc], "functionConfig": fc}
    out, _, code = krm.process(dump(rl).encode(), base_dir=str(tmp_path))
    (doc,) = load_all(out if isinstance(out, str) else "".join(out))
    assert code == 0
    assert any(r.get("severity") == "warning" and "finds no kustomization file" in r["message"] for r in doc["results"])
