"""What the image's venv holds: the function and its dependencies, nothing that runs at every start."""

from __future__ import annotations

import pytest

from container import engine

pytestmark = pytest.mark.container

_LIST = ("import os, sys, sysconfig; site = sysconfig.get_paths()['purelib']; "
         "print(sys.prefix); print(*sorted(os.listdir(site)), sep='\\n')")


def test_the_venv_has_no_installer_and_no_start_up_hook(image, engine_ready):
    p = engine.run(["podman", "run", "--rm", "--network", "none", "--entrypoint", "/opt/fn/bin/python", image, "-c", _LIST],
                   env=engine_ready)
    prefix, *entries = p.stdout.split()
    assert prefix == "/opt/fn"
    assert "kpt_fn" in entries and "yaml" in entries
    # pip and setuptools are not needed to run; setuptools' .pth file imports a module at every start
    assert not [e for e in entries if e.split("-")[0] in ("pip", "setuptools", "_distutils_hack")]
    assert not [e for e in entries if e.endswith(".pth")]
