"""kpt_fn.lifecycle.advice: what works for a change the cluster refuses, per client. The texts are
pinned whole (golden): each route they name is proved in tests/lifecycle/test_restart.py."""

from __future__ import annotations

from kpt_fn.lifecycle import advice


def test_the_routes_for_a_client_side_applied_jobset():
    assert advice.routes("ml/bert") == [
        {"client": "kubectl",
         "do": "`kubectl delete jobset.jobset.x-k8s.io bert -n ml`, then apply as before; or `kubectl apply --force` "
               "(client-side), which deletes and re-creates each object whose change is refused"},
        {"client": "Argo CD",
         "do": "`argocd app sync APP --force --resource jobset.x-k8s.io:JobSet:ml/bert` (this once: the refused patch "
               "becomes a delete and a create); or the `Force=true` sync option on the JobSet, so that every edit the "
               "cluster refuses re-creates it, while an unchanged sync changes nothing; not `Replace=true` alone (a "
               "`kubectl replace`, refused the same way), nor `Force=true,Replace=true`, which deletes and re-creates "
               "the JobSet on every sync that applies it, edited or not: a re-run on every sync"},
        {"client": "kpt", "do": "`kubectl delete jobset.jobset.x-k8s.io bert -n ml`, then `kpt live apply` (kpt has no "
                                "re-create of its own)"},
        {"client": "any", "do": "render with `jobSetNames: contentHash`: every edit gives the JobSet a new name, the "
                                "sync creates it and prunes the old one"},
    ]


def test_a_server_side_applied_jobset_is_deleted_through_argocd():
    (argocd,) = [r for r in advice.routes("ml/bert", server_side=True) if r["client"] == "Argo CD"]
    assert argocd["do"].startswith(
        "`argocd app delete-resource APP --group jobset.x-k8s.io --kind JobSet --resource-name bert --namespace ml`, "
        "then sync (this JobSet is applied server-side, where the `Force=true` sync option and `argocd app sync "
        "--force` do nothing); not `Replace=true` alone")


def test_without_a_namespace_no_namespace_flag():
    kubectl = advice.routes("bert")[0]["do"]
    assert kubectl.startswith("`kubectl delete jobset.jobset.x-k8s.io bert`, then")
    assert "--namespace" not in advice.routes("bert", server_side=True)[1]["do"]


def test_the_summary():
    assert advice.summary("ml/bert") == (
        "JobSet ml/bert must be created anew from the new spec, running or finished: the run starts again from "
        "the beginning; delete it before the sync, or let the client re-create it, or render with "
        "`jobSetNames: contentHash` (docs/lifecycle.md, \"Change a run\")")
