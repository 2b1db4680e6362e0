"""The writer of `argocd-kueue-patch`: the Application fields (kpt_fn.argocd.kueue_patch) as YAML."""

from __future__ import annotations

from kpt_fn.yamlio import dump


def to_yaml(data: dict) -> str:
    return dump(data)
