"""The one switch for tests that read upstream data from ../shared (beside the checkout, not in it).

A clone of the repository alone has no ../shared: such tests are skipped there, all with the one
reason NO_UPSTREAM. Where the project's CI says they must run (.ci/run exports REQUIRE_ENV=1) a
missing ../shared/upstream fails them instead, loudly. Tests say they need it with the `upstream`
marker (registered in tests/conftest.py, whose set-up hook calls require() for them) or the
`upstream_dir` fixture (the path); helpers such as tests/support/shipped.py call require() themselves. require()
from a test without the marker is a failure even when ../shared is present, so that the marker (and
`-m upstream` / `-m "not upstream"`) always names every such test.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
UPSTREAM = SHARED / "upstream"
TRAINER = UPSTREAM / "trainer"
REQUIRE_ENV = "EXPAND_TRAINJOBS_REQUIRE_UPSTREAM"
NO_UPSTREAM = (f"upstream data absent: ../shared/upstream is not beside the checkout "
               f"(set {REQUIRE_ENV}=1 to make this a failure, as .ci/run does)")

# Whether the test being set up carries the marker: set by tests/conftest.py's set-up hook (one
# test at a time per process, pytest-xdist workers included).
_marked = {"current": False}


def present() -> bool:
    return UPSTREAM.is_dir()


def required() -> bool:
    return os.environ.get(REQUIRE_ENV, "") not in ("", "0")


def set_marked(marked: bool) -> None:
    _marked["current"] = marked


def require() -> Path:
    """../shared/upstream, or skip the test (fail it when REQUIRE_ENV is set) when it is absent."""
    if not _marked["current"]:
        pytest.fail("this test reads ../shared/upstream: mark it @pytest.mark.upstream "
                    "(or mark its parameter) so that a clone without ../shared skips it", pytrace=False)
    if present():
        return UPSTREAM
    if required():
        pytest.fail(f"{REQUIRE_ENV}={os.environ[REQUIRE_ENV]} but {UPSTREAM} is missing: "
                    "the upstream data must be beside the checkout (../shared/upstream)", pytrace=False)
    pytest.skip(NO_UPSTREAM)
