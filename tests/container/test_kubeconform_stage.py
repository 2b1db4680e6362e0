"""The optional kubeconform stage of the Dockerfile, without the internet: a local server stands in
for the GitHub releases (KUBECONFORM_RELEASES). The pinned checksum must reject anything else, and a
download matching the checksum must land where the final stage copies it from."""

from __future__ import annotations

import functools
import hashlib
import http.server
import io
import re
import shutil
import tarfile
import threading

import pytest

from container import engine

pytestmark = pytest.mark.container

VERSION = re.search(r"^ARG KUBECONFORM_VERSION=(\S+)$", (engine.ROOT / "Dockerfile").read_text(), re.M).group(1)
PINNED = re.search(r"^ARG KUBECONFORM_SHA256_AMD64=(\S+)$", (engine.ROOT / "Dockerfile").read_text(), re.M).group(1)


@pytest.fixture
def releases(tmp_path):
    """A server holding a fake `kubeconform-linux-amd64.tar.gz`; yields (base URL, its sha256)."""
    script = b"#!/bin/sh\necho fake kubeconform\n"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        info = tarfile.TarInfo("kubeconform")
        info.size, info.mode = len(script), 0o755
        tar.addfile(info, io.BytesIO(script))
    d = tmp_path / "releases" / VERSION
    d.mkdir(parents=True)
    (d / "kubeconform-linux-amd64.tar.gz").write_bytes(buf.getvalue())
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path / "releases"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", hashlib.sha256(buf.getvalue()).hexdigest()
    server.shutdown()


def build_stage(env, base, tmp_path, tag, *build_args):
    ctx = tmp_path / "ctx"
    ctx.mkdir(exist_ok=True)
    shutil.copy(engine.ROOT / "Dockerfile", ctx / "Dockerfile")
    argv = ["podman", "build", "--pull=never", "--target", "kubeconform-yes", "--build-arg", f"BASE={base}",
            "--build-arg", "TARGETARCH=amd64", "-t", tag]
    for a in build_args:
        argv += ["--build-arg", a]
    return engine.run([*argv, ctx], env=env, check=False, timeout=600)


def test_pinned_checksum_rejects_another_download(engine_ready, image, releases, tmp_path):
    url, _ = releases
    p = build_stage(engine_ready, engine.base_ref(), tmp_path, "localhost/expand-trainjobs-kubeconform:rejected",
                    f"KUBECONFORM_RELEASES={url}")
    assert p.returncode != 0, p.stdout[-2000:]
    assert "FAILED" in p.stdout + p.stderr  # sha256sum -c
    assert len(PINNED) == 64


def test_download_matching_the_checksum_is_installed(engine_ready, image, releases, tmp_path):
    url, sha = releases
    tag = "localhost/expand-trainjobs-kubeconform:accepted"
    p = build_stage(engine_ready, engine.base_ref(), tmp_path, tag, f"KUBECONFORM_RELEASES={url}", f"KUBECONFORM_SHA256_AMD64={sha}")
    assert p.returncode == 0, p.stderr[-3000:]
    try:
        out = engine.run(["podman", "run", "--rm", "--network", "none", "--entrypoint", "/out/kubeconform", tag], env=engine_ready)
        assert out.stdout == "fake kubeconform\n"
    finally:
        engine.run(["podman", "rmi", "--force", tag], env=engine_ready, check=False)
