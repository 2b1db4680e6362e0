"""kpt_fn.formats.patch: the Argo CD Application fields of `argocd-kueue-patch` as YAML."""

from __future__ import annotations

from kpt_fn import argocd
from kpt_fn.formats import patch
from kpt_fn.yamlio import load


def test_the_patch_is_written_as_yaml():
    assert load(patch.to_yaml(argocd.kueue_patch())) == argocd.kueue_patch()
