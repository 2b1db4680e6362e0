"""kpt_fn.about: what `expand-trainjobs --version` says, read from the bundles, never typed twice."""

from __future__ import annotations

import json
import os

import pytest

import kpt_fn
from kpt_fn import about, upstream
from kpt_fn.profiles import kueue_names


def test_kubernetes_release_of_the_api_module():
    assert about.kubernetes_release("v0.36.2") == "v1.36.2"
    assert about.kubernetes_release("v0.30.0-rc.1") == "v1.30.0-rc.1"
    with pytest.raises(ValueError, match="k8s.io/api"):
        about.kubernetes_release("v1.36.2")


def test_every_bundle_is_named_the_default_first():
    releases = about.releases()
    assert [r["trainer"] for r in releases][0] == upstream.DEFAULT_RELEASE
    assert sorted(r["trainer"] for r in releases) == sorted(upstream.RELEASES)
    assert [r["default"] for r in releases] == [True] + [False] * (len(releases) - 1)
    for r in releases:
        manifest = json.loads(open(os.path.join(upstream.bundle_dir(r["trainer"]), "manifest.json")).read())
        assert r["jobset"] == manifest["facts"]["jobset"]
        assert r["kubernetes"] == "v1." + manifest["facts"]["kubernetes"].removeprefix("v0.")
        assert r["kueue"] == kueue_names.RELEASE


def test_version_text_names_the_package_and_each_release():
    text = about.version_text()
    first, *rest = [line.strip() for line in text.splitlines()]
    assert first == f"expand-trainjobs, version {kpt_fn.__version__}"
    assert "Kubeflow Trainer v2.3.0 (default): JobSet v0.12.0, Kubernetes v1.36.2, Kueue v0.19.2" in rest
    assert "Kubeflow Trainer v2.2.1 (--trainer-version): JobSet v0.11.1, Kubernetes v1.36.0, Kueue v0.19.2" in rest
