"""`strict`: every warning becomes an error, for the routes that show stderr only when a run fails
(the Argo CD sidecar, kubectl's kustomize exec plugin: docs/clients.md)."""

from __future__ import annotations

import json

from kpt_fn import config, yamlio
from kpt_fn.cli import krm, plain
from kpt_fn.problems import INFO, WARNING
from kpt_fn.results import STRICT_NOTE, Result, as_errors, more_like

TRAINJOB = {
    "apiVersion": "trainer.kubeflow.org/v1alpha1",
    "kind": "TrainJob",
    "metadata": {"name": "mnist", "annotations": {"config.kubernetes.io/local-config": "true"}},
    "spec": {"runtimeRef": {"name": "torch-distributed"}},
}
# A warning every route gives: a Trainer-group kind the function does not know is passed through.
ODD_KIND = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJobTemplate", "metadata": {"name": "t"}}


def _app(tmp_path, marker: str = "") -> str:
    (tmp_path / "expand-trainjobs.yaml").write_text(marker)
    (tmp_path / "trainjob.yaml").write_text(yamlio.dump_all([TRAINJOB, ODD_KIND]))
    return str(tmp_path)


def test_option_defaults_off_and_reads_as_a_bool():
    assert config.parse(None)[0].strict is False
    cfg, problems = config.parse({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"strict": "true"}})
    assert (cfg.strict, problems) == (True, [])
    _, problems = config.parse({"apiVersion": config.CONFIG_API_VERSION, "kind": config.CONFIG_KIND, "spec": {"strict": "yes"}})
    assert [p.path for p in problems] == ["spec.strict"]


def test_render_warns_without_strict_and_fails_with_it(tmp_path):
    (tmp_path / "a").mkdir()
    out, lines, code = plain.render([], _app(tmp_path / "a"), {})
    assert code == 0 and "kind: JobSet" in out
    assert lines[0].startswith("expand-trainjobs: ok: 0 error(s), 1 warning(s)")
    assert any(": warning: " in line and "TrainJobTemplate" in line for line in lines)

    app = tmp_path / "b"
    app.mkdir()
    out, lines, code = plain.render([], _app(app, "apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nspec: {strict: true}\n"), {})
    # Nothing to apply: Argo CD shows stderr only now, and a failed generate keeps the last manifests.
    assert (out, code) == ("", 1)
    assert lines[0].startswith("expand-trainjobs: FAILED: 1 error(s), 0 warning(s)")
    (line,) = [line for line in lines if "TrainJobTemplate" in line]
    assert ": error: " in line and line.endswith(f"{STRICT_NOTE} [intake/unknown-kind]")


def test_strict_as_an_argocd_parameter(tmp_path):
    app = _app(tmp_path)
    env = {"ARGOCD_APP_PARAMETERS": json.dumps([{"name": "strict", "string": "true"}])}
    out, lines, code = plain.render([], app, env)
    assert (out, code) == ("", 1) and "TrainJobTemplate" in "\n".join(lines)


def test_validate_fails_on_warnings_under_strict(tmp_path):
    app = _app(tmp_path, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {strict: 'true'}\n")
    assert plain.render([], app, {}, "validate")[2] == 1


def test_warnings_made_after_the_run_are_promoted_too(tmp_path):
    # The ignored-parameters warning is added by the render mode around function.run.
    app = tmp_path / "app"
    app.mkdir()
    (app / "expand-trainjobs.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {strict: 'true'}\n")
    (app / "trainjob.yaml").write_text(yamlio.dump(TRAINJOB))
    env = {"ARGOCD_APP_PARAMETERS": json.dumps([{"name": "output", "string": "all"}])}
    out, lines, code = plain.render([], str(app), env)
    assert code == 1 and any(": error: " in line and "parameter(s) output ignored" in line for line in lines)


def test_krm_results_carry_errors_and_the_items(tmp_path):
    rl = {
        "apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [TRAINJOB, ODD_KIND],
        "functionConfig": {"apiVersion": config.CONFIG_API_VERSION, "kind": config.CONFIG_KIND, "spec": {"strict": True}},
    }
    out, lines, code = krm.process(yamlio.dump(rl).encode(), base_dir=str(tmp_path))
    assert code == 1
    got = yamlio.load(out)
    assert {"TrainJob", "TrainJobTemplate", "JobSet"} <= {i["kind"] for i in got["items"]}
    severities = {r["severity"] for r in got["results"] if "TrainJobTemplate" in r["message"]}
    assert severities == {"error"}


def test_as_errors_keeps_everything_but_the_severity():
    w = Result("w", WARNING, {"kind": "TrainJob", "name": "a"}, "spec", "f.yaml", 2, "rule/x", 3)
    info = Result("i", INFO, rule="secret-policy/mpi-ssh-secret-required")
    more = more_like(w, 5)
    e, i, m = as_errors([w, info, more])
    assert (e.severity, e.message, e.resource, e.field, e.file, e.index, e.rule, e.count) == (
        "error", "w" + STRICT_NOTE, w.resource, "spec", "f.yaml", 2, "rule/x", 3)
    assert i is info  # a Secret to create is not a warning: it stays info
    assert m.severity == "error" and m.like.severity == "error"


def test_strict_flag_on_the_command_line(fn, tmp_path):
    import subprocess

    app = _app(tmp_path)
    for command in ("render", "validate"):
        plain_run = subprocess.run([fn, command, app], capture_output=True, text=True, timeout=60)
        strict_run = subprocess.run([fn, command, "--strict", app], capture_output=True, text=True, timeout=60)
        assert plain_run.returncode == 0, plain_run.stderr
        assert (strict_run.returncode, strict_run.stdout) == (1, ""), command
        assert "TrainJobTemplate" in strict_run.stderr and STRICT_NOTE in strict_run.stderr


def test_strict_in_the_kustomize_legacy_plugin(tmp_path):
    # kustomize v5.4 and later show the plugin's stderr only when it fails (docs/limits.md).
    config = tmp_path / "expand-trainjobs.yaml"
    config.write_text("apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nmetadata: {name: x}\nspec: {strict: true}\n")
    stdin = yamlio.dump_all([TRAINJOB, ODD_KIND]).encode()
    out, lines, code = plain.kustomize_plugin(str(config), stdin, {}, str(tmp_path))
    assert (out, code) == ("", 1) and "TrainJobTemplate" in "\n".join(lines)
    config.write_text("apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nmetadata: {name: x}\n")
    assert plain.kustomize_plugin(str(config), stdin, {}, str(tmp_path))[2] == 0
