"""Regression tests from an audit as a demanding new user: ways a run said ok (exit 0) while a TrainJob
was not rendered, or the user's objects were changed, dropped or overwritten. Real-client versions of
these live in tests/clients/test_audit_clients.py."""

from __future__ import annotations

import pytest

from kpt_fn import function
from kpt_fn.problems import ERROR, WARNING


def trainjob(name="mnist", api_version="trainer.kubeflow.org/v1alpha1", kind="TrainJob", **spec):
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": name, "namespace": "team-a", "annotations": {"config.kubernetes.io/local-config": "true"}},
        "spec": {"runtimeRef": {"name": "torch-distributed"}, **spec},
    }


def _results(outcome, severity):
    return [r.message for r in outcome.results if r.severity == severity]


# --- A TrainJob whose apiVersion or kind is slightly off was passed through with exit 0 ---------------


@pytest.mark.parametrize("api_version", [
    "trainer.kubeflow.org",  # version forgotten: no group at all for the API machinery
    "v1alpha1",
    "trainers.kubeflow.org/v1alpha1",
    "trainer.kubeflow.io/v1alpha1",
])
def test_a_trainjob_with_a_misspelt_apiversion_is_an_error(api_version):
    outcome = function.run([trainjob(api_version=api_version)], None)
    assert outcome.exit_code == 1, outcome.summary()
    (msg,) = _results(outcome, ERROR)
    assert f'"{api_version}"' in msg and "trainer.kubeflow.org/v1alpha1" in msg and "passed through unchanged" in msg
    assert outcome.items == [trainjob(api_version=api_version)]


def test_a_trainjob_kind_of_another_api_group_is_a_warning_not_silence():
    outcome = function.run([trainjob(api_version="example.com/v1")], None)
    assert outcome.exit_code == 0
    (msg,) = _results(outcome, WARNING)
    assert "example.com/v1" in msg and "not rendered" in msg


@pytest.mark.parametrize("kind", ["TrainJobs", "TrainingJob", "TrainJobb"])
def test_a_misspelt_trainer_kind_is_an_error(kind):
    outcome = function.run([trainjob(kind=kind)], None)
    assert outcome.exit_code == 1, outcome.summary()
    (msg,) = _results(outcome, ERROR)
    assert f'"{kind}"' in msg and 'did you mean "TrainJob"' in msg


def test_a_trainer_kind_far_from_any_known_one_stays_a_warning():
    outcome = function.run([trainjob(kind="TrainJobTemplate")], None)
    assert outcome.exit_code == 0
    (msg,) = _results(outcome, WARNING)
    assert 'kind "TrainJobTemplate" is not a Kubeflow Trainer v2.3.0 kind' in msg


# --- kustomize generator form: TrainJobs listed under resources: were never expanded (exit 0) ---------

JOB_YAML = """apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
  namespace: team-a
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  runtimeRef:
    name: torch-distributed
"""


def _generator_app(tmp_path, files=("other.yaml",)):
    (tmp_path / "jobs.yaml").write_text(JOB_YAML.format(name="mnist"))
    (tmp_path / "other.yaml").write_text(JOB_YAML.format(name="other"))
    (tmp_path / "expander.yaml").write_text(
        "apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nmetadata:\n  name: expand\nspec:\n"
        f"  files: [{', '.join(files)}]\n"
    )
    (tmp_path / "kustomization.yaml").write_text("resources: [jobs.yaml]\ngenerators: [expander.yaml]\n")
    return tmp_path


def test_generator_names_trainjobs_listed_under_resources(tmp_path):
    from kpt_fn import plain

    app = _generator_app(tmp_path)
    env = {"KUSTOMIZE_PLUGIN_CONFIG_ROOT": str(app)}
    out, lines, code = plain.kustomize_plugin(str(app / "expander.yaml"), b"", env, str(app))
    assert code == 1 and out == "", lines
    text = "\n".join(lines)
    assert "TrainJob team-a/mnist in jobs.yaml" in text and "listed under resources:" in text
    assert "transformers:" in text


def test_generator_without_trainjobs_in_resources_is_quiet(tmp_path):
    from kpt_fn import plain

    app = _generator_app(tmp_path, files=("other.yaml", "jobs.yaml"))
    (app / "kustomization.yaml").write_text("resources: []\ngenerators: [expander.yaml]\n")
    out, lines, code = plain.kustomize_plugin(str(app / "expander.yaml"), b"", {"KUSTOMIZE_PLUGIN_CONFIG_ROOT": str(app)}, str(app))
    assert code == 0, lines
    assert lines[0].startswith("expand-trainjobs: ok: 0 error(s), 0 warning(s)"), lines
