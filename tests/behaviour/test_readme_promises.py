"""The README's promises that can drift from the code."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    lines = [ln for block in re.findall(r"```sh\n(.*?)```", readme, re.S) for ln in block.splitlines()]
    test_commands = [ln for ln in lines if "-m pytest" in ln and not ln.startswith("#") and "-m container" not in ln]
    assert len(test_commands) == 1, test_commands
    assert test_commands[0] in ci.splitlines()
