"""kpt_fn.function: the function as a filter: items and a functionConfig in, output items and results
out, every input item kept (the campaigns across clients are in tests/behaviour/)."""

from __future__ import annotations

import copy

import pytest

from kpt_fn.cli import stderr
from kpt_fn import config, function, yamlio
from kpt_fn.problems import ERROR, WARNING
from support.door import run_with

LOCAL = {"config.kubernetes.io/local-config": "true"}
TJ = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
      "metadata": {"name": "tj", "namespace": "ns", "annotations": LOCAL},
      "spec": {"runtimeRef": {"name": "torch-distributed"}}}
CM = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}


def fc(**spec):
    return {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "metadata": {"name": "c"}, "spec": spec}


def kinds(items):
    return [i.get("kind") if isinstance(i, dict) else i for i in items]


def test_a_trainjob_is_rendered_beside_the_items():
    outcome = run_with([CM, copy.deepcopy(TJ)], None)
    assert outcome.exit_code == 0 and outcome.errors == outcome.warnings == 0
    assert kinds(outcome.items) == ["ConfigMap", "TrainJob", "JobSet"]
    [entry] = outcome.rendered
    assert (entry.position, entry.origin["metadata"]["name"], kinds(entry.objects)) == (1, "tj", ["JobSet"])
    assert str(outcome.summary) == "expand-trainjobs: ok: 0 error(s), 0 warning(s); rendered 1 of 1 TrainJob(s) into 1 object(s)"
    assert outcome.summary.ok and outcome.krm_results()[-1]["severity"] == "info"


def test_a_failing_run_keeps_every_input_item_and_says_nothing_is_written():
    outcome = run_with([copy.deepcopy(TJ), "not an object"], None)
    assert outcome.exit_code == 1 and "not an object" in outcome.items
    assert not outcome.summary.ok and "nothing written: an error fails the whole run" in str(outcome.summary)
    assert stderr.lines(outcome)[0].startswith("expand-trainjobs: FAILED")


def test_validate_mode_checks_without_adding_objects():
    outcome = run_with([copy.deepcopy(TJ)], fc(mode="validate"))
    assert kinds(outcome.items) == ["TrainJob"] and outcome.rendered[0].objects
    assert "validated 1 TrainJob(s)" in str(outcome.summary)


def test_strict_makes_warnings_errors():
    unmarked = {**TJ, "metadata": {"name": "tj", "namespace": "ns"}}  # reaches the cluster: a warning
    relaxed = run_with([copy.deepcopy(unmarked)], None)
    assert relaxed.exit_code == 0 and relaxed.warnings >= 1
    strict = run_with([copy.deepcopy(unmarked)], fc(strict=True))
    assert strict.exit_code == 1 and strict.warnings == 0
    assert all(r.severity == ERROR for r in strict.final_results if r.severity != "info")
    assert any(r.severity == WARNING for r in strict.results)  # the results themselves are kept


def test_the_config_is_taken_parsed_at_the_door():
    parsed = config.parse(fc(namespace="other"))
    a = function.run([copy.deepcopy({**TJ, "metadata": {"name": "tj", "annotations": LOCAL}})], parsed)
    b = run_with([copy.deepcopy({**TJ, "metadata": {"name": "tj", "annotations": LOCAL}})], fc(namespace="other"))
    assert a.config == b.config and kinds(a.items) == kinds(b.items)
    assert a.rendered[0].objects[0]["metadata"]["namespace"] == "other"


@pytest.mark.parametrize("raw", [fc(namespace="other"), {}, None, config.parse(None).config])
def test_a_config_not_parsed_at_the_door_fails_loudly(raw):
    """The raw object (or a FunctionConfig without its problems) is a TypeError: a caller that forgot
    to parse would otherwise lose the config's problems or parse it twice."""
    with pytest.raises(TypeError, match="parsed at the door"):
        function.run([copy.deepcopy(TJ)], raw)


