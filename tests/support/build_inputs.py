"""What the tests' cached builds (the readable install, the function image) are made from, and the lock
that lets pytest-xdist workers share one build per machine."""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def file_lock(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def source_files(excluded_top_dirs: set):
    """The checkout's files in a stable order, without VCS/venv/cache entries, hidden files at the top,
    and the top-level directories in `excluded_top_dirs` (hashed to reuse a build of identical sources)."""
    for root, dirs, files in os.walk(ROOT):
        top = Path(root) == ROOT
        dirs[:] = sorted(
            d for d in dirs
            if not d.startswith(".") and d != "__pycache__" and not d.endswith(".egg-info")
            and not (top and d in excluded_top_dirs)
        )
        for f in sorted(files):
            if not f.endswith((".pyc", ".pyo")) and not (top and f.startswith(".")):
                yield Path(root) / f
