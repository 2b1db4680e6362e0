"""What the generators need to know about each Trainer release: where its upstream copies sit under
--upstream (../shared/upstream by default), which repository, tag and path each copy came from (for
manifest.json), and the facts read off upstream by hand.

A new release is one more Release here (its upstream copies beside the others), then
`scripts/generate.py all --release vX.Y.Z`.
"""

from __future__ import annotations

from collections import namedtuple

# A directory of upstream copies: its name under --upstream, and where its files came from (the local
# path below `local` is the upstream path below `prefix`).
Source = namedtuple("Source", "local repository tag prefix")

Release = namedtuple("Release", "name sources facts go_sources")

_SCHEDULER_PLUGINS = Source("scheduler-plugins", "kubernetes-sigs/scheduler-plugins", "v0.35.4-devel", "config/crd/bases")
_VOLCANO = Source("volcano", "volcano-sh/volcano", "v1.14.0-alpha.0", "config/crd/volcano/bases")

RELEASES = {
    "v2.2.1": Release(
        name="v2.2.1",
        sources={
            "trainer": Source("trainer-v2.2.1", "kubeflow/trainer", "v2.2.1", ""),
            "jobset": Source("jobset-v0.11.1", "kubernetes-sigs/jobset", "v0.11.1", "config/components/crd/bases"),
            # The PodGroup CRDs serve both releases (../shared/upstream/PROVENANCE.md).
            "scheduler-plugins": _SCHEDULER_PLUGINS,
            "volcano": _VOLCANO,
        },
        # trainer v2.2.1 go.mod (sigs.k8s.io/jobset v0.11.1, k8s.io/api v0.36.0)
        facts={"release": "v2.2.1", "apiVersion": "trainer.kubeflow.org/v1alpha1", "jobset": "v0.11.1",
               "kubernetes": "v0.36.0"},
        go_sources={"kubeflow+trainer": "v2.2.1", "kubernetes-sigs+jobset": "v0.11.1",
                    "kubernetes+api": "v0.36.0", "kubernetes+apimachinery": "v0.36.0"},
    ),
    "v2.3.0": Release(
        name="v2.3.0",
        sources={
            "trainer": Source("trainer", "kubeflow/trainer", "v2.3.0", ""),
            "jobset": Source("jobset", "kubernetes-sigs/jobset", "v0.12.0", "config/components/crd/bases"),
            "scheduler-plugins": _SCHEDULER_PLUGINS,
            "volcano": _VOLCANO,
        },
        # trainer v2.3.0 go.mod (sigs.k8s.io/jobset v0.12.0, k8s.io/api v0.36.2)
        facts={"release": "v2.3.0", "apiVersion": "trainer.kubeflow.org/v1alpha1", "jobset": "v0.12.0",
               "kubernetes": "v0.36.2"},
        # The Go sources the omitempty table is read from: mirror directory -> tag.
        go_sources={"kubeflow+trainer": "v2.3.0", "kubernetes-sigs+jobset": "v0.12.0",
                    "kubernetes+api": "v0.36.2", "kubernetes+apimachinery": "v0.36.2"},
    ),
}

DEFAULT = "v2.3.0"


def upstream_source(release: Release, relative: str) -> dict:
    """repository, tag and upstream path of a file given by its path under --upstream."""
    local, _, rest = relative.partition("/")
    for source in release.sources.values():
        if source.local == local:
            path = f"{source.prefix}/{rest}" if source.prefix else rest
            return {"repository": source.repository, "tag": source.tag, "path": path}
    raise KeyError(f"{relative}: not below any upstream directory of {release.name}")


def local(release: Release, logical: str, path: str = "") -> str:
    """The path under --upstream of a file of the logical source (trainer, jobset, ...)."""
    base = release.sources[logical].local
    return f"{base}/{path}" if path else base
