"""The diff's data: what changes between two expansions of an app (two revisions, two directories,
two Trainer releases), per TrainJob its objects added, removed and changed field by field, with what
each change does in the cluster (kpt_fn.lifecycle.classify), and per runtime that changed, the
TrainJobs that use it. Secret data is masked before anything is compared. The sides are read and
rendered by the command (kpt_fn.cli.modes, kpt_fn.review.sides); the writers are in kpt_fn/formats/.
"""

from __future__ import annotations

from kpt_fn import resource as res
from kpt_fn import profiles, upstream
from kpt_fn.lifecycle import classify
from kpt_fn.review.findings import counts, findings
from kpt_fn.review.report import runtime_ref


def _strip(obj: dict) -> dict:
    return res.without_client_annotations(obj) if isinstance(obj, dict) else obj


# Lists of named items whose order Kubernetes, JobSet or the container runtime honours, by the field
# that holds them: a reordering changes what runs, so it is a change. Other named lists (volumes,
# volumeMounts, ports, schedulingGates, resourceClaims, dependsOn) are sets to the cluster.
ORDERED_LISTS = frozenset({
    # `$(VAR)` expands only variables defined earlier in the list (core/v1 EnvVar.Value, types.go :2481
    # at k8s.io/api v0.36.3), and of two entries with one name the later wins.
    "env",
    # init containers run one after another, in order (core/v1 PodSpec.InitContainers, types.go :4147).
    "initContainers",
    # the kubelet starts containers in list order, and the first is kubectl's default container.
    "containers",
    # startupPolicy InOrder starts replicated jobs as listed, and JobSet's ValidateUpdate compares the
    # list as a whole (jobset.x-k8s.io_jobsets.yaml :9491 at v0.12.0; lifecycle/jobset_update.py).
    "replicatedJobs",
})
# JobSet evaluates its failure policy rules in order, and only the first that matches acts
# (jobset.x-k8s.io_jobsets.yaml :114-119 at v0.12.0).
ORDERED_PATHS = ("failurePolicy.rules",)


def _ordered(path: str) -> bool:
    return path.rsplit(".", 1)[-1] in ORDERED_LISTS or path.endswith(ORDERED_PATHS)


