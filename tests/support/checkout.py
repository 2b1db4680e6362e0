"""A copy of the checkout somewhere else, as a user's fresh clone would have it (no venv, no caches),
for the tests that run the project from outside this directory tree (without ../shared beside it,
or the documentation's commands as written)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_NOT_IN_A_CLONE = {".git", ".venv", "venv", "__pycache__", "node_modules", ".pytest_cache", ".hypothesis", "build", "dist"}


def copy_checkout(dest: Path) -> Path:
    """Copy the checkout's files to dest (created): hidden directories such as .ci and examples'
    .expected included, VCS, virtual environments, caches and build output left out."""
    for root, dirs, files in os.walk(ROOT):
        rel = Path(root).relative_to(ROOT)
        dirs[:] = sorted(d for d in dirs if d not in _NOT_IN_A_CLONE and not d.endswith(".egg-info"))
        (dest / rel).mkdir(parents=True, exist_ok=True)
        for d in [d for d in dirs if (Path(root) / d).is_symlink()]:  # fixtures with links stay links
            os.symlink(os.readlink(Path(root) / d), dest / rel / d)
            dirs.remove(d)
        for f in files:
            if not f.endswith((".pyc", ".pyo")):
                shutil.copy2(Path(root) / f, dest / rel / f, follow_symlinks=False)
    return dest
