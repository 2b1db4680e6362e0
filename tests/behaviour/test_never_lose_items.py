"""Regression tests from an audit as a demanding new user: ways a run said ok (exit 0) while a TrainJob
was not rendered, or the user's objects were changed, dropped or overwritten. Real-client versions of
these live in tests/clients/test_audit_clients.py."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clients import kit
from kpt_fn.cli import stderr
from kpt_fn import function, yamlio
from kpt_fn.problems import ERROR, WARNING
from support.door import run_with


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
    outcome = run_with([trainjob(api_version=api_version)], None)
    assert outcome.exit_code == 1, outcome.summary
    (msg,) = _results(outcome, ERROR)
    assert f'"{api_version}"' in msg and "trainer.kubeflow.org/v1alpha1" in msg and "passed through unchanged" in msg
    assert outcome.items == [trainjob(api_version=api_version)]


def test_a_trainjob_kind_of_another_api_group_is_a_warning_not_silence():
    outcome = run_with([trainjob(api_version="example.com/v1")], None)
    assert outcome.exit_code == 0
    (msg,) = _results(outcome, WARNING)
    assert "example.com/v1" in msg and "not rendered" in msg


@pytest.mark.parametrize("kind", ["TrainJobs", "TrainingJob", "TrainJobb"])
def test_a_misspelt_trainer_kind_is_an_error(kind):
    outcome = run_with([trainjob(kind=kind)], None)
    assert outcome.exit_code == 1, outcome.summary
    (msg,) = _results(outcome, ERROR)
    assert f'"{kind}"' in msg and 'did you mean "TrainJob"' in msg


def test_a_trainer_kind_far_from_any_known_one_stays_a_warning():
    outcome = run_with([trainjob(kind="TrainJobTemplate")], None)
    assert outcome.exit_code == 0
    (msg,) = _results(outcome, WARNING)
    assert 'kind "TrainJobTemplate" is not a Kubeflow Trainer v2.3.0 kind' in msg


# --- kustomize generator form: TrainJobs listed under resources: were never expanded (exit 0) ---------

def _generator_app(tmp_path, files=("other.yaml",)):
    (tmp_path / "jobs.yaml").write_text(kit.LOCAL_TRAINJOB.format(name="mnist"))
    (tmp_path / "other.yaml").write_text(kit.LOCAL_TRAINJOB.format(name="other"))
    (tmp_path / "expander.yaml").write_text(
        "apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nmetadata:\n  name: expand\nspec:\n"
        f"  files: [{', '.join(files)}]\n"
    )
    (tmp_path / "kustomization.yaml").write_text("resources: [jobs.yaml]\ngenerators: [expander.yaml]\n")
    return tmp_path


def test_generator_names_trainjobs_listed_under_resources(tmp_path):
    from kpt_fn.cli import plain

    app = _generator_app(tmp_path)
    env = {"KUSTOMIZE_PLUGIN_CONFIG_ROOT": str(app)}
    out, lines, code = plain.kustomize_plugin(str(app / "expander.yaml"), b"", env, str(app))
    assert code == 1 and out == "", lines
    text = "\n".join(lines)
    assert "TrainJob team-a/mnist in jobs.yaml" in text and "listed under resources:" in text
    assert "transformers:" in text


def test_generator_without_trainjobs_in_resources_is_quiet(tmp_path):
    from kpt_fn.cli import plain

    app = _generator_app(tmp_path, files=("other.yaml", "jobs.yaml"))
    (app / "kustomization.yaml").write_text("resources: []\ngenerators: [expander.yaml]\n")
    out, lines, code = plain.kustomize_plugin(str(app / "expander.yaml"), b"", {"KUSTOMIZE_PLUGIN_CONFIG_ROOT": str(app)}, str(app))
    assert code == 0, lines
    assert lines[0].startswith("expand-trainjobs: ok: 0 error(s), 0 warning(s)"), lines


# --- An ExpandTrainJobs among the files that is not the run's functionConfig: its TrainJobs were dropped --

INLINE_CONFIG = """apiVersion: fn.kpt.dev/v1alpha1
kind: ExpandTrainJobs
metadata:
  name: expand
