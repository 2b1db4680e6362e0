"""What `expand-trainjobs --version` says: the package version and every upstream release it renders
for, read from the release bundles' manifests (kpt_fn/upstream/v<release>/manifest.json: the Trainer
release, the JobSet release it pins, the k8s.io/api module its Go types come from) and from
kpt_fn.profiles.kueue_names.RELEASE, so that no release is typed here a second time.
"""

from __future__ import annotations

from kpt_fn import REPOSITORY, __version__, upstream


def kubernetes_release(api_module: str) -> str:
    """The Kubernetes release of a k8s.io/api module version: v0.36.2 -> v1.36.2 (the staging modules
    are tagged v0.X.Y for Kubernetes v1.X.Y)."""
    if not api_module.startswith("v0."):
        raise ValueError(f"not a k8s.io/api module version: {api_module!r}")
    return "v1." + api_module[len("v0."):]


def releases() -> list[dict]:
    """One entry per Trainer release a bundle exists for, the default first."""
    from kpt_fn.profiles import kueue_names

    ordered = [upstream.DEFAULT_RELEASE, *(r for r in reversed(upstream.RELEASES) if r != upstream.DEFAULT_RELEASE)]
    out = []
    for release in ordered:
        b = upstream.bundle(release)
        out.append({"trainer": b.fact("release"), "default": release == upstream.DEFAULT_RELEASE,
                    "jobset": b.jobset_release, "kubernetes": kubernetes_release(b.fact("kubernetes")),
                    "kueue": kueue_names.RELEASE})
    return out


def version_text() -> str:
    lines = [f"expand-trainjobs, version {__version__}", f"{REPOSITORY} (tag v{__version__})", "renders for:"]
    for r in releases():
        default = " (default)" if r["default"] else " (--trainer-version)"
        lines.append(f"  Kubeflow Trainer {r['trainer']}{default}: JobSet {r['jobset']}, "
                     f"Kubernetes {r['kubernetes']}, Kueue {r['kueue']}")
    return "\n".join(lines)
