"""kpt_fn.kustomize_install: where the wrapper goes and what it says (tests/clients/test_kustomize_install.py
runs it through kubectl kustomize)."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

import kpt_fn
from kpt_fn import kustomize_install as ki

ROOT = Path(__file__).resolve().parents[2]


def test_relative_path_is_kustomizes_group_version_kind_layout():
    assert ki.relative_path() == "fn.kpt.dev/v1alpha1/expandtrainjobs/ExpandTrainJobs"


@pytest.mark.parametrize("env, expected", [
    ({"KUSTOMIZE_PLUGIN_HOME": "/p", "XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/p"),
    ({"KUSTOMIZE_PLUGIN_HOME": "", "XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/kustomize/plugin"),
    ({"XDG_CONFIG_HOME": "", "HOME": "/h"}, "/h/.config/kustomize/plugin"),
])
def test_default_home_in_kustomizes_order(env, expected):
    assert ki.default_home(env) == expected


def test_default_home_without_any_location_says_what_to_set():
    with pytest.raises(ValueError, match="KUSTOMIZE_PLUGIN_HOME"):
        ki.default_home({})


def test_the_repositorys_wrapper_is_the_one_the_package_writes():
    """One source: kustomize/plugin/ in the repository (docs and client tests use it) is what
    `install-kustomize-plugin` writes, minus the installing executable."""
    assert (ROOT / "kustomize" / "plugin" / ki.relative_path()).read_text() == ki.wrapper(None)


def test_install_writes_an_executable_wrapper(tmp_path):
    path = ki.install(str(tmp_path / "home"), "/opt/fn/bin/expand-trainjobs")
    assert path == str(tmp_path / "home" / ki.relative_path())
    mode = os.stat(path).st_mode
    assert mode & stat.S_IXUSR and mode & stat.S_IXOTH
    assert "installed=/opt/fn/bin/expand-trainjobs\n" in Path(path).read_text()
    assert not list((tmp_path / "home").rglob("*.tmp"))
    # a second install replaces it
    ki.install(str(tmp_path / "home"), None)
    assert Path(path).read_text() == ki.wrapper(None)


def _sh(script: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(["/bin/sh", str(script), "config.yaml"], env=env, capture_output=True, text=True, timeout=30)


def test_the_wrapper_runs_the_installed_executable_when_none_is_on_path(tmp_path):
    fake = tmp_path / "bin-elsewhere" / "expand-trainjobs"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\necho "ran $*"\n')
    fake.chmod(0o755)
    path = ki.install(str(tmp_path / "home"), str(fake))
    done = _sh(Path(path), {"PATH": "/usr/bin:/bin"})
    assert (done.returncode, done.stdout) == (0, "ran kustomize-plugin config.yaml\n")


def test_the_wrapper_names_what_is_missing(tmp_path):
    path = ki.install(str(tmp_path / "home"), str(tmp_path / "gone" / "expand-trainjobs"))
    done = _sh(Path(path), {"PATH": "/usr/bin:/bin"})
    assert done.returncode == 127
    assert "expand-trainjobs is not on PATH" in done.stderr and "gone/expand-trainjobs is gone" in done.stderr
    assert f"git+{kpt_fn.REPOSITORY}@v{kpt_fn.__version__}" in done.stderr


def test_expand_trainjobs_variable_wins(tmp_path):
    fake = tmp_path / "chosen"
    fake.write_text('#!/bin/sh\necho chosen\n')
    fake.chmod(0o755)
    path = ki.install(str(tmp_path / "home"), None)
    done = _sh(Path(path), {"PATH": "/usr/bin:/bin", "EXPAND_TRAINJOBS": str(fake)})
    assert done.stdout == "chosen\n"


def test_this_executable_is_the_running_console_script(tmp_path):
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    script = bin_dir / "expand-trainjobs"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    python = str(bin_dir / "python")
    assert ki.this_executable(str(script), "/usr/bin/python3") == str(script)
    assert ki.this_executable(str(tmp_path / "kpt_fn" / "__main__.py"), python) == str(script)
    assert ki.this_executable("-m", "/usr/bin/python-without-script") is None