spec:
  trainJobs:
  - apiVersion: trainer.kubeflow.org/v1alpha1
    kind: TrainJob
    metadata: {name: inline, namespace: team-a}
    spec: {runtimeRef: {name: torch-distributed}}
"""


def test_render_refuses_an_unused_config_that_holds_trainjobs(tmp_path):
    """Argo CD renders the app with the marker's functionConfig; another ExpandTrainJobs in the app
    (a kustomize generator config, say) is never anyone's config there, so its TrainJobs were lost."""
    from kpt_fn.cli import plain

    (tmp_path / "expand-trainjobs.yaml").write_text("")
    (tmp_path / "gen.yaml").write_text(INLINE_CONFIG)
    (tmp_path / "jobs.yaml").write_text(kit.LOCAL_TRAINJOB.format(name="mnist"))
    out, lines, code = plain.render([str(tmp_path)], str(tmp_path), {})
    assert code == 1 and out == "", lines
    assert any("ExpandTrainJobs expand" in line and "gen.yaml" in line and "spec.trainJobs" in line for line in lines), lines


def test_krm_warns_about_a_config_item_that_is_not_the_function_config():
    from kpt_fn import yamlio

    other = yamlio.load(INLINE_CONFIG)
    other["metadata"]["annotations"] = {"config.kubernetes.io/path": "gen.yaml"}
    outcome = run_with([other, trainjob()], None)
    (msg,) = [m for m in _results(outcome, WARNING) if "ExpandTrainJobs" in m]
    assert "is not this run's functionConfig" in msg and "spec.trainJobs" in msg


def test_the_function_config_among_the_items_is_no_warning():
    """kpt fn render with configPath hands the config over as an item too (with its path)."""
    from kpt_fn import yamlio

    fc = yamlio.load(INLINE_CONFIG)
    item = yamlio.load(INLINE_CONFIG)
    item["metadata"]["annotations"] = {"config.kubernetes.io/path": "fn.yaml", "internal.config.kubernetes.io/path": "fn.yaml"}
    outcome = run_with([item], fc)
    assert outcome.exit_code == 0 and outcome.warnings == 0, stderr.lines(outcome)
    assert [r.objects != [] for r in outcome.rendered] == [True]


# --- policy: MPI training nodes were not counted (maxNodes, maxGPUsPerNode passed whatever numNodes) -----

