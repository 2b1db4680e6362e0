"""kpt_fn.review.guardrails: what a change does to the checks themselves, apart from the rendered
objects. Hostile changes (a limit raised, strict off, profile or release switched, a shared runtime or
admission policy edited, a waiver added) are each named; valid, unusual controls (a comment or key order
in the config, an app's own runtime, a waiver unchanged, a TrainJob edit) name nothing."""

from __future__ import annotations

from types import SimpleNamespace

from kpt_fn.config import FunctionConfig
from kpt_fn.function import Rendered
from kpt_fn.review import guardrails

WAIVE = "waive.expand-trainjobs.kpt.dev/max-nodes"


def _tj(name="llm", ns="team-b", waivers=None):
    meta = {"name": name, "namespace": ns}
    if waivers:
        meta["annotations"] = dict(waivers)
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": meta, "spec": {}}


def _runtime(kind="ClusterTrainingRuntime", name="torch", image="a", file=None, ns=None):
    meta = {"name": name, **({"namespace": ns} if ns else {})}
    if file:
        meta["annotations"] = {"config.kubernetes.io/path": file, "internal.config.kubernetes.io/path": file}
    return {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": kind, "metadata": meta, "spec": {"image": image}}


def _side(config=None, trainjobs=(), items=(), runtime=None):
    rendered = []
    for tj in trainjobs:
        r = Rendered(0, tj)
        r.runtime, r.namespace = runtime, tj["metadata"].get("namespace")
        rendered.append(r)
    return SimpleNamespace(config=config or FunctionConfig(), rendered=rendered, items=list(items))


def test_every_guardrail_option_is_named_old_to_new():
    old = FunctionConfig(policy=(("maxGPUsPerTrainJob", 4), ("forbidLatestTag", True)), strict=True,
                         runtimeDirs=("../../platform/runtimes",))
    new = FunctionConfig(policy=(("maxGPUsPerTrainJob", 16),), strict=False, profile="kueue", trainerVersion="v2.2.1",
                         runtimeDirs=("runtimes",), policyDirs=("../../platform/policies",))
    got = {o["option"]: (o["old"], o["new"]) for o in guardrails.options(old, new)}
    assert got == {"policy.maxGPUsPerTrainJob": (4, 16), "policy.forbidLatestTag": (True, None), "strict": (True, False),
                   "profile": ("controller", "kueue"), "trainerVersion": ("v2.3.0", "v2.2.1"),
                   "runtimeDirs": (["../../platform/runtimes"], ["runtimes"]), "policyDirs": ([], ["../../platform/policies"])}


def test_options_that_are_no_guardrail_and_equal_ones_say_nothing():
    same = (("allowedImagePrefixes", ("registry.example.com/",)), ("maxNodes", 2))
    old = FunctionConfig(policy=same, output="generated", jobSetNames="trainJob")
    new = FunctionConfig(policy=tuple(reversed(same)), output="all", jobSetNames="contentHash")
    assert guardrails.options(old, new) == []


def test_a_shared_runtime_is_a_guardrail_an_apps_own_is_not():
    shared_a = _runtime(file="../../platform/runtimes/torch.yaml", image="a")
    shared_b = _runtime(file="../../platform/runtimes/torch.yaml", image="b")
    own_a = _runtime("TrainingRuntime", "mine", "a", file="runtime.yaml", ns="team-b")
    own_b = _runtime("TrainingRuntime", "mine", "b", file="runtime.yaml", ns="team-b")
    old = _side(trainjobs=[_tj()], runtime=shared_a, items=[own_a])
    new = _side(trainjobs=[_tj()], runtime=shared_b, items=[own_b])
    assert guardrails.runtimes(old, new, "/r/apps/b", "/r/apps/b") == [
        {"runtime": "ClusterTrainingRuntime torch", "change": "changed", "file": "../../platform/runtimes/torch.yaml"}]
    # a ClusterTrainingRuntime is every namespace's, wherever its file is; the built-in catalog's has no file
    ctr_a, ctr_b = _runtime(name="c", file="c.yaml", image="a"), _runtime(name="c", file="c.yaml", image="b")
    assert [r["runtime"] for r in guardrails.runtimes(_side(items=[ctr_a]), _side(items=[ctr_b]))] == ["ClusterTrainingRuntime c"]
    builtin_a, builtin_b = _runtime(name="torch-distributed", image="a"), _runtime(name="torch-distributed", image="b")
    assert guardrails.runtimes(_side(trainjobs=[_tj()], runtime=builtin_a), _side(trainjobs=[_tj()], runtime=builtin_b)) == []


def test_waivers_added_changed_and_removed_are_named_with_their_reason():
    old = _side(trainjobs=[_tj("a", waivers={WAIVE: "PLAT-1"}), _tj("b", waivers={WAIVE: "PLAT-2"}), _tj("c")])
    new = _side(trainjobs=[_tj("a", waivers={WAIVE: "PLAT-1"}), _tj("b", waivers={WAIVE: "PLAT-3"}),
                           _tj("c", waivers={WAIVE: "@platform <img src=x>"}), _tj("d")])
    got = guardrails.waivers(old, new)
    assert [(w["trainJob"], w["change"], w["old"], w["new"]) for w in got] == [
        ("team-b/b", "changed", "PLAT-2", "PLAT-3"), ("team-b/c", "added", None, "@platform <img src=x>")]
    assert got[0]["rule"] == "policy/max-nodes" and got[0]["annotation"] == WAIVE
    assert [w["change"] for w in guardrails.waivers(new, old)] == ["changed", "removed"]
    # a new TrainJob that carries a waiver: added
    assert [w["trainJob"] for w in guardrails.waivers(_side(), _side(trainjobs=[_tj("n", waivers={WAIVE: "r"})]))] == ["team-b/n"]


def test_policy_dirs_objects_added_changed_and_removed(tmp_path):
    vap = "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: %s}\nspec: {failurePolicy: %s}\n"
    for side, files in (("old", {"p/a.yaml": vap % ("gpus", "Fail"), "p/b.yaml": vap % ("gone", "Fail")}),
                        ("new", {"p/a.yaml": vap % ("gpus", "Ignore"), "p/sub/c.yaml": vap % ("new", "Fail"),
                                 "p/.hidden.yaml": vap % ("hidden", "Fail"), "p/notes.txt": "x"})):
        for name, text in files.items():
            path = tmp_path / side / "app" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    cfg = FunctionConfig(policyDirs=("p",))
    got = guardrails.policies(_side(cfg), _side(cfg), str(tmp_path / "old/app"), str(tmp_path / "new/app"))
    assert got == [{"object": "ValidatingAdmissionPolicy gone", "change": "removed"},
                   {"object": "ValidatingAdmissionPolicy gpus", "change": "changed"},
                   {"object": "ValidatingAdmissionPolicy new", "change": "added"}]
    assert guardrails.policies(_side(cfg), _side(cfg), str(tmp_path / "old/app"), str(tmp_path / "old/app")) == []


def test_count_and_nothing_changed():
    quiet = guardrails.changed(_side(trainjobs=[_tj()]), _side(trainjobs=[_tj()]))
    assert quiet == {"options": [], "runtimes": [], "policies": [], "waivers": []}
    assert guardrails.count({"guardrails": quiet}) == 0 and guardrails.count({}) == 0
    loud = guardrails.changed(_side(FunctionConfig(strict=True)), _side())
    assert guardrails.count({"guardrails": loud}) == 1
