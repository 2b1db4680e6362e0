"""The command line: the mode comes from argv alone; stdout carries data only; exit codes.

Most tests run the installed console script, as every client does; the internal-error fallback is
exercised in-process.
"""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from kpt_fn import yamlio
from kpt_fn.cli import modes

from clients import kit

EXAMPLES = kit.FIXTURES / "examples"


def run(fn, *args, cwd=None, input=""):
    p = subprocess.run([fn, *args], cwd=cwd, input=input, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


@pytest.mark.parametrize("example, job", [("first-job", "first-job"), ("torch-job", "torch-job")])
def test_design_examples_render(fn, example, job):
    rc, out, err = run(fn, "render", cwd=EXAMPLES / example)
    assert rc == 0, err
    objs = kit.load_stream(out)
    assert ("JobSet", "default", job) in kit.ids(objs)
    # What to apply only: the TrainJob and its runtime stay out, and no client annotations.
    assert not [o for o in objs if o["kind"] in ("TrainJob", "ClusterTrainingRuntime", "TrainingRuntime")]
    assert "config.kubernetes.io" not in out
    assert err.startswith("expand-trainjobs: ok:")


def test_render_paths_and_validate(fn, tmp_path):
    rc, out, err = run(fn, "render", str(EXAMPLES / "first-job"), str(EXAMPLES / "torch-job"), cwd=tmp_path)
    assert rc == 0, err
    assert {("first-job", "default"), ("torch-job", "default")} <= {(o["metadata"]["name"], o["metadata"]["namespace"]) for o in kit.load_stream(out) if o["kind"] == "JobSet"}
    rc, out, err = run(fn, "validate", cwd=EXAMPLES / "torch-job")
    assert (rc, out) == (0, ""), err


def test_render_refuses_empty_output(fn, tmp_path):
    rc, out, err = run(fn, "render", cwd=tmp_path)
    assert (rc, out) == (1, "")
    assert "no objects to apply" in err


def test_krm_mode_rejects_what_is_not_a_resource_list(fn, tmp_path):
    for stdin, message in (("", "no input"), ("a: [\n", "not valid YAML"), ("kind: ConfigMap\napiVersion: v1\n", "expected kind ResourceList")):
        rc, out, err = run(fn, cwd=tmp_path, input=stdin)
        assert rc == 1
        rl = yamlio.load(out)
        assert rl["kind"] == "ResourceList" and rl["results"][0]["severity"] == "error"
        assert message in rl["results"][0]["message"] and message in err


def test_single_existing_file_is_the_kustomize_plugin_form(fn, tmp_path):
    docs = [d for f in ("trainjob.yaml", "runtime.yaml") for d in yamlio.load_all((EXAMPLES / "first-job" / f).read_text())]
    (tmp_path / "cfg.yaml").write_text(yamlio.dump({"apiVersion": "fn.kpt.dev/v1alpha1", "kind": "ExpandTrainJobs", "metadata": {"name": "x"}, "spec": {"trainJobs": docs}}))
    for args in (["cfg.yaml"], ["kustomize-plugin", "cfg.yaml"]):
        rc, out, err = run(fn, *args, cwd=tmp_path)
        assert rc == 0, err
        assert [(o["kind"], o["metadata"]["name"]) for o in kit.load_stream(out)] == [("JobSet", "first-job")]


def test_usage_errors_and_version(fn, tmp_path):
    rc, out, err = run(fn, "no-such-command", cwd=tmp_path)
    assert rc == 2 and out == "" and "No such command" in err
    rc, out, _ = run(fn, "--version", cwd=tmp_path)
    assert rc == 0 and out.startswith("expand-trainjobs, version ")


def test_rules(fn, tmp_path):
    rc, out, err = run(fn, "rules", "--format", "yaml", cwd=tmp_path)
    assert rc == 0, err
    catalog = yamlio.load(out)
    assert catalog and all({"id", "family"} <= set(r) for r in catalog)


def test_the_command_table_drives_both_dispatchers(tmp_path, monkeypatch):
    from kpt_fn import cli
    from kpt_fn.cli.commands import cli as group

    assert set(group.commands) == set(cli.COMMANDS)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cfg.yaml").write_text("")
    (tmp_path / "render").write_text("")  # a file named like a command is the command, not a config
    assert cli.kustomize_form(["cfg.yaml"]) and not cli.kustomize_form(["render"])
    assert not cli.kustomize_form(["-cfg.yaml"]) and not cli.kustomize_form(["cfg.yaml", "x"])
    assert cli.fast_path(["x", "cfg.yaml"], {}) == (modes.kustomize_plugin_mode, ("cfg.yaml",))
    assert cli.fast_path(["x", "validate", "a"], {}) == (modes.render_mode, (["a"], "validate"))
    assert cli.fast_path(["x", "rules"], {}) is None and cli.fast_path(["x", "render", "--help"], {}) is None


def test_an_internal_error_of_diff_exits_2(monkeypatch, capsys):
    # diff's exit 1 means "changes": its errors, internal ones included, are 2.
    from kpt_fn.review import sides

    def boom(*a, **k):
        raise RuntimeError("bug")

    monkeypatch.setattr(sides, "materialize", boom)
    with pytest.raises(SystemExit) as e:
        modes.diff_mode("a", "b", "json")
    assert e.value.code == 2
    assert capsys.readouterr().err.startswith("expand-trainjobs: FAILED: internal error: RuntimeError: bug")


class _Stdin(io.TextIOWrapper):
    def isatty(self):
        return False


def test_internal_error_keeps_the_items(monkeypatch, capsys):
    from kpt_fn.cli import krm

    def boom(*a, **k):
        raise RuntimeError("bug")

    monkeypatch.setattr(krm, "process_pieces", boom)
    _check_internal_error_keeps_the_items(monkeypatch, capsys)


def _check_internal_error_keeps_the_items(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", _Stdin(io.BytesIO(b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n")))
    monkeypatch.delenv(modes.DEBUG_ENV, raising=False)
    with pytest.raises(SystemExit) as e:
        modes.krm_mode()
    assert e.value.code == 1
    captured = capsys.readouterr()
    rl = yamlio.load(captured.out)
    assert rl["items"] == [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}]
    assert rl["results"] == [{"message": "internal error: RuntimeError: bug", "severity": "error"}]
    assert captured.err.startswith("expand-trainjobs: FAILED: internal error: RuntimeError: bug")