MPI_RUNTIME = {
    "apiVersion": "trainer.kubeflow.org/v1alpha1",
    "kind": "TrainingRuntime",
    "metadata": {"name": "mpi", "namespace": "team-a", "annotations": {"config.kubernetes.io/local-config": "true"}},
    "spec": {
        "mlPolicy": {"numNodes": 1, "mpi": {"mpiImplementation": "OpenMPI", "numProcPerNode": 1,
                                            "sshAuthMountPath": "/home/mpiuser/.ssh", "runLauncherAsNode": False}},
        "template": {"spec": {"replicatedJobs": [
            {"name": "launcher", "template": {
                "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                "spec": {"template": {"spec": {"containers": [{"name": "node", "image": "mpi:1"}]}}}}},
            {"name": "node", "template": {"spec": {"template": {"spec": {"containers": [
                {"name": "node", "image": "mpi:1", "command": ["/usr/sbin/sshd"]}]}}}}},
        ]}},
    },
}


def _policy_run(tj, runtime=None, **policy):
    fc = {"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "metadata": {"name": "x"}, "spec": {"policy": policy}}
    return run_with([runtime, tj] if runtime else [tj], fc)


@pytest.mark.parametrize("nodes, ok", [(4, True), (5, False), (64, False)])
def test_max_nodes_counts_mpi_nodes_with_the_launcher_as_node(nodes, ok):
    tj = trainjob(trainer={"numNodes": nodes})
    tj["spec"]["runtimeRef"]["name"] = "deepspeed-distributed"
    outcome = _policy_run(tj, maxNodes=4)
    errors = _results(outcome, ERROR)
    assert (errors == []) == ok, errors
    if not ok:
        assert f"the TrainJob runs {nodes} training nodes, more than 4" in errors[0]


@pytest.mark.parametrize("nodes, ok", [(4, True), (5, False)])
def test_max_nodes_counts_mpi_nodes_without_the_launcher(nodes, ok):
    tj = trainjob(trainer={"numNodes": nodes})
    tj["spec"]["runtimeRef"] = {"name": "mpi", "kind": "TrainingRuntime"}
    errors = _results(_policy_run(tj, MPI_RUNTIME, maxNodes=4), ERROR)
    assert (errors == []) == ok, errors


def test_max_gpus_per_node_checks_the_mpi_node_pods():
    import copy

    runtime = copy.deepcopy(MPI_RUNTIME)
    node = runtime["spec"]["template"]["spec"]["replicatedJobs"][1]["template"]["spec"]["template"]["spec"]
    node["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": 16}}
    tj = trainjob(trainer={"numNodes": 2})
    tj["spec"]["runtimeRef"] = {"name": "mpi", "kind": "TrainingRuntime"}
    errors = _results(_policy_run(tj, runtime, maxGPUsPerNode=8), ERROR)
    assert len(errors) == 1 and "a training node (replicated job node) requests 16 GPUs, more than 8" in errors[0], errors


def test_report_counts_mpi_nodes(tmp_path):
    """`report` showed 1 node for a 3-node DeepSpeed TrainJob (it counted the launcher only)."""
    from kpt_fn.review import report as review_report
    from kpt_fn.cli import plain

    tj = kit.LOCAL_TRAINJOB.format(name="ds").replace("torch-distributed", "deepspeed-distributed") + "  trainer:\n    numNodes: 3\n"
    (tmp_path / "jobs.yaml").write_text(tj)
    outcome = plain.expand([str(tmp_path)], str(tmp_path), {})
    (row,) = [review_report.trainjob_summary(e) for e in outcome.rendered]
    assert row["nodes"] == 3, row


# --- Objects read through `files` (or given inline) that are not TrainJobs or runtimes were dropped -------


def test_generator_files_holding_other_objects_is_an_error(tmp_path):
    """kustomize generator with `files: [jobs]`: a ConfigMap next to the TrainJobs was read and never
    emitted (kubectl kustomize exit 0, the ConfigMap missing from the build)."""
    from kpt_fn.cli import plain

    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "jobs.yaml").write_text(kit.LOCAL_TRAINJOB.format(name="mnist"))
    (tmp_path / "jobs" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: train-settings, namespace: team-a}\ndata: {lr: '0.1'}\n")
    (tmp_path / "jobs" / "old.yaml").write_text(  # earlier output, local-config objects: nobody's loss
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\n  annotations: {config.kubernetes.io/local-config: 'true'}\n"
        "---\napiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: mnist\n  namespace: team-a\n"
        "  annotations: {expand-trainjobs.fn.kpt.dev/trainjob: mnist}\nspec: {replicatedJobs: []}\n"
    )
    (tmp_path / "expander.yaml").write_text("apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nmetadata:\n  name: expand\nspec:\n  files: [jobs]\n")
    (tmp_path / "kustomization.yaml").write_text("generators: [expander.yaml]\n")
    out, lines, code = plain.kustomize_plugin(str(tmp_path / "expander.yaml"), b"", {"KUSTOMIZE_PLUGIN_CONFIG_ROOT": str(tmp_path)}, str(tmp_path))
    assert code == 1 and out == "", lines
    (line,) = [x for x in lines if "train-settings" in x]
    assert "jobs/cm.yaml" in line and "resources:" in line
    assert not any("notes" in x or "JobSet team-a/mnist (in" in x for x in lines), lines
    (tmp_path / "jobs" / "cm.yaml").unlink()
    out, lines, code = plain.kustomize_plugin(str(tmp_path / "expander.yaml"), b"", {"KUSTOMIZE_PLUGIN_CONFIG_ROOT": str(tmp_path)}, str(tmp_path))
    assert code == 0, lines


# --- report option: the report took index 0 of expand-trainjobs-report.yaml whatever that file held ------


def test_report_option_takes_the_next_free_index_of_its_file():
    """A user's object in expand-trainjobs-report.yaml: kpt refused the output ('resource at path ... and
    index "0" already exists')."""
    from kpt_fn.cli import krm

    notes = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "review-notes", "namespace": "team-a", "annotations": {
        "config.kubernetes.io/path": "expand-trainjobs-report.yaml", "config.kubernetes.io/index": "0",
        "internal.config.kubernetes.io/path": "expand-trainjobs-report.yaml", "internal.config.kubernetes.io/index": "0"}}}
    outcome = run_with([notes, trainjob()], None, function.Door(report=krm.report_placement("markdown")))
    report = outcome.items[-1]
    assert report["metadata"]["name"] == "expand-trainjobs-report" and outcome.items[0] == notes
    ann = report["metadata"]["annotations"]
    assert ann["internal.config.kubernetes.io/index"] == ann["config.kubernetes.io/index"] == "1"


