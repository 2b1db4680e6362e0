"""A cluster of one namespace, just enough to follow a rendered JobSet through its syncs.

The API server (create: Kueue's (kueue_webhook) and JobSet's mutating webhooks on CREATE, CRD defaults; update: CRD
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
  and pruning of the app's objects no longer rendered. `Replace=true` and `Force=true` (the object's
  sync options, or the whole sync's: `argocd app sync --replace` / `--force`) as gitops-engine's
  applyObject decides (argo-cd v3.5.1 `gitops-engine/pkg/sync/sync_context.go` :1400-1439): Replace on
  a live object is `kubectl replace`, with Force `kubectl replace --force` (a delete and a create,
  `pkg/utils/kube/resource_ops.go` :293-300 and :592-596); Force alone is `kubectl apply --force`
  (resource_ops.go :459), which k8s.io/kubectl v0.36.1 `pkg/cmd/apply/patcher.go` :394 turns into a
  delete and a create when the patch is refused as 409 Conflict or 422 Invalid -- what the JobSet
  webhook answers (jobset v0.12.0 `pkg/webhooks/jobset_webhook.go` :402 NewInvalid, passed on by
  controller-runtime v0.24.0 `pkg/webhook/admission/validator_custom.go` :145-147 and the API server's
  `admission/plugin/webhook/errors/statuserror.go` ToStatusErr with its code). A server-side apply
  never goes through that patcher (k8s.io/kubectl apply.go :575-610): Force does nothing there.
* `finish_run` -- the JobSet controller marks a JobSet finished (status only: its spec is as
  strict as a running one's, ValidateUpdate does not look at the status).
* `kueue_admit` -- Kueue's admission as an Update by its manager (kueue_admission).
"""

from __future__ import annotations

import copy
import json

from kpt_fn import upstream
from kpt_fn.lifecycle import jobset_defaults, jobset_update
from kpt_fn.profiles.kueue_names import QUEUE_LABEL

from lifecycle import kueue_admission, kueue_webhook, mergepatch, ssa

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
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
    def __init__(self, kueue: bool = False, trainer_version: str | None = None,
                 kueue_config: kueue_webhook.KueueConfig | None = None):
        self.objects: dict[tuple, dict] = {}
        self.managed: dict[tuple, ssa.Managed] = {}
        self.deleted: list[tuple] = []  # every delete, in order (a JobSet deleted and created again: a re-run)
        self.kueue = kueue  # Kueue's webhooks and controller are installed, with its JobSet integration
        self.kueue_config = kueue_config or kueue_webhook.KueueConfig(jobset_integration=kueue)
        # The Trainer release installed, and with it the JobSet release whose webhooks and CRD run here.
        self.bundle = upstream.bundle(trainer_version or upstream.DEFAULT_RELEASE)

    # --- the API server ---------------------------------------------------------------------------

    def _admit_create(self, obj: dict) -> dict:
        obj = copy.deepcopy(obj)
        if _is_jobset(obj):
            obj = kueue_webhook.default_on_create(obj, self.kueue_config)  # Kueue's JobSet webhook (CREATE only)
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
        self.deleted.append(key)

    def replace(self, manifest: dict, manager: str = "kubectl-replace", force: bool = False) -> str:
        """`kubectl replace [--force]`: a PUT of the whole object (refused as any update), or with
        `--force` a delete and a create (k8s.io/kubectl v0.36.1 pkg/cmd/replace/replace.go :264,
        forceReplace :315)."""
        key = _key(manifest)
        if key not in self.objects:
            return self.create(manifest, manager)
        if force:
            self.delete(key)
            self.create(manifest, manager)
            return "replaced"
        new = copy.deepcopy(manifest)
        if "status" in self.objects[key]:  # a PUT of the object leaves its status subresource alone
            new["status"] = copy.deepcopy(self.objects[key]["status"])
        return self.update(new, manager)

    # --- clients ------------------------------------------------------------------------------------

    def client_side_apply(self, manifest: dict, manager: str = "kubectl-client-side-apply", force: bool = False) -> str:
        """`kubectl apply`; `force`: `--force`, a refused patch becomes a delete and a create."""
        try:
            return self._client_side_apply(manifest, manager)
        except Refused:
            if not force:
                raise
        self.delete(_key(manifest))
        self._client_side_apply(manifest, manager)
        return "recreated"

    def _client_side_apply(self, manifest: dict, manager: str) -> str:
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

    def argocd_sync(self, manifests: list, server_side: bool = False, ignore: tuple = (), prune: bool = True,
                    force: bool = False, replace: bool = False, resources: tuple | None = None) -> dict:
        """One Argo CD sync of an app: {object name: result}. `ignore`: paths (tuples of keys) under
        ignoreDifferences with RespectIgnoreDifferences=true. `force` / `replace`: `argocd app sync
        --force` / `--replace` (every object of this sync); `resources`: `--resource`, the names of
        the only objects synced (and then nothing is pruned)."""
        results = {}
        for manifest in manifests:
            target = copy.deepcopy(manifest)
            if resources is not None and target["metadata"]["name"] not in resources:
                continue
            live = self.objects.get(_key(target))
            if live is not None:
                for path in ignore:
                    _copy_path(live, target, path)
            options = _sync_options(target) | _sync_options(live or {})
            name = target["metadata"]["name"]
            forced = force or "Force=true" in options
            if replace or "Replace=true" in options:
                results[name] = self.replace(target, "argocd-controller", force=forced)
            elif server_side or "ServerSideApply=true" in options:
                results[name] = self.server_side_apply(target, "argocd-controller", force=True)
            else:
                results[name] = self.client_side_apply(target, "argocd-controller", force=forced)
        prune = prune and resources is None
        if prune:
            rendered = {_key(m) for m in manifests}
            for key in [k for k in self.objects if k not in rendered]:
                self.delete(key)
                results[key[1]] = "pruned"
        return results

    # --- controllers --------------------------------------------------------------------------------

    def finish_run(self, name: str) -> None:
        """The JobSet controller's terminal state (status only; pkg/controllers/jobset_controller.go)."""
        live = self.objects[("JobSet", name)]
        live["status"] = {"terminalState": "Completed", "conditions": [{"type": "Completed", "status": "True"}]}

    def kueue_admit(self, name: str, infos: list) -> str:
        live = self.objects[("JobSet", name)]
        return self.update(kueue_admission.admit(live, infos), "kueue")


def _sync_options(obj: dict) -> set:
    """The object's Argo CD sync options (a comma-separated annotation: resourceutil.HasAnnotationOption)."""
    value = ((obj.get("metadata") or {}).get("annotations") or {}).get(SYNC_OPTIONS, "")
    return {o.strip() for o in value.split(",") if o.strip()}


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
