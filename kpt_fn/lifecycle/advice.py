"""What works when the cluster refuses a change of an existing JobSet, per client (docs/lifecycle.md,
"Change a run"): the advice `expand-trainjobs diff` gives with each refused change (classify).

A JobSet's `spec.replicatedJobs` cannot change once it is created, running or finished alike
(jobset_update): the only way to a JobSet with the new spec is a new JobSet, which trains again from
the start. What each client offers for that, read from its source (and emulated in
tests/lifecycle/cluster.py, proved in tests/lifecycle/test_restart.py):

* kubectl: `kubectl delete`, then the usual apply. `kubectl apply --force` (client-side only: kubectl
  refuses `--force` with `--server-side`, k8s.io/kubectl v0.36.1 pkg/cmd/apply/apply.go :401) deletes
  and re-creates an object whose patch is refused as 409 Conflict or 422 Invalid (patcher.go :394),
  which is how the JobSet webhook refuses (jobset v0.12.0 pkg/webhooks/jobset_webhook.go :402).
* Argo CD (argo-cd v3.5.1 gitops-engine/pkg/sync/sync_context.go applyObject :1400-1439):
  `Force=true` is that `kubectl apply --force` (resource_ops.go :459): an edit the cluster refuses
  re-creates the JobSet, an unchanged re-sync sends no patch and changes nothing; under server-side
  apply (the Kueue profile's JobSets) it does nothing (apply.go :575-610 never reaches the patcher).
  `Replace=true` alone is `kubectl replace`, an update the webhook refuses the same way.
  `Force=true,Replace=true` is `kubectl replace --force` (resource_ops.go :592-596, replace.go :264):
  a delete and a create on every sync that applies the object, edited or not. `argocd app sync
  --force` / `--replace` set the same for one sync (cmd/argocd/commands/app.go :1959, :1993), and
  `--resource` keeps it to one object.
* kpt: `kpt live apply` has no re-create; delete the JobSet, then apply.
* `jobSetNames: contentHash` (naming): an edit renders a JobSet of another name, so every route
  creates it and prunes the old one.
"""

from __future__ import annotations

JOBSET_RESOURCE = "jobset.jobset.x-k8s.io"


def routes(key: str, server_side: bool = False) -> list:
    """[{"client", "do"}] for JobSet `key` ("namespace/name" or "name"); `server_side`: Argo CD applies
    the JobSet server-side (its ServerSideApply=true sync option: the Kueue profile)."""
    namespace, _, name = key.rpartition("/")
    delete = f"`kubectl delete {JOBSET_RESOURCE} {name}" + (f" -n {namespace}`" if namespace else "`")
    if server_side:
        argocd = ("`argocd app delete-resource APP --group jobset.x-k8s.io --kind JobSet --resource-name "
                  f"{name}" + (f" --namespace {namespace}`" if namespace else "`") + ", then sync (this JobSet "
                  "is applied server-side, where the `Force=true` sync option and `argocd app sync --force` do "
                  "nothing)")
    else:
        argocd = (f"`argocd app sync APP --force --resource jobset.x-k8s.io:JobSet:{key}` (this once: the refused "
                  "patch becomes a delete and a create); or the `Force=true` sync option on the JobSet, so that "
                  "every edit the cluster refuses re-creates it, while an unchanged sync changes nothing")
    return [
        {"client": "kubectl", "do": f"{delete}, then apply as before; or `kubectl apply --force` (client-side), "
                                    "which deletes and re-creates each object whose change is refused"},
        {"client": "Argo CD", "do": argocd + "; not `Replace=true` alone (a `kubectl replace`, refused the same "
                                    "way), nor `Force=true,Replace=true`, which deletes and re-creates the JobSet "
                                    "on every sync that applies it, edited or not: a re-run on every sync"},
        {"client": "kpt", "do": f"{delete}, then `kpt live apply` (kpt has no re-create of its own)"},
        {"client": "any", "do": "render with `jobSetNames: contentHash`: every edit gives the JobSet a new name, "
                                "the sync creates it and prunes the old one"},
    ]


def summary(key: str) -> str:
    """One line: what every route costs and where the routes are (the `remedy` of diff's JSON)."""
    return (f"JobSet {key} must be created anew from the new spec, running or finished: the run starts again "
            "from the beginning; delete it before the sync, or let the client re-create it, or render with "
            "`jobSetNames: contentHash` (docs/lifecycle.md, \"Change a run\")")
