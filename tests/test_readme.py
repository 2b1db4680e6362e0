"""The README's promises that can drift from the code."""

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import gen_readme_options  # noqa: E402


def test_options_table_is_current():
    options = (ROOT / "docs" / "options.md").read_text()
    assert gen_readme_options.refreshed(options) == options, "run: python scripts/gen_readme_options.py --write"


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    block = re.search(r"```sh\n(.*?)```", readme, re.S).group(1)
    test_command = [ln for ln in block.splitlines() if ln and not ln.startswith("#")][1]
    assert test_command in ci.splitlines()


def test_catalog_is_reproducible(tmp_path):
    upstream = ROOT.parent / "shared" / "upstream" / "trainer"
    if not upstream.is_dir():
        import pytest

        pytest.skip("../shared/upstream is not beside the checkout")
    before = (ROOT / "kpt_fn" / "catalog" / "runtimes.json").read_bytes()
    script = (ROOT / "scripts" / "gen_catalog.py").read_text()
    # Run the generator against a copy of the project layout so the checkout is not touched.
    out = tmp_path / "kpt_fn" / "catalog"
    out.mkdir(parents=True)
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "gen_catalog.py").write_text(script)
    subprocess.run([sys.executable, str(tmp_path / "scripts" / "gen_catalog.py"), str(upstream)], check=True, capture_output=True)
    assert (out / "runtimes.json").read_bytes() == before
