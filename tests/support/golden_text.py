"""One golden text file checked, or rewritten under EXPAND_TRAINJOBS_UPDATE_GOLDEN=1 (the test then
FAILS, so that an update never passes unseen: review the diff of the file and run again)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def check(path: Path, text: str) -> None:
    if os.environ.get("EXPAND_TRAINJOBS_UPDATE_GOLDEN"):
        path.write_text(text)
        pytest.fail(f"rewrote {path.relative_to(ROOT)}; review it and run again without EXPAND_TRAINJOBS_UPDATE_GOLDEN")
    assert text == path.read_text()
