"""The distribution carries every package of kpt_fn (pyproject.toml lists them one by one)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_of_kpt_fn_is_in_the_distribution():
    # A package left out installs without its modules: an installed function (the image, the Argo CD
    # sidecar, pip) then fails with ModuleNotFoundError only where that package is imported.
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "kpt_fn").rglob("__init__.py")}
    assert listed == on_disk
