"""kpt_fn.cli.commands: the click group: exactly the commands of the command table, usage errors as
click's, and the kustomize plugin form accepted (each command's behaviour: tests/behaviour/test_cli_*.py)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kpt_fn.cli import commands, dispatch


def invoke(*args, stdin=None):
    return CliRunner().invoke(commands.cli, list(args), input=stdin, prog_name="expand-trainjobs")


def test_help_lists_every_command_of_the_table():
    result = invoke("--help")
    assert result.exit_code == 0
    for name in dispatch.COMMANDS:
        assert f"  {name} " in result.output or f"  {name}\n" in result.output


def test_a_name_outside_the_table_cannot_be_a_command():
    with pytest.raises(LookupError, match="is not in kpt_fn.cli.dispatch.COMMANDS"):
        commands._command("not-a-command")


def test_rules_as_json():
    result = invoke("rules", "--format", "json")
    assert result.exit_code == 0
    rules = json.loads(result.output)
    assert rules and {"id", "family"} <= set(rules[0])


@pytest.mark.parametrize("args", [["no-such-command"], ["render", "--no-such-option"], ["validate", "--format", "xml"]])
def test_usage_errors_exit_2(args):
    assert invoke(*args).exit_code == 2


def test_the_kustomize_plugin_form_is_accepted(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fn.yaml").write_text("apiVersion: fn.kpt.dev/v1alpha1\nkind: ExpandTrainJobs\nmetadata: {name: x}\n")
    result = invoke("fn.yaml", stdin="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n")
    assert result.exit_code == 0 and "kind: ConfigMap\nmetadata:\n  name: cm\n" in result.output
