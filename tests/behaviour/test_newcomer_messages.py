"""Messages a newcomer meets first: each names the file and line, the object, the field, the bad
value and what to write instead (one test per message), with controls that must stay silent."""

from __future__ import annotations

import textwrap

import pytest

from clients import kit
from kpt_fn import upstream
from kpt_fn.cli import krm, plain
from kpt_fn.validation import admitted

# kit's marked TrainJob of the built-in torch runtime, with a trainer section (line 12 onwards).
TRAINJOB = kit.LOCAL_TRAINJOB.format(name="mnist") + "  trainer:\n{trainer}\n"


def _app(tmp_path, trainer: str, config: str | None = None):
    app = tmp_path / "app"
    app.mkdir()
    (app / "trainjob.yaml").write_text(TRAINJOB.format(trainer=textwrap.indent(trainer.strip("\n"), "    ")))
    if config is not None:
        (app / "expand-trainjobs.yaml").write_text(config)
    return app


def _render(app, mode=None):
    out, lines, code = plain.render([str(app)], str(app.parent), {}, mode)
    return out, lines, code


def _shown(lines):
    return [ln for ln in lines[1:]]


def test_num_proc_per_node_word_gives_one_error_saying_what_to_write(tmp_path):
    _, lines, code = _render(_app(tmp_path, "numNodes: 2\nnumProcPerNode: gpus"))
    assert code == 1
    [line] = _shown(lines)
    assert "TrainJob team-a/mnist: spec.trainer.numProcPerNode: " in line
    assert '"gpus"' in line and "write a whole number without quotes (numProcPerNode: 4)" in line
    assert line.startswith("app/trainjob.yaml:13:")
    assert "must be of type integer" not in line and "cannot convert" not in line


@pytest.mark.parametrize("legacy, rendered", [("auto", None), ("4", 4)])
def test_num_proc_per_node_legacy_strings_still_convert(tmp_path, legacy, rendered):
    _, lines, code = _render(_app(tmp_path, f'numProcPerNode: "{legacy}"'))
    assert code == 0, lines


def test_num_nodes_word_names_the_value_and_the_shape(tmp_path):
    _, lines, code = _render(_app(tmp_path, "numNodes: two"))
    assert code == 1
    [line] = _shown(lines)
    assert "spec.trainer.numNodes" in line and "found 'two'" in line
    assert "write a whole number, without quotes (numNodes: 2)" in line and line.startswith("app/trainjob.yaml:12:")


def test_quantity_word_says_what_a_quantity_looks_like(tmp_path):
    _, lines, code = _render(_app(tmp_path, "resourcesPerNode:\n  limits:\n    nvidia.com/gpu: four"))
    assert code == 1
    [line] = _shown(lines)
    assert 'Invalid value: "four"' in line and "must be a quantity" in line and "500m" in line
    assert "^(" not in line and "[0-9]" not in line  # no regular expression
    assert line.startswith("app/trainjob.yaml:14:")


def test_quantity_controls_pass(tmp_path):
    _, lines, code = _render(_app(tmp_path, "resourcesPerNode:\n  limits:\n    nvidia.com/gpu: 4\n    memory: 2Gi\n    cpu: 500m"))
    assert code == 0, lines


CONFIG = """\
apiVersion: fn.kpt.dev/v1alpha1
kind: ExpandTrainJobs
metadata:
  name: expand-trainjobs
spec:
  namspace: team-a
"""


def test_misspelt_option_gets_a_suggestion_its_file_and_an_honest_summary(tmp_path):
    out, lines, code = _render(_app(tmp_path, "numNodes: 2", CONFIG))
    assert code == 1 and out == ""
    assert "nothing written" in lines[0] and "rendered 1 of 1" not in lines[0]
    [line] = _shown(lines)
    assert "spec.namspace: unknown option 'namspace'; did you mean 'namespace'?" in line
    assert line.startswith("app/expand-trainjobs.yaml:6:")


def test_unknown_option_without_a_near_name_lists_the_options(tmp_path):
    _, lines, _ = _render(_app(tmp_path, "numNodes: 2", CONFIG.replace("namspace", "colour")))
    assert "known options: mode, namespace" in lines[1]


@pytest.mark.parametrize("trainer, fields", [
    ("numNodes: 0", ["spec.trainer.numNodes"]),
    ("numProcPerNode: -2", ["spec.trainer.numProcPerNode"]),
    ("numProcPerNode: 0", ["spec.trainer.numProcPerNode"]),
    ("numNodes: 0\nnumProcPerNode: -2", ["spec.trainer.numNodes", "spec.trainer.numProcPerNode"]),
])
def test_admitted_counts_that_cannot_train_warn(tmp_path, trainer, fields):
    _, lines, code = _render(_app(tmp_path, trainer))
    assert code == 0
    warned = [ln for ln in _shown(lines) if ": warning: " in ln]
    assert [f for f in fields if any(f"{f}:" in ln for ln in warned)] == fields
    assert all("Trainer v2.3.0 admits it" in ln and ln.startswith("app/trainjob.yaml:") for ln in warned)


