"""What each change `expand-trainjobs diff` shows will do in the cluster (docs/lifecycle.md, docs/review.md).

Every object of the diff gets an `effect`:

* `created` -- a new object: the next sync creates it;
* `pruned` -- no longer rendered: deleted by a sync that prunes (Argo CD `prune`, `kpt live apply`'s
  inventory), left running otherwise;
* `in-place` -- the cluster accepts the change on the existing object;
* `refused` -- the cluster refuses the change of the existing object, with the changed fields it
  refuses (`refusedFields`), the rules (`refusals`) and what the user can do (`remedy`, and for a
  JobSet per client `routes`: kpt_fn/lifecycle/advice.py):
  - a JobSet: jobset_update (the JobSet webhook's ValidateUpdate and the CRD's `self == oldSelf`
    rules) and, under `profile: kueue`, the profile's update_refusals (Kueue's webhook, profiles/kueue_update: queue name, priority class,
    maximum execution time, prebuilt workload, elastic and admission-gate annotations). When the
    change would be accepted while the JobSet is suspended (a held or queued TrainJob: pod-template
    labels, annotations, nodeSelector, tolerations and scheduling gates; Kueue's queue name),
    `whileSuspended` says so. A JobSet suspended in both renders without a Kueue queue is held in the
    cluster too: such a change is `in-place`, with `onceRunning: refused`;
  - a Secret or ConfigMap: core_update (the API server's ValidateSecretUpdate and
    ValidateConfigMapUpdate: a Secret's `type`, and the data of one stored `immutable: true`);
  - a PodGroup is never refused: neither CRD (scheduler-plugins v0.35.4-devel, Volcano v1.14.0-alpha.0,
    /work/shared/upstream) has a transition rule, scheduler-plugins registers no webhook, and Volcano's
    validating webhook for podgroups is registered for CREATE only (pkg/webhooks/admission/podgroups/
    validate/validate_podgroup.go :40-54, `Operations: Create`); its mutating webhook too.

Both renders are compared in their created form (jobset_defaults.create_defaults: what the function
renders anyway, so it changes nothing for output of this version); `suspend` is set alike in both
(running, then suspended), because an apply client leaves the live `suspend` to Kueue or the
controller that owns it.

Which JobSet release decides: the old render's JobSet was created by the JobSet release of the old
render's Trainer release (its create defaults), the update is judged by the new render's (its CRD's
defaults, which the API server also applies when it reads the stored object, its ValidateUpdate and
its CEL rules). For `diff` both are the run's release; for the upgrade preview
(`--trainer-version OLD..NEW`) they are OLD's and NEW's, the JobSet each Trainer release installs.
"""

from __future__ import annotations

from kpt_fn import argocd, upstream
from kpt_fn.lifecycle import advice, core_update, jobset_defaults, jobset_update
from kpt_fn.profiles.kueue_names import QUEUE_LABEL

CREATED, PRUNED, IN_PLACE, REFUSED = "created", "pruned", "in-place", "refused"


def _suspended(jobset: dict, value: bool) -> dict:
    return {**jobset, "spec": {**(jobset.get("spec") or {}), "suspend": value}}


def _refusals(old: dict, new: dict, suspended: bool, bundles: tuple, profile=None) -> list:
    """`bundles`: (the old render's Trainer release, the new render's). `profile`: the new render's
    profile class (kpt_fn.profiles), whose `update_refusals` judges the update too (Kueue's webhook)."""
    created, judged = bundles
    live = jobset_defaults.crd_defaults(jobset_defaults.create_defaults(old, created), judged)
    live = _suspended(live, suspended)
    applied = _suspended(jobset_defaults.create_defaults(new, judged), suspended)
    out = jobset_update.refusals(live, applied, judged)
    if profile is not None:
        out += profile.update_refusals(live, applied)
    return out


def _prefix(path: str) -> str:
    """A refusal's path in the diff's notation (list items by name: `spec.replicatedJobs.node.dependsOn`)."""
    return path.replace("[name=", ".").replace("]", "")


def _fields_under(fields: list, refusals: list) -> list:
    prefixes = [_prefix(r.path) for r in refusals]
    return [f["path"] for f in fields if any(f["path"] == p or f["path"].startswith(p + ".") for p in prefixes)]


def remedy(name: str, kind: str = "JobSet") -> str:
    if kind != "JobSet":
        return (f"delete {kind} {name} before the sync, so that it is created anew (an immutable {kind}'s data "
                "and a Secret's type cannot change), or give the changed object a new name")
    return advice.summary(name)


def _refused(key: str, fields: list, refusals: list) -> dict:
    kind, _, name = key.partition(" ")
    return {"refusedFields": _fields_under(fields, refusals) or [r.path for r in refusals],
            "refusals": [r.to_dict() for r in refusals], "remedy": remedy(name, kind)}


def _server_side(jobset: dict) -> bool:
    """Argo CD applies this JobSet server-side (the Kueue profile's sync option)."""
    return argocd.has_sync_option(jobset, argocd.SERVER_SIDE_APPLY)


def effect(key: str, old: dict | None, new: dict | None, fields: list, bundles: tuple, profile=None) -> dict:
    """The effect entry of one object of the diff (`key` is the diff's "Kind namespace/name"; `bundles`:
    the Trainer releases of the old and the new render; `profile`: the new render's)."""
    if old is None:
        return {"effect": CREATED}
    if new is None:
        return {"effect": PRUNED}
    core = core_update.refusals(old, new)
    if core is not None:
        return {"effect": REFUSED, **_refused(key, fields, core)} if core else {"effect": IN_PLACE}
    if new.get("kind") != "JobSet" or not str(new.get("apiVersion", "")).startswith("jobset.x-k8s.io/"):
        return {"effect": IN_PLACE}
    running = _refusals(old, new, False, bundles, profile)
    if not running:
        return {"effect": IN_PLACE}
    name = key.split(" ", 1)[-1]
    refused_out = {**_refused(key, fields, running), "routes": advice.routes(name, _server_side(new))}
    suspended_ok = not _refusals(old, new, True, bundles, profile)
    if suspended_ok and _held(old) and _held(new):
        # Held by the TrainJob (no Kueue resumes it): suspended in the cluster as in both renders.
        return {"effect": IN_PLACE, "whileSuspended": IN_PLACE, "onceRunning": REFUSED, **refused_out}
    return {"effect": REFUSED, **({"whileSuspended": IN_PLACE} if suspended_ok else {}), **refused_out}



def _held(jobset: dict) -> bool:
    """Rendered suspended and not Kueue's to resume: suspended in the cluster too."""
    labels = (jobset.get("metadata") or {}).get("labels") or {}
    return (jobset.get("spec") or {}).get("suspend") is True and QUEUE_LABEL not in labels


def annotate(objects: list, old: dict, new: dict, bundles: tuple, profile=None) -> list:
    """The diff's object entries with their effects; `old` / `new`: the objects by the diff's key;
    `bundles`: the Trainer releases of the old and the new render; `profile`: the new render's."""
    return [{**o, **effect(o["object"], old.get(o["object"]), new.get(o["object"]), o.get("fields") or [], bundles,
                           profile)}
            for o in objects]


def summary(jobs: list) -> dict:
    """{"refused": TrainJobs with a change the cluster refuses}."""
    return {"refused": sum(1 for j in jobs if any(o.get("effect") == REFUSED for o in j["objects"]))}


def refused(data: dict) -> bool:
    return any(o.get("effect") == REFUSED for j in data["trainJobs"] for o in j["objects"])
