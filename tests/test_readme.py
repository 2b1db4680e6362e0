"""The README's promises that can drift from the code."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    block = re.search(r"```sh\n(.*?)```", readme, re.S).group(1)
    test_command = [ln for ln in block.splitlines() if ln and not ln.startswith("#")][1]
    assert test_command in ci.splitlines()