@pytest.mark.parametrize("trainer", [
    {}, {"numNodes": 1}, {"numNodes": 64}, {"numProcPerNode": 1}, {"numProcPerNode": 8},
    {"numNodes": "0"},  # a string is the schema's error, not this warning
    {"numNodes": True}, {"numNodes": None}, {"numProcPerNode": "auto"},
])
def test_admitted_controls_stay_silent(trainer):
    assert admitted.trainjob_warnings({"spec": {"trainer": trainer}}, upstream.bundle("v2.3.0")) == []


def test_admitted_ignores_malformed_objects():
    for obj in (None, {}, {"spec": None}, {"spec": {"trainer": []}}):
        assert admitted.trainjob_warnings(obj, upstream.bundle("v2.3.0")) == []


# --- the README's kustomize route: a forgotten local-config annotation -----------------------------


def _kustomization(tmp_path, marked: bool, output: str | None = None):
    d = tmp_path / "kust"
    d.mkdir(parents=True)
    tj = TRAINJOB.format(trainer="    numNodes: 2")
    if not marked:
        tj = tj.replace('  annotations:\n    config.kubernetes.io/local-config: "true"\n', "")
    (d / "trainjob.yaml").write_text(tj)
    (d / "kustomization.yaml").write_text("resources:\n- trainjob.yaml\ntransformers:\n- expand-trainjobs.yaml\n")
    spec = "spec:\n  namespace: team-a\n" + (f"  output: {output}\n" if output else "")
    (d / "expand-trainjobs.yaml").write_text(
        f"apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nmetadata:\n  name: x\n{spec}")
    return d


def _legacy_plugin(d):
    return plain.kustomize_plugin(str(d / "expand-trainjobs.yaml"), (d / "trainjob.yaml").read_bytes(), {}, str(d))


def test_unmarked_trainjob_fails_the_legacy_plugin_route(tmp_path):
    out, lines, code = _legacy_plugin(_kustomization(tmp_path, marked=False))
    assert code == 1 and out == ""
    [line] = _shown(lines)
    assert ": error: TrainJob team-a/mnist: metadata.annotations[config.kubernetes.io/local-config]: " in line
    assert 'add config.kubernetes.io/local-config: "true" to its metadata.annotations' in line


def test_marked_trainjob_and_output_all_pass_the_legacy_plugin_route(tmp_path):
    assert _legacy_plugin(_kustomization(tmp_path / "a", marked=True))[2] == 0
    out, lines, code = _legacy_plugin(_kustomization(tmp_path / "b", marked=False, output="all"))
    assert code == 0 and any(": warning: " in ln and "local-config" in ln for ln in lines)


def test_validate_reports_the_unmarked_trainjob_of_a_kustomization(tmp_path):
    d = _kustomization(tmp_path, marked=False)
    _, lines, code = plain.render([str(d)], str(tmp_path), {}, "validate")
    assert code == 0
    assert any(": warning: " in ln and "not marked config.kubernetes.io/local-config" in ln
               and "trainjob.yaml:" in ln.partition(": ")[0] for ln in lines)


def test_validate_of_an_argocd_app_does_not_ask_for_local_config(tmp_path):
    app = _app(tmp_path, "numNodes: 2")
    (app / "trainjob.yaml").write_text((app / "trainjob.yaml").read_text().replace(
        '  annotations:\n    config.kubernetes.io/local-config: "true"\n', ""))
    _, lines, code = _render(app, "validate")
    assert code == 0 and not any("local-config" in ln for ln in lines)


# --- KRM mode: a YAML error inside one item -------------------------------------------------------

RESOURCE_LIST = """\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: first
    annotations:
      internal.config.kubernetes.io/path: 'first.yaml'
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: settings
    annotations:
      config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'conf/cm.yaml'
  data:
    ~: a
    null: b
functionConfig:
  apiVersion: fn.kpt.dev/v1alpha1
  kind: ExpandTrainJobs
"""


def test_yaml_error_in_an_item_names_the_object_and_its_file():
    with pytest.raises(krm.InputError) as e:
        krm.parse_resource_list(RESOURCE_LIST.encode())
    message = str(e.value)
    assert message.startswith("input is not valid YAML: line 19: keys '~' and 'null'")
    assert message.endswith("(of the ResourceList on stdin; the item is ConfigMap settings (in conf/cm.yaml))")


def test_yaml_error_outside_items_keeps_the_line_only():
    with pytest.raises(krm.InputError) as e:
        krm.parse_resource_list(b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nkind: x\nitems: []\n")
    assert str(e.value).startswith("input is not valid YAML: line 3")


def test_strict_errors_keep_their_file_and_line(tmp_path):
    out, lines, code = plain.render([str(_app(tmp_path, "numNodes: 0"))], str(tmp_path), {}, None, True)
    assert code == 1
    [line] = _shown(lines)
    assert line.startswith("app/trainjob.yaml:12:") and "(an error: strict is set) [admitted/num-nodes-zero]" in line


def test_admitted_names_the_selected_release():
    # The run's trainerVersion, not a fixed release, is what admits the value.
    (w,) = admitted.trainjob_warnings({"spec": {"trainer": {"numNodes": 0}}}, upstream.bundle("v2.2.1"))
    assert "Trainer v2.2.1 admits it" in w.message and "v2.3.0" not in w.message
