"""kpt_fn.intake: which input items a run can use, and what it must say about the others."""

from __future__ import annotations

import pytest

from kpt_fn import upstream
from kpt_fn import intake, results
from kpt_fn.problems import ERROR, WARNING

TJ = "trainer.kubeflow.org/v1alpha1"
LOCAL = {"config.kubernetes.io/local-config": "true"}


def trainjob(name="tj", **md):
    return {"apiVersion": TJ, "kind": "TrainJob", "metadata": {"name": name, **md}}


def runtime(name="rt", kind="ClusterTrainingRuntime", **md):
    return {"apiVersion": TJ, "kind": kind, "metadata": {"name": name, **md}}


def config(**spec):
    return {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "metadata": {"name": "c"}, "spec": spec}


CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}

# item -> (severity, path, words of the message) of its one problem
UNUSABLE = [
    ("text", (ERROR, "items[0]", "not an object (found a string)")),
    ([1], (ERROR, "items[0]", "not an object (found a list)")),
    (None, (ERROR, "items[0]", "not an object (found null)")),
    ({"kind": "TrainJob"}, (ERROR, "apiVersion", "items[0] has no apiVersion")),
    ({"apiVersion": "v1", "kind": ""}, (ERROR, "kind", "has no kind")),
    ({"apiVersion": TJ, "kind": "Trainjob", "metadata": {"name": "x"}},
     (ERROR, "kind", 'unknown kind "Trainjob" (did you mean "TrainJob"?)')),
    ({"apiVersion": TJ, "kind": "TrainJobs", "metadata": {"name": "x"}},
     (ERROR, "kind", 'did you mean "TrainJob"?')),
    ({"apiVersion": "trainer.kubeflow.org/v1", "kind": "TrainJob", "metadata": {"name": "x"}},
     (ERROR, "apiVersion", 'unsupported apiVersion "trainer.kubeflow.org/v1" for TrainJob')),
    ({"apiVersion": "v1alpha1", "kind": "TrainJob", "metadata": {"name": "x"}},
     (ERROR, "apiVersion", 'did you mean "trainer.kubeflow.org/v1alpha1"?')),
    ({"apiVersion": "trainer.kubeflw.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "x"}},
     (ERROR, "apiVersion", "is not Kubeflow Trainer's")),
    ({"apiVersion": TJ, "kind": "TrainJob", "metadata": []}, (ERROR, "metadata", "metadata must be an object (found a list)")),
    ({"apiVersion": TJ, "kind": "TrainJob"}, (ERROR, "metadata", "(found null)")),
    (trainjob(""), (ERROR, "metadata.name", "metadata.name must be a non-empty string (found an empty string)")),
    ({"apiVersion": TJ, "kind": "TrainJob", "metadata": {"name": 3}}, (ERROR, "metadata.name", "(found an integer)")),
    (trainjob(namespace=""), (ERROR, "metadata.namespace", "found an empty string")),
]


@pytest.mark.parametrize("item, expected", UNUSABLE, ids=[str(i) for i in range(len(UNUSABLE))])
def test_an_unusable_item_is_an_error_and_passes_through(item, expected):
    inputs, unusable, problems = intake.survey([item], upstream.bundle("v2.3.0"))
    assert (inputs, unusable) == ([], {0})
    [p] = problems
    severity, path, words = expected
    assert (p.severity, p.path) == (severity, path)
    assert words in p.message and "passed through unchanged" in p.message


@pytest.mark.parametrize("item, words", [
    # Another group's kind of the same name: not Trainer's (a warning, the run says it is not rendered).
    ({"apiVersion": "example.com/v1", "kind": "TrainJob", "metadata": {"name": "x"}}, "is not Kubeflow Trainer's TrainJob"),
    # A kind of Trainer's group that is not near any Trainer kind.
    ({"apiVersion": TJ, "kind": "Experiment", "metadata": {"name": "x"}}, 'kind "Experiment" is not a Kubeflow Trainer v2.3.0 kind'),
])
def test_a_foreign_item_is_a_warning_and_still_usable(item, words):
    inputs, unusable, [p] = intake.survey([item], upstream.bundle("v2.3.0"))
    assert (inputs, unusable, p.severity) == ([], set(), WARNING)
    assert words in p.message


@pytest.mark.parametrize("item", [
    trainjob(),
    trainjob(namespace="ns"),
    {**trainjob(), "apiVersion": "kubeflow.org/v2alpha1"},  # a legacy version: converted later
    runtime(), runtime(kind="TrainingRuntime", namespace="ns"),
    CONFIGMAP, {"apiVersion": "v1", "kind": "List", "items": []},
])
def test_usable_items_have_no_problem(item):
    inputs, unusable, problems = intake.survey([item], upstream.bundle("v2.3.0"))
    assert (unusable, problems) == (set(), [])
    assert inputs == ([(0, item)] if item["kind"] == "TrainJob" else [])


def test_survey_keeps_positions_and_skips_configs_and_reports_lists():
    lst = {"apiVersion": "v1", "kind": "List", "items": [trainjob("inner")]}
    items = [CONFIGMAP, "bad", trainjob("a"), config(trainJobs=[trainjob("b")]), lst, trainjob("c")]
    inputs, unusable, problems = intake.survey(items, upstream.bundle("v2.3.0"))
    assert [i for i, _ in inputs] == [2, 5]
    assert unusable == {1}
    assert [p.path for p in problems] == ["items[1]", "items[0]"]
    assert "inside List is not expanded" in problems[1].message


def test_unused_configs():
    own = config(trainJobs=[trainjob()])
    other = config(files=["a.yaml"])
    empty = config()
    items = [own, other, empty, "bad"]
    # Under kpt another step may use it: a warning; `render` has only its own config: an error.
    [warning] = intake.unused_configs(items, {3}, own, returns_inputs=True)
    assert (warning.severity, warning.path, warning.subject) == (WARNING, "spec.files", other)
    assert "are not rendered by this run" in warning.message
    [error] = intake.unused_configs(items, {3}, own, returns_inputs=False)
    assert error.severity == ERROR and "move them into files of the app" in error.message
    # The run's own config, told apart from its copy among the items by the clients' annotations only.
    annotated = {**own, "metadata": {"name": "c", "annotations": {"internal.config.kubernetes.io/path": "fn.yaml"}}}
    assert intake.unused_configs([annotated], set(), own, True) == []
    assert len(intake.unused_configs([own], set(), None, True)) == 1


def test_not_emitted():
    cm_in_file = {**CONFIGMAP, "metadata": {"name": "cm", "annotations": {"internal.config.kubernetes.io/path": "x.yaml"}}}
    kept = [
        trainjob(), runtime(), config(),
        {**CONFIGMAP, "metadata": {"name": "local", "annotations": LOCAL}},
        {**CONFIGMAP, "metadata": {"name": "out", "annotations": {"expand-trainjobs.fn.kpt.dev/trainjob": "tj"}}},
        {**CONFIGMAP, "metadata": {"name": "among-items"}},
        "not an object",
    ]
    items = [{**CONFIGMAP, "metadata": {"name": "among-items"}}]
    assert intake.not_emitted(kept, items) == []
    [from_file, given] = intake.not_emitted([cm_in_file, CONFIGMAP], items)
    assert (from_file.path, given.path) == ("spec.files", "spec.trainJobs")
    assert "ConfigMap cm (in x.yaml) is read through spec.files" in from_file.message
    assert "ConfigMap cm is read through spec.trainJobs" in given.message


def test_reaching_cluster_warns_for_unmarked_trainer_objects_only():
    items = [trainjob(), runtime(), CONFIGMAP, trainjob("local", annotations=LOCAL), trainjob("bad")]
    out = intake.reaching_cluster(items, {4})
    assert [(r.resource["name"], r.severity, r.field) for r in out] == [
        ("tj", WARNING, "metadata.annotations[config.kubernetes.io/local-config]"),
        ("rt", WARNING, "metadata.annotations[config.kubernetes.io/local-config]"),
    ]
    assert "fight over the rendered objects" in out[0].message
    assert "the rendered objects do not need it there" in out[1].message


def test_reaching_cluster_counts_past_the_cap_per_group():
    n = results.RESULTS_PER_KIND
    out = intake.reaching_cluster([trainjob(f"t{i}") for i in range(n + 5)] + [runtime()], set())
    assert len(out) == n + 2
    assert out[n].count == 5 and out[n].message.startswith("... and 5 more like this")
    assert out[-1].resource["name"] == "rt"


def test_is_admission_policy_is_the_whole_cost_of_a_run_without_policies():
    assert intake.is_admission_policy({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy"})
    assert not intake.is_admission_policy({"apiVersion": "v1", "kind": "ValidatingAdmissionPolicy"})
    assert not intake.is_admission_policy({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding"})
    assert not intake.is_admission_policy("text")