def test_render_keeps_annotations_users_write_for_clients(tmp_path):
    """render drops only the annotations clients put on items to track their origin; kpt's
    depends-on and apply-time-mutation (written by users) reach the cluster."""
    from kpt_fn.cli import plain

    (tmp_path / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: ns\n  annotations:\n"
        "    config.kubernetes.io/depends-on: /namespaces/ns/ConfigMap/other\n"
        "    config.kubernetes.io/apply-time-mutation: x\n"
        "    config.kubernetes.io/index: '0'\n    internal.config.kubernetes.io/path: cm.yaml\ndata: {a: b}\n")
    stdout, lines, code = plain.render([], str(tmp_path), {})
    assert code == 0, lines
    [cm] = [d for d in yamlio.load_all(stdout) if d]
    assert cm["metadata"]["annotations"] == {"config.kubernetes.io/depends-on": "/namespaces/ns/ConfigMap/other",
                                             "config.kubernetes.io/apply-time-mutation": "x"}


# --- A failure making the last piece of the KRM output (the results) lost the results ----------------


@pytest.mark.parametrize("trainjobs", [3, 60])  # 60: items are on stdout before the results are made
def test_a_failure_making_the_last_piece_still_gives_every_item_and_an_error_result(monkeypatch, trainjobs):
    import yaml

    from bench import generate
    from support import krm_mode

    data = generate.to_yaml(generate.generate(trainjobs, seed=3))
    real = function.Outcome.krm_results

    def unwritable_last_result(self):  # the summary, the last result, cannot be written as YAML
        return real(self)[:-1] + [{"message": object(), "severity": "info"}]

    monkeypatch.setattr(function.Outcome, "krm_results", unwritable_last_result)
    stdout, stderr, code = krm_mode.run(monkeypatch, data)
    assert code == 1
    assert stderr.startswith("expand-trainjobs: FAILED: internal error: RepresenterError")
    # With part of the output on stdout, the ResourceList is ended as for a failure while rendering.
    assert ("the output holds every input item" in stderr.splitlines()[0]) == (trainjobs == 60)
    out = yaml.safe_load(stdout)
    inputs = krm_mode.identities(yaml.safe_load(data)["items"])
    assert [i for i in krm_mode.identities(out["items"]) if i in inputs] == inputs  # each input item once, in order
    assert [r["severity"] for r in out["results"]] == ["error"]
    assert out["results"][0]["message"].startswith("internal error: RepresenterError")


# --- Writing the output after the run cannot fail on what the reader gives -----------------------------
#
# Without the streamed output (a review report among the items, or JSON on stdin), KRM mode writes
# the items after the run, each made into text as it is written (krm.process_pieces): were one item
# impossible to write, the output would stop there without results (exit 1, "the output is
# incomplete"). With real input that cannot happen, and no machinery guards it: what is written is
# input items (their own text, or the reader's data) and generated objects, which the engine builds
# out of the reader's values and its own strings and numbers (the golden harness writes every case's
# objects: tests/support/golden_engine.dump). The reader gives plain data only -- str, int within
# int64, float (infinities and NaN included), bool, None, lists and maps with string keys: no tag
# beyond the core schema's is read (docs/yaml.md), no unpaired surrogate, no integer of more digits
# than Python converts -- at most 1000 levels deep (maxDepth's maximum). These tests hold the writer
# to every such value: the text is made, encodes as UTF-8 and reads back as the same data.

