"""What the function renders for a JobSet's life after the first sync (docs/lifecycle.md).

* `finish`: every generated JobSet carries the values the cluster adds when it creates one
  (jobset_defaults.create_defaults), so that what is applied again equals what is live and no client
  sends a change the JobSet webhook refuses. Under `profile: kueue` (its `created` hook) the JobSet also asks Argo CD for a
  server-side apply (`argocd.argoproj.io/sync-options: ServerSideApply=true`, Argo CD's per-resource
  sync option, kpt_fn.argocd.with_sync_option): Kueue's admission changes the pod templates of a running JobSet, which a client-side
  apply's JSON merge patch would take back (refused), while a server-side apply leaves fields it does
  not set to their owner.
* `expand`: the `jobSetNames: contentHash` naming mode (naming.py).
"""

from __future__ import annotations

from kpt_fn import resource as res
from kpt_fn.lifecycle import jobset_defaults, naming


def finish(objects: list, created, bundle) -> list:
    """The generated objects as the function writes them: JobSets in their created form, as the JobSet
    release of `bundle`'s Trainer release creates them, then as the output profile wants them
    (`created`: its Profile.created, e.g. the Kueue profile's server-side apply). The JobSets are
    defaulted in place: they are the render's own, just made by the engine."""
    out = []
    for obj in objects:
        if isinstance(obj, dict) and obj.get("kind") == "JobSet" and res.api_group(obj) == "jobset.x-k8s.io":
            obj = created(jobset_defaults.default_created(obj, bundle))  # the render's own object: no copy
        out.append(obj)
    return out


def expand(trainjob: dict, rename, names: str, expand_one):
    """(the TrainJob as rendered, its expansion). `rename` is what a kustomize generator's
    kustomization does to the name (identity otherwise); `expand_one(trainjob)` runs the engine."""
    rendered = rename(trainjob)
    expansion = expand_one(rendered)
    if names != naming.CONTENT_HASH or any(p.severity == "error" for p in expansion.problems):
        return rendered, expansion
    hashed = rename(naming.renamed(trainjob, naming.content_hash(expansion.objects)))
    return hashed, expand_one(hashed)
