"""kpt_fn.cli.dispatch: the mode is chosen from argv alone, and the forms clients use on every build
run without click."""

from __future__ import annotations

import pytest

from kpt_fn.cli import commands, dispatch, modes


def test_the_command_table_is_the_click_groups():
    assert set(dispatch.COMMANDS) == set(commands.cli.commands)


@pytest.fixture
def config_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fn.yaml").write_text("kind: ExpandTrainJobs\n")
    (tmp_path / "render").write_text("")  # a file named like a command is still the command
    return "fn.yaml"


def test_no_arguments_is_krm_mode():
    assert dispatch.fast_path(["expand-trainjobs"], {}) == (modes.krm_mode, ())


@pytest.mark.parametrize("args, expected", [
    (["render"], (modes.render_mode, ([],))),
    (["render", "app", "other"], (modes.render_mode, (["app", "other"],))),
    (["validate", "app"], (modes.render_mode, (["app"], "validate"))),
    (["kustomize-plugin", "fn.yaml"], (modes.kustomize_plugin_mode, ("fn.yaml",))),
    (["fn.yaml"], (modes.kustomize_plugin_mode, ("fn.yaml",))),  # kustomize's legacy exec plugin form
])
def test_plain_forms_run_directly(config_file, args, expected):
    assert dispatch.fast_path(["expand-trainjobs", *args], {}) == expected


@pytest.mark.parametrize("args", [
    ["render", "-"], ["render", "--config", "c.yaml"], ["-q"], ["--help"], ["--"],  # options: click's
    ["rules"], ["runtimes"], ["report", "x"], ["diff"],                              # click's always
    ["kustomize-plugin"], ["kustomize-plugin", "a", "b"],                            # not the plugin's form
    ["no-such-file"],                                                               # neither command nor file
])
def test_other_forms_are_clicks(config_file, args):
    assert dispatch.fast_path(["expand-trainjobs", *args], {}) is None


def test_shell_completion_is_clicks():
    assert dispatch.fast_path(["expand-trainjobs", "render"], {"_EXPAND_TRAINJOBS_COMPLETE": "bash_complete"}) is None


@pytest.mark.parametrize("args, expected", [
    (["fn.yaml"], True),
    (["render"], False),       # names a command, even with a file of that name
    (["-x"], False),           # could be an option
    (["missing.yaml"], False),
    (["fn.yaml", "more"], False),
    ([], False),
])
def test_kustomize_form(config_file, args, expected):
    assert dispatch.kustomize_form(args) is expected