_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_SCALARS = st.one_of(
    _TEXT,
    st.sampled_from(["", "|+\n", "a\n\n", " lead", "trail ", "- x", "? y", "#", "'", '"', "\ufeff", "\x85", "\u2028",
                     "\x00", "null", "~", "true", "0o17", "1_000", ".inf", "1e400", "0777", "9" * 1000]),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
)
_READER_VALUES = st.recursive(
    _SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4), max_leaves=25)
_LIMITLESS = yamlio.Limits(max_bytes=1 << 40, max_depth=1 << 20, max_nodes=1 << 40, max_aliases=1 << 40)


def _comparable(value) -> list:
    """`value` as a flat list of tokens, NaN made equal to itself (a NaN read back is a NaN, but never
    == one); a loop, not recursion, for items a thousand levels deep."""
    out, stack = [], [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            out.append(("map", len(v)))
            for k, x in reversed(list(v.items())):
                stack += [x, ("key", k)]
        elif isinstance(v, list):
            out.append(("list", len(v)))
            stack += reversed(v)
        elif isinstance(v, float) and math.isnan(v):
            out.append("<nan>")
        else:
            out.append((type(v).__name__, v) if not isinstance(v, tuple) else v)
    return out


def _written_back(items: list) -> list:
    """The items through the KRM output's writer (each frozen, as the streamed output does, and the
    ResourceList in pieces, as the rest does), encoded as stdout encodes, and read back."""
    rl = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
          "items": [yamlio.freeze(i) for i in items] + items, "results": []}
    text = "".join(yamlio.dump_pieces(rl)).encode("utf-8")  # strict, as kpt_fn.stdio.Output encodes
    back = yamlio.load(text, _LIMITLESS)["items"]
    assert _comparable(back) == _comparable(items + items)
    return back


def test_the_reader_gives_plain_data_only():
    # What the tests below hold the writer to: every stored hostile input that parses (core tags,
    # anchors and merge keys, JSON, odd scalars) gives the reader's plain types and string keys.
    from behaviour.test_hostile_input import INPUT_NAMES, input_items

    plain = (str, int, float, bool, type(None), list, dict)
    cases = 0
    for case in sorted((Path(__file__).resolve().parents[2] / "fixtures" / "bad").iterdir()):
        for name in INPUT_NAMES:
            items = input_items((case / name).read_bytes()) if (case / name).is_file() else None
            stack = list(items or ())
            cases += items is not None
            while stack:
                v = stack.pop()
                assert type(v) in plain and not (type(v) is int and not -(2**63) <= v < 2**63), (case.name, v)
                if type(v) is dict:
                    assert all(type(k) is str for k in v), (case.name, list(v))
                    stack += v.values()
                elif type(v) is list:
                    stack += v
    assert cases > 40


@settings(max_examples=60, derandomize=True, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_READER_VALUES, key=_TEXT)
def test_the_writer_writes_every_value_the_reader_gives(value, key):
    _written_back([{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": {key: value}}])


@pytest.mark.parametrize("kind", ["maps", "lists", "both"])
def test_the_writer_writes_the_deepest_item_the_reader_gives(kind):
    # maxDepth at its maximum (1000): the ResourceList, its items and the item's own levels take 4
    value: object = "leaf"
    for level in range(1000 - 5):
        value = {"a": value} if kind == "maps" or (kind == "both" and level % 2) else [value]
    item = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "deep"}, "data": value}
    yamlio.check_limits({"items": [item]}, yamlio.DEFAULT_LIMITS.replace(max_depth=1000))  # the reader gives it
    _written_back([item])