def field_changes(old, new, path: str = "") -> list[tuple[str, object, object]]:
    """[(path, old, new)]: fields added (old None), removed (new None) or changed. Lists of named items
    are matched by name, so an env var is named, not numbered. In a list whose order the cluster
    honours (ORDERED_LISTS) a reordering is a change too: the list's own path, with its names in the
    old and the new order; elsewhere a reordering is not a change."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for k in list(old) + [k for k in new if k not in old]:
            sub = f"{path}.{k}" if path else str(k)
            if k not in new:
                out.append((sub, old[k], None))
            elif k not in old:
                out.append((sub, None, new[k]))
            else:
                out += field_changes(old[k], new[k], sub)
        return out
    if isinstance(old, list) and isinstance(new, list):
        named = all(isinstance(x, dict) and "name" in x for x in old + new)
        if named and len({x["name"] for x in old}) == len(old) and len({x["name"] for x in new}) == len(new):
            out = field_changes({x["name"]: x for x in old}, {x["name"]: x for x in new}, path)
            before, after = [x["name"] for x in old], [x["name"] for x in new]
            common = set(before) & set(after)
            if _ordered(path) and [n for n in before if n in common] != [n for n in after if n in common]:
                out.insert(0, (path, before, after))
            return out
        if len(old) == len(new):
            out = []
            for i, (a, b) in enumerate(zip(old, new)):
                out += field_changes(a, b, f"{path}[{i}]")
            return out
    return [] if old == new else [(path, old, new)]


def _runtimes(outcome) -> dict:
    """The runtimes of a side: those among its items, and those its TrainJobs were expanded against
    that were read from a file elsewhere (runtimeDirs: a monorepo's shared runtimes), not the
    built-in catalog's (they change with the Trainer release, which the TrainJobs' changes show)."""
    out = {res.display(i): _strip(i) for i in outcome.items if isinstance(i, dict) and res.is_runtime(i)}
    for r in outcome.rendered:
        if isinstance(r.runtime, dict) and res.is_runtime(r.runtime) and res.file_path(r.runtime):
            out.setdefault(res.display(r.runtime), _strip(r.runtime))
    return out


# What kubectl diff and Argo CD show for Secret data: that a value changed, never the value.
MASKED, MASKED_BEFORE, MASKED_AFTER = "***", "*** (before)", "*** (after)"
_SECRET_FIELDS = ("data", "stringData")


def _secret(obj) -> bool:
    return isinstance(obj, dict) and obj.get("kind") == "Secret" and res.api_group(obj) == ""


def _masked(obj, other, changed_mark: str):
    if not _secret(obj):
        return obj
    obj = dict(obj)
    for field in _SECRET_FIELDS:
        values = obj.get(field)
        if values is None:
            continue
        if not isinstance(values, dict):
            obj[field] = MASKED
            continue
        others = other.get(field) if _secret(other) else None
        others = others if isinstance(others, dict) else {}
        obj[field] = {k: changed_mark if k in others and others[k] != v else MASKED for k, v in values.items()}
    return obj


def mask_secrets(old: dict | None, new: dict | None) -> tuple:
    """The two sides of one object with every value of a Secret's data and stringData replaced: the
    same mark on both sides when the value is the same, `*** (before)` and `*** (after)` when it
    changed (kubectl diff's marks). Other kinds are returned as they are."""
    return _masked(old, new, MASKED_BEFORE), _masked(new, old, MASKED_AFTER)


def _object_change(key: str, old: dict | None, new: dict | None) -> dict | None:
    """One object's entry of the diff (None when it did not change). The place for anything more to
    say about one object's change (e.g. whether the cluster would take it as an update)."""
    old, new = mask_secrets(old, new)
    if old is None:
        return {"object": key, "change": "added"}
    if new is None:
        return {"object": key, "change": "removed"}
    fields = field_changes(old, new)
    if not fields:
        return None
    return {"object": key, "change": "changed", "fields": [{"path": p, "old": o, "new": n} for p, o, n in fields]}


def _by_trainjob(outcome) -> dict:
    return {f"{res.namespace(e.origin) or ''}/{res.name(e.origin)}".lstrip("/"): e for e in outcome.rendered}


def _objects(entry) -> dict:
    """{`Kind ns/name`: object} of a TrainJob's rendered objects, as compared."""
    return {res.display(o): _strip(o) for o in (entry.objects if entry else ()) if isinstance(o, dict)}


def diff(old_outcome, new_outcome, old_root: str | None = None, new_root: str | None = None) -> dict:
    """What changes between two expansions: per TrainJob, its objects added, removed and changed
    field by field (and its findings at NEW); per runtime that changed, how many TrainJobs use it and
    which of them render differently. A TrainJob that NEW cannot render is `failed`, with its reason,
    not `removed`."""
    old_jobs, new_jobs = _by_trainjob(old_outcome), _by_trainjob(new_outcome)
    # The JobSet release each render's Trainer release pairs with decides what the cluster refuses.
    bundles = (upstream.bundle(old_outcome.config.trainerVersion), upstream.bundle(new_outcome.config.trainerVersion))
    new_findings, general = findings(new_outcome, new_root)
    jobs = []
    for name in sorted(set(old_jobs) | set(new_jobs)):
        a, b = old_jobs.get(name), new_jobs.get(name)
        found = new_findings.get(id(b), []) if b is not None else []
        failed = b is not None and not b.objects and counts(found)["errors"] > 0
        state = "failed" if failed else "added" if a is None else "removed" if b is None else None
        objs_a, objs_b = _objects(a), _objects(b)
        objects = []
        if not failed:
            for key in sorted(set(objs_a) | set(objs_b)):
                change = _object_change(key, objs_a.get(key), objs_b.get(key))
                if change is not None:
                    objects.append(change)
            # what each change does in the cluster (Kueue's webhook judges too under the new render's profile)
            objects = classify.annotate(objects, objs_a, objs_b, bundles, profiles.named(new_outcome.config.profile))
        if state or objects:
            entry = {"trainJob": name, "change": state or "changed", "objects": objects, "findings": found}
            if b is not None:
                entry["runtime"] = runtime_ref(b.origin)
            jobs.append(entry)
    old_rt, new_rt = _runtimes(old_outcome), _runtimes(new_outcome)
    changed_jobs = {j["trainJob"] for j in jobs if j["change"] == "changed"}
    runtimes = []
    for key in sorted(set(old_rt) | set(new_rt)):
        if old_rt.get(key) == new_rt.get(key):
            continue
        kind, where = key.split(" ", 1)
        namespace, _, name = where.rpartition("/")
        users = sorted(n for n, e in new_jobs.items() if runtime_ref(e.origin) == f"{kind}/{name}"
                       and (kind == res.CLUSTER_TRAINING_RUNTIME or (res.namespace(e.origin) or "") == namespace))
        runtimes.append({"runtime": key, "change": "added" if key not in old_rt else "removed" if key not in new_rt else "changed",
                         "trainJobs": len(users), "trainJobsChanged": sorted(set(users) & changed_jobs)})
    return {"trainJobs": jobs, "runtimes": runtimes, "findings": general,
            "errors": new_outcome.errors, "warnings": new_outcome.warnings,
            "summary": {**{k: sum(1 for j in jobs if j["change"] == k) for k in ("added", "removed", "changed", "failed")},
                        **classify.summary(jobs)}}


def sides(old_outcome, new_outcome, data: dict) -> dict:
    """{TrainJob: {`Kind ns/name`: (old, new)}}: both versions of every object `data` (diff's) lists,
    as they were compared (client annotations dropped, Secret data masked): what the plain-text diff
    shows whole (kpt_fn.formats.unified). None for a side the object is not on."""
    old_jobs, new_jobs = _by_trainjob(old_outcome), _by_trainjob(new_outcome)
    out = {}
    for j in data["trainJobs"]:
        a, b = _objects(old_jobs.get(j["trainJob"])), _objects(new_jobs.get(j["trainJob"]))
        out[j["trainJob"]] = {o["object"]: mask_secrets(a.get(o["object"]), b.get(o["object"])) for o in j["objects"]}
    return out


def has_changes(data: dict) -> bool:
    return bool(data["trainJobs"] or data["runtimes"])