def test_output_is_written_in_pieces_and_a_failing_first_piece_keeps_the_items(monkeypatch, capsys):
    from kpt_fn.cli import krm

    def pieces(*a, **k):
        raise RuntimeError("bug")
        yield ""

    monkeypatch.setattr(krm, "process_pieces", lambda *a, **k: (pieces(), [], 0))
    _check_internal_error_keeps_the_items(monkeypatch, capsys)


def test_a_failure_after_the_first_piece_is_an_error_on_stderr(monkeypatch, capsys):
    from kpt_fn.cli import krm

    def pieces():
        yield "apiVersion: config.kubernetes.io/v1\n"
        raise RuntimeError("bug")

    monkeypatch.setattr(krm, "process_pieces", lambda *a, **k: (pieces(), ["summary"], 0))
    monkeypatch.setattr(sys, "stdin", _Stdin(io.BytesIO(b"kind: ResourceList\n")))
    with pytest.raises(SystemExit) as e:
        modes.krm_mode()
    assert e.value.code == 1
    captured = capsys.readouterr()
    assert captured.out == "apiVersion: config.kubernetes.io/v1\n"
    # The first line states the outcome (kpt shows four lines); the run's own summary comes after.
    assert captured.err == "expand-trainjobs: FAILED: internal error while writing the output: RuntimeError: bug\nsummary\n"


def test_internal_error_after_parsing_gives_back_the_parsed_items_not_the_bytes(monkeypatch, capsys):
    from kpt_fn import function
    from kpt_fn.cli import krm

    seen = {}
    real = krm.process_pieces

    def process_pieces(data, *a, fallback=None, **k):
        seen["before"] = dict(fallback)
        return real(data, *a, fallback=fallback, **k)

    def run(*a, **k):
        raise RuntimeError("bug")

    fallback_ref = {}
    monkeypatch.setattr(krm, "process_pieces", process_pieces)
    monkeypatch.setattr(function, "run", run)
    orig_failed = modes._failed_krm

    def failed(fallback, message, lines):
        fallback_ref.update(fallback)
        return orig_failed(fallback, message, lines)

    monkeypatch.setattr(modes, "_failed_krm", failed)
    _check_internal_error_keeps_the_items(monkeypatch, capsys)
    assert "data" in seen["before"] and "data" not in fallback_ref and "items" in fallback_ref


def test_a_piece_that_cannot_be_encoded_after_output_was_written_is_an_error_first(monkeypatch, capsys):
    from kpt_fn import stdio
    from kpt_fn.cli import krm
    from kpt_fn.results import Summary

    def pieces():
        yield "a" * (stdio.CHUNK + 1)  # written
        yield "\udc80"  # a lone surrogate: no UTF-8 for it

    monkeypatch.setattr(krm, "process_pieces", lambda *a, **k: (pieces(), [Summary(True, "fine")], 0))
    monkeypatch.setattr(sys, "stdin", _Stdin(io.BytesIO(b"kind: ResourceList\n")))
    with pytest.raises(SystemExit) as e:
        modes.krm_mode()
    assert e.value.code == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("expand-trainjobs: FAILED: internal error while writing the output: UnicodeEncodeError")
    assert err[1] == "  (the run itself: fine)"


def test_krm_mode_in_a_deleted_working_directory_gives_the_items_back_with_what_to_do(tmp_path, fn):
    gone = tmp_path / "gone"
    gone.mkdir()
    items = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: kept}\n"
    # The shell enters the directory, removes it, then runs the function there.
    done = subprocess.run(["sh", "-c", f'cd "{gone}" && rmdir "{gone}" && exec "{fn}"'], input=items,
                          capture_output=True, text=True)
    assert done.returncode == 1
    assert "name: kept" in done.stdout and "severity: error" in done.stdout
    assert "working directory cannot be read" in done.stdout
    assert done.stderr.startswith("expand-trainjobs: FAILED: the working directory cannot be read")
    assert "internal error" not in done.stderr