def test_freeze_and_emit_hand_out_the_output_as_it_is_final():
    written = []
    outcome = run_with([CM, copy.deepcopy(TJ), {**CM, "metadata": {"name": "after"}}], None,
                       function.Door(freeze=yamlio.freeze, emit=written.extend))
    assert kinds(written[:1]) == ["ConfigMap"]
    assert all(isinstance(x, (dict, yamlio.Frozen)) for x in written + outcome.items)
    assert len(written) + len(outcome.items) == 4  # the ConfigMaps, the TrainJob, its JobSet


def test_run_takes_the_items_the_parsed_config_and_one_door():
    """kyaml's reader/writer vs processor split: what a door hands the run is one Door record, and
    every door of the package (cli/krm.py, cli/plain.py, generated.py) builds one."""
    import ast
    import inspect
    from pathlib import Path

    assert list(inspect.signature(function.run).parameters) == ["items", "parsed", "door"]
    assert function.Door() == function.Door(base_dir=".", default_namespace="", returns_inputs=True)
    doors = []
    for path in sorted((Path(function.__file__).parent).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "run" \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "function":
                assert not node.keywords and len(node.args) == 3, f"{path}:{node.lineno}"
                door = node.args[2]
                assert isinstance(door, ast.Call) and ast.unparse(door.func) == "function.Door", f"{path}:{node.lineno}"
                doors.append(path.relative_to(Path(function.__file__).parent).as_posix())
    assert sorted(set(doors)) == ["cli/krm.py", "cli/plain.py", "generated.py"]


def test_every_result_and_trainjob_names_the_namespace_the_run_renders_into():
    # issue 32, point 3: a TrainJob written without a namespace is rendered into the config's (or
    # Argo CD's) namespace; its results and its entry say so, as the rendered objects do
    job = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "tj"},
           "spec": {"runtimeRef": {"name": "no-such-runtime"}}}
    fc = {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "spec": {"namespace": "team-b"}}
    outcome = run_with([copy.deepcopy(job)], fc)
    about = [r for r in outcome.results if (r.resource or {}).get("kind") == "TrainJob"]
    assert about and all(r.resource["namespace"] == "team-b" for r in about)
    assert "TrainJob team-b/tj" in "\n".join(stderr.lines(outcome))
    assert [e.namespace for e in outcome.rendered] == ["team-b"]
    # Argo CD's destination namespace, when the config names none; a TrainJob's own namespace wins
    outcome = run_with([copy.deepcopy(job)], {}, function.Door(default_namespace="argo-dest"))
    assert [e.namespace for e in outcome.rendered] == ["argo-dest"]
    own = {**job, "metadata": {"name": "tj", "namespace": "mine"}}
    outcome = run_with([own], fc)
    assert [e.namespace for e in outcome.rendered] == ["mine"]
    # control: no namespace anywhere stays none (never an invented one)
    outcome = run_with([copy.deepcopy(job)], {})
    assert [e.namespace for e in outcome.rendered] == [""]
    assert all("namespace" not in (r.resource or {}) for r in outcome.results)


def test_the_deadline_note_is_the_controller_profiles_and_not_kueues():
    """expand_through: the profile's `unrendered` note follows the engine's problems under the
    controller profile; the Kueue profile gives none (nothing filtered afterwards)."""
    from pathlib import Path

    case = Path(__file__).resolve().parents[2] / "fixtures/golden/v2.3.0/jobset/builder-active-deadline-not-rendered"
    items = [yamlio.load((case / f).read_text()) for f in ("runtime.yaml", "trainjob.yaml")]
    note = "trainer-controller/active-deadline-not-rendered"
    controller = run_with(copy.deepcopy(items), fc())
    assert [r.rule for r in controller.results if r.rule == note] == [note]
    kueue = run_with(copy.deepcopy(items), fc(profile="kueue", kueueQueues=["q"]))
    assert kueue.exit_code == 0 and note not in [r.rule for r in kueue.results]
    assert "kueue/max-exec-time" in [r.rule for r in kueue.results]
