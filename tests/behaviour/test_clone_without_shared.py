"""A clone of the repository alone, with no ../shared beside it, passes its own test command: the
tests that read upstream data (marker `upstream`, tests/support/upstream_data.py) are skipped there with one
reason, and fail when EXPAND_TRAINJOBS_REQUIRE_UPSTREAM=1 (as .ci/run sets) says they must run.

Cheap by design: the copy collects the whole suite and runs only the marked tests (all skipped). That
no other test reads ../shared is held by tests/support/upstream_data.require() (a failure from an unmarked
test, ../shared present or not) and by the path check below.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support import upstream_data
from support.checkout import copy_checkout

TESTS = Path(__file__).resolve().parents[1]


def _pytest(clone: Path, *args: str, require: bool = False) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != upstream_data.REQUIRE_ENV and not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = str(clone)  # the copy's package, not this checkout's editable install
    if require:
        env[upstream_data.REQUIRE_ENV] = "1"
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", *args],
                          cwd=clone, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    # tmp/alone/expand-trainjobs: nothing named shared beside it.
    return copy_checkout(tmp_path_factory.mktemp("alone") / "expand-trainjobs")


def test_marked_tests_skip_with_one_reason_in_a_clone_alone(clone):
    assert not (clone.parent / "shared").exists()
    p = _pytest(clone, "-m", "upstream", "-rs")
    out = p.stdout + p.stderr
    assert p.returncode == 0, out[-3000:]  # the whole suite collected, the marked tests all skipped
    assert re.search(r"\b\d+ skipped\b", out) and not re.search(r"\b\d+ (passed|failed|errors?)\b", out), out[-3000:]
    reasons = set(re.findall(r"^SKIPPED \[\d+\] [^:]+:\d+: (.*)$", out, re.M))
    assert reasons == {upstream_data.NO_UPSTREAM}, reasons


def test_marked_tests_fail_loudly_where_required(clone):
    p = _pytest(clone, "-m", "upstream", "-x", require=True)
    out = p.stdout + p.stderr
    assert p.returncode == 1, out[-3000:]
    assert f"{upstream_data.REQUIRE_ENV}=1 but" in out and "is missing" in out, out[-3000:]


def test_no_test_builds_a_path_to_shared_but_through_the_switch():
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        if path.name in ("upstream_data.py", "test_clone_without_shared.py"):
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"""parent\s*/\s*["']shared["']""", line):
                found.append(f"{path.relative_to(TESTS)}:{number}: {line.strip()}")
    assert found == [], "use tests/support/upstream_data.py (marker `upstream`):\n" + "\n".join(found)
