"""A cluster of one namespace, just enough to follow a rendered JobSet through its syncs.

The API server (create: Kueue's and JobSet's mutating webhooks on CREATE, CRD defaults; update: CRD
defaults, the CRD's `self == oldSelf` rules and the JobSet webhook's ValidateUpdate, kpt_fn.lifecycle)
and the routes that apply to it, each as its upstream client does:

* `client_side_apply` -- `kubectl apply` (k8s.io/kubectl `pkg/cmd/apply/apply.go` and `patcher.go`):
  the last-applied-configuration annotation is the original, the three-way JSON merge patch
  (mergepatch.three_way) is sent unless empty ("unchanged"). Argo CD's default sync runs exactly this
  (gitops-engine `pkg/utils/kube/resource_ops.go` ApplyResource builds kubectl's ApplyOptions), and so
  does `kpt live apply` (cli-utils' apply task uses kubectl's ApplyOptions).
* `server_side_apply` -- `kubectl apply --server-side`, `kpt live apply --server-side`, and Argo CD with
  `ServerSideApply=true`, which forces conflicts (resource_ops.go :460 `o.ForceConflicts =
  serverSideApply`, Argo CD v3.5.1), field manager `argocd-controller`.
* `argocd_sync` -- every object of the app applied on each sync (no ApplyOutOfSyncOnly), with the app's
  or the object's `ServerSideApply=true`, `RespectIgnoreDifferences` for ignored paths (controller/
  sync.go normalizeTargetResources :421: the live value of an ignored field is put into the target),
  and pruning of the app's objects no longer rendered.
* `kueue_admit` -- Kueue's admission as an Update by its manager (kueue_admission).
"""

from __future__ import annotations

import copy
import json

from kpt_fn import upstream
from kpt_fn.lifecycle import jobset_defaults, jobset_update

from lifecycle import kueue_admission, mergepatch, ssa

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
SYNC_OPTIONS = "argocd.argoproj.io/sync-options"


class Refused(Exception):
    """The API server answered 422 Invalid (or 409 Conflict for an apply conflict)."""

    def __init__(self, name: str, reasons: list):
        super().__init__(f"JobSet {name}: " + "; ".join(f"{r.path}: {r.message}" for r in reasons))
        self.reasons = reasons


def _key(obj: dict) -> tuple:
    return obj["kind"], obj["metadata"]["name"]


def _is_jobset(obj: dict) -> bool:
    return obj.get("kind") == "JobSet"


class Cluster:
    def __init__(self, kueue: bool = False, trainer_version: str | None = None):
        self.objects: dict[tuple, dict] = {}
        self.managed: dict[tuple, ssa.Managed] = {}
        self.kueue = kueue  # Kueue's webhooks and controller are installed
        # The Trainer release installed, and with it the JobSet release whose webhooks and CRD run here.
        self.bundle = upstream.bundle(trainer_version)

    # --- the API server ---------------------------------------------------------------------------

    def _admit_create(self, obj: dict) -> dict:
        obj = copy.deepcopy(obj)
        if _is_jobset(obj):
            if self.kueue and (obj["metadata"].get("labels") or {}).get(QUEUE_LABEL):
                obj["spec"]["suspend"] = True  # Kueue's webhook: jobframework.ApplyDefaultForSuspend
            obj = jobset_defaults.create_defaults(obj, self.bundle)
        return obj

    def create(self, obj: dict, manager: str, via_apply: dict | None = None) -> str:
        key = _key(obj)
        managed = self.managed[key] = ssa.Managed()
        if via_apply is not None:
            ssa.apply({}, via_apply, manager, managed)
        stored = self._admit_create(obj)
        # What the webhooks added is the request's manager's (as an Update: an Apply owns only its config).
        ssa.update(via_apply if via_apply is not None else {}, stored, manager, managed)
        self.objects[key] = stored
        return "created"

    def update(self, new: dict, manager: str) -> str:
        key = _key(new)
        live = self.objects[key]
        if _is_jobset(new):
            new = jobset_defaults.crd_defaults(new, self.bundle)
            reasons = jobset_update.refusals(live, new, self.bundle)
            if reasons:
                raise Refused(key[1], reasons)
        if new == live:
            return "unchanged"
        ssa.update(live, new, manager, self.managed[key])
        self.objects[key] = new
        return "configured"

    def delete(self, key: tuple) -> None:
        self.objects.pop(key, None)
        self.managed.pop(key, None)

    # --- clients ------------------------------------------------------------------------------------

    def client_side_apply(self, manifest: dict, manager: str = "kubectl-client-side-apply") -> str:
        manifest = copy.deepcopy(manifest)
        annotations = manifest["metadata"].setdefault("annotations", {})
        annotations.pop(LAST_APPLIED, None)
        if not annotations:
            del manifest["metadata"]["annotations"]
        modified = copy.deepcopy(manifest)
        modified["metadata"].setdefault("annotations", {})[LAST_APPLIED] = json.dumps(manifest, sort_keys=True)
        live = self.objects.get(_key(manifest))
        if live is None:
            return self.create(modified, manager)
        original = json.loads((live["metadata"].get("annotations") or {}).get(LAST_APPLIED) or "{}")
        patch = mergepatch.three_way(original, modified, live)
        if not patch:
            return "unchanged"
        return self.update(mergepatch.merge_patch(live, patch), manager)

    def server_side_apply(self, manifest: dict, manager: str = "kubectl", force: bool = False) -> str:
        key = _key(manifest)
        live = self.objects.get(key)
        if live is None:
            return self.create(manifest, manager, via_apply=manifest)
        try:
            new = ssa.apply(live, manifest, manager, self.managed[key], force=force)
        except ssa.ApplyConflict as err:
            raise Refused(key[1], [jobset_update.Refusal(p, f"conflict with {m}", "ssa/conflict") for p, m in err.fields]) from None
        return self.update(new, manager)

    def argocd_sync(self, manifests: list, server_side: bool = False, ignore: tuple = (), prune: bool = True) -> dict:
        """One Argo CD sync of an app: {object name: result}. `ignore`: paths (tuples of keys) under
        ignoreDifferences with RespectIgnoreDifferences=true."""
        results = {}
        for manifest in manifests:
            target = copy.deepcopy(manifest)
            live = self.objects.get(_key(target))
            if live is not None:
                for path in ignore:
                    _copy_path(live, target, path)
            options = (target["metadata"].get("annotations") or {}).get(SYNC_OPTIONS, "")
            if server_side or "ServerSideApply=true" in options:
                results[target["metadata"]["name"]] = self.server_side_apply(target, "argocd-controller", force=True)
            else:
                results[target["metadata"]["name"]] = self.client_side_apply(target, "argocd-controller")
        if prune:
            rendered = {_key(m) for m in manifests}
            for key in [k for k in self.objects if k not in rendered]:
                self.delete(key)
                results[key[1]] = "pruned"
        return results

    # --- controllers --------------------------------------------------------------------------------

    def kueue_admit(self, name: str, infos: list) -> str:
        live = self.objects[("JobSet", name)]
        return self.update(kueue_admission.admit(live, infos), "kueue")


def _copy_path(source: dict, target: dict, path: tuple) -> None:
    value = source
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    holder = target
    for part in path[:-1]:
        holder = holder.setdefault(part, {})
    if value is None:
        holder.pop(path[-1], None)
    else:
        holder[path[-1]] = copy.deepcopy(value)
