"""The Kueue profile's quota fit: whether a TrainJob's requests can ever fit the ClusterQueue its
LocalQueue names, from the ClusterQueues, LocalQueues and LimitRanges among the items: each pod set in
one flavor per resource group, and the whole workload within nominal quota plus borrowing limit
(kubernetes-sigs/kueue v0.19, pkg/scheduler/flavorassigner). A request that never fits leaves the
JobSet suspended for ever.
"""

from __future__ import annotations

from kpt_fn import quantity, resource as res, workload
from kpt_fn.blame import resources_per_node_field
from kpt_fn.problems import Problem
from kpt_fn.profiles import kueue_tas as tas
from kpt_fn.profiles.kueue_names import QUEUE_LABEL, RULE_QUOTA, is_kueue_object, labels as _labels
from kpt_fn.resource import dig
from kpt_fn.trainer_names import NODE, TRAINER


class Quotas:
    """ClusterQueues, LocalQueues and LimitRanges found among the items, for the quota-fit check."""

    __slots__ = ("cluster_queues", "local_queues", "_limit_ranges")

    def __init__(self, items):
        self.cluster_queues: dict[str, dict] = {}
        self.local_queues: dict[tuple, str] = {}
        self._limit_ranges: dict[str, list] = {}  # namespace -> [spec.limits entries], in item order
        for obj in items:
            if not isinstance(obj, dict):
                continue
            if is_kueue_object(obj, "ClusterQueue"):
                self.cluster_queues[dig(obj, "metadata", "name")] = obj
            elif is_kueue_object(obj, "LocalQueue"):
                cq = dig(obj, "spec", "clusterQueue")
                if isinstance(cq, str):
                    self.local_queues[(dig(obj, "metadata", "namespace") or "", dig(obj, "metadata", "name"))] = cq
            elif obj.get("kind") == "LimitRange" and obj.get("apiVersion") == "v1":
                limits = dig(obj, "spec", "limits")
                entries = self._limit_ranges.setdefault(dig(obj, "metadata", "namespace") or "", [])
                entries += [item for item in limits if isinstance(item, dict)] if isinstance(limits, list) else []

    def __bool__(self):
        return bool(self.cluster_queues)

    def limit_ranges(self, obj: dict) -> dict | None:
        """The Container-type defaults of the LimitRanges in `obj`'s namespace, as Kueue summarises
        them (`limitrange.Summarize`, pkg/util/limitrange/limitrange.go: the first value of each
        resource wins): {"default": {...}, "defaultRequest": {...}}; None when no LimitRange of the
        namespace is among the items (the cluster may still have one)."""
        items = self._limit_ranges.get(dig(obj, "metadata", "namespace") or "")
        if items is None:
            return None
        out: dict = {"default": {}, "defaultRequest": {}}
        for item in items:
            if item.get("type") == "Container":
                for key in out:
                    for name, value in (item.get(key) or {}).items():
                        out[key].setdefault(name, value)
        return out


def _with_limit_range(pod: dict, limit_range: dict | None) -> dict:
    """The pod as Kueue counts it: each container's missing limits and requests filled from the
    LimitRange's `default` and `defaultRequest` (pkg/workload/resources.go handlePodLimitRange)."""
    if not limit_range or (not limit_range["default"] and not limit_range["defaultRequest"]):
        return pod

    def fill(c):
        if not isinstance(c, dict):
            return c
        res = dict(c.get("resources") or {})
        res["limits"] = {**limit_range["default"], **(res.get("limits") or {})}
        res["requests"] = {**limit_range["defaultRequest"], **(res.get("requests") or {})}
        return {**c, "resources": res}

    return {**pod, **{f: [fill(c) for c in pod.get(f) or ()] for f in ("containers", "initContainers")}}


class _ClusterQueue:
    """What can ever be admitted: per resource group its covered resources and, per flavor, the most
    of each it can give (nominal quota plus borrowing limit; None when borrowing from a cohort is
    unbounded: without the other ClusterQueues of the cohort nothing bounds it)."""

    def __init__(self, cq: dict):
        in_cohort = bool(dig(cq, "spec", "cohort") or dig(cq, "spec", "cohortName"))
        self.groups: list[tuple[set, list]] = []  # (covered resources, [(flavor, {resource: capacity})])
        self.group_of: dict[str, int] = {}
        for group in dig(cq, "spec", "resourceGroups") or ():
            if not isinstance(group, dict):
                continue
            flavors = []
            covered = set(group.get("coveredResources") or ())
            for flavor in group.get("flavors") or ():
                caps = {}
                for r in flavor.get("resources") or ():
                    nominal = quantity.parse(r.get("nominalQuota", 0))
                    borrow = r.get("borrowingLimit")
                    if not in_cohort:
                        caps[r.get("name")] = nominal  # nothing to borrow from
                    else:
                        caps[r.get("name")] = None if borrow is None else nominal + quantity.parse(borrow)
                    covered.add(r.get("name"))
                flavors.append((flavor.get("name"), caps))
            for name in covered:
                self.group_of.setdefault(name, len(self.groups))
            self.groups.append((covered, flavors))


def _pod_set_groups(jobset: dict, limit_range: dict | None, count_pods: bool) -> list[tuple[str, dict, list]]:
    """[(pod set or TAS group name, {resource: total request}, [(pod count, {resource: per-pod request},
    pod set)])]. Kueue assigns flavors to a TAS pod-set
    group (podset-group-name beside a required or preferred topology) as one, with the requests of
    its pod sets added up (flavorassigner.go assignFlavors); `pods` is requested when the
    ClusterQueue has a quota for it."""
    groups: dict[str, tuple[str, dict, list]] = {}
    for ps in workload.pod_sets(jobset):
        notes = dig(jobset, "spec", "replicatedJobs", ps.index, *workload.POD_META, "annotations") or {}
        key, label = f"#{ps.index}", f"pod set {ps.name}"
        if tas.GROUP_NAME in notes and (tas.REQUIRED_TOPOLOGY in notes or tas.PREFERRED_TOPOLOGY in notes):
            key, label = str(notes[tas.GROUP_NAME]), f"pod-set group {notes[tas.GROUP_NAME]}"
        per_pod = workload.pod_requests(_with_limit_range(ps.pod, limit_range))
        if count_pods:
            per_pod["pods"] = quantity.parse(1)
        _, total, members = groups.setdefault(key, (label, {}, []))
        members.append((ps.count, per_pod, ps))
        for resource, q in per_pod.items():
            total[resource] = total.get(resource, quantity.Quantity()) + q * ps.count
    return list(groups.values())


def _bad_quota(cq: dict) -> Problem | None:
    """An error for the first quota of the ClusterQueue that is not a quantity (Kueue's API would refuse
    it): the ClusterQueue is wrong, not the TrainJob, and the quota check cannot run."""
    for g, group in enumerate(dig(cq, "spec", "resourceGroups") or ()):
        for f, flavor in enumerate((group.get("flavors") if isinstance(group, dict) else None) or ()):
            for r, resource in enumerate((flavor.get("resources") if isinstance(flavor, dict) else None) or ()):
                for key in ("nominalQuota", "borrowingLimit", "lendingLimit"):
                    value = resource.get(key) if isinstance(resource, dict) else None
                    if value is None:
                        continue
                    try:
                        quantity.parse(value)
                    except (quantity.QuantityError, TypeError, ValueError):
                        path = f"spec.resourceGroups[{g}].flavors[{f}].resources[{r}].{key}"
                        return Problem(f"Invalid value: {value!r}: {path} of ClusterQueue {dig(cq, 'metadata', 'name')} "
                                       "is not a quantity; the quota check cannot run", path, subject=cq, rule=RULE_QUOTA)
    return None


class _Fields:
    """The field a quota-fit error points at: the one the user changes to make the workload fit.

    For the trainer's pod set that is a field of the TrainJob (Trainer writes spec.trainer.numNodes
    into the trainer Job's parallelism and completions, and spec.trainer.resourcesPerNode into its
    `node` container: pkg/runtime/framework/plugins/*/ EnforceMLPolicy, apply.go), whether the
    TrainJob writes it already (the key that names the resource) or would add it. For another pod
    set (an initializer, the MPI launcher) it is where the runtime or a runtimePatch writes the
    container's request (kpt_fn.blame), else the TrainJob's runtimeRef (the runtime chosen)."""

    def __init__(self, trainjob: dict, jobset: dict, blame):
        self.trainjob, self.jobset, self.blame = trainjob, jobset, blame

    def request(self, pod_sets: list, resources: list) -> tuple:
        """(path, subject) of what asks for `resources` (one: its key; several: the container's
        resources) in the first of `pod_sets` with a container that asks for one of them."""
        for ps in pod_sets:
            for field, i, c in ps.containers():
                written = c.get("resources") if isinstance(c.get("resources"), dict) else {}
                asked = next((key for key in ("requests", "limits") for r in resources
                              if r in (written.get(key) or {})), None)
                if asked is None:
                    continue
                if ps.step == TRAINER and field == "containers" and c.get("name") == NODE:
                    return resources_per_node_field(self.trainjob, resources), None
                path = f"{ps.path}.{field}[{i}].resources" + (f".{asked}[{resources[0]}]" if len(resources) == 1 else "")
                found = self.blame.locate(self.jobset, path) if self.blame is not None else None
                if found:
                    return found
        return self.count(pod_sets, resources)

    def count(self, pod_sets: list, resources: list | None = None) -> tuple:
        """(path, subject) of how many pods the pod sets run: the TrainJob's numNodes for the trainer's;
        otherwise (or for a request no container writes: a LimitRange default, pod overhead) the
        trainer's resourcesPerNode, or the runtime chosen."""
        if any(ps.step == TRAINER for ps in pod_sets):
            return ("spec.trainer.numNodes" if resources is None else resources_per_node_field(self.trainjob, resources)), None
        return "spec.runtimeRef", None


def quota_problems(trainjob: dict, jobset: dict, quotas: Quotas, queue: str, blame=None) -> list:
    """Whether the TrainJob's workload can ever be admitted by its ClusterQueue (only when the
    LocalQueue and ClusterQueue are among the items; otherwise nothing is known and nothing said).
    Each error points at the field to change (_Fields; `blame`: kpt_fn.blame.Blame of the TrainJob
    and its runtime).

    As Kueue's flavor assigner does (pkg/scheduler/flavorassigner/flavorassigner.go
    `findFlavorForPodSets`), a pod set (or TAS group) takes one flavor per resource group for all
    the resources of that group it requests: a flavor fits only if every one of them fits in it."""
    namespace = dig(trainjob, "metadata", "namespace") or ""
    queue = _labels(jobset).get(QUEUE_LABEL) or queue  # the profile's JobSet names the queue Kueue reads
    cq_name = quotas.local_queues.get((namespace, queue))
    cq_obj = quotas.cluster_queues.get(cq_name) if cq_name else None
    if cq_obj is None:
        return []
    bad = _bad_quota(cq_obj)
    if bad is not None:
        return [bad]
    cq = _ClusterQueue(cq_obj)
    fields = _Fields(trainjob, jobset, blame)
    who = res.display(trainjob)

    def problem(message: str, at: tuple) -> Problem:
        path, subject = at
        # a finding in the runtime's file names the TrainJob whose workload it is
        return Problem(f"{who}: {message}" if subject is not None else message, path,
                       subject=subject, rule=RULE_QUOTA)

    where = f"ClusterQueue {cq_name} (LocalQueue {namespace}/{queue})" if namespace else f"ClusterQueue {cq_name}"
    problems = []
    totals: dict = {}
    reported = set()
    sharing: dict[int, list] = {}  # resource group -> [(pod set label, {resource: need}, pod sets)] that fit alone
    pods_of: dict[str, list] = {}  # resource -> the pod sets that ask for it
    for label, requests, members in _pod_set_groups(jobset, quotas.limit_ranges(jobset), "pods" in cq.group_of):
        pod_sets = [ps for _, _, ps in members]
        by_group: dict[int, dict] = {}
        for resource, need in requests.items():
            if not need:
                continue  # a zero request needs no quota, declared or not
            totals[resource] = totals.get(resource, quantity.Quantity()) + need
            pods_of.setdefault(resource, []).extend(pod_sets)
            if resource not in cq.group_of:
                problems.append(problem(
                    f"{label} requests {resource}, which {where} does not cover (Kueue: resource {resource} unavailable "
                    "in ClusterQueue): the workload can never be admitted", fields.request(pod_sets, [resource])))
                continue
            by_group.setdefault(cq.group_of[resource], {})[resource] = need
        for g, needs in by_group.items():
            flavors = cq.groups[g][1]
            if any(all(_fits(need, caps.get(r, quantity.Quantity())) for r, need in needs.items()) for _, caps in flavors):
                sharing.setdefault(g, []).append((label, needs, pod_sets))
                continue
            alone = [r for r, need in needs.items() if not any(_fits(need, caps.get(r, quantity.Quantity())) for _, caps in flavors)]
            for resource in alone:  # more than any flavor has: say so resource by resource
                reported.add(resource)
                best = max((caps.get(resource, quantity.Quantity()) for _, caps in flavors), default=quantity.Quantity())
                # one pod asking for more than there is: its request; each pod fits, all of them do not: how many
                per_pod = any(not _fits(p.get(resource, quantity.Quantity()), best) for _, p, _ in members)
                at = fields.request(pod_sets, [resource]) if per_pod and resource != "pods" else fields.count(pod_sets)
                problems.append(problem(
                    f"{label} needs {_describe(resource, needs[resource], members)}, more than any flavor of "
                    f"ClusterQueue {cq_name} can ever give (at most {quantity.canonical(best)} with borrowing): the "
                    "workload stays Inadmissible", at))
            if alone:
                continue
            short = "; ".join(
                f"flavor {name}: " + ", ".join(f"{r} {quantity.canonical(needs[r])} > {quantity.canonical(caps.get(r, quantity.Quantity()))}"
                                               for r in sorted(needs) if not _fits(needs[r], caps.get(r, quantity.Quantity())))
                for name, caps in flavors)
            wanted = ", ".join(f"{quantity.canonical(needs[r])} {r}" for r in sorted(needs))
            problems.append(problem(
                f"{label} needs {wanted} from one flavor of ClusterQueue {cq_name} (Kueue gives a pod set one flavor "
                f"per resource group for all its resources), and no flavor can ever give all of it ({short or 'no flavors'}): "
                "the workload stays Inadmissible", fields.request(pod_sets, sorted(needs))))
    for resource, need in totals.items():
        if resource in reported or resource not in cq.group_of:
            continue
        caps = [flavor_caps.get(resource, quantity.Quantity()) for _, flavor_caps in cq.groups[cq.group_of[resource]][1]]
        if caps and None not in caps:
            whole = sum(caps[1:], caps[0])
            if need > whole:
                reported.add(resource)
                problems.append(problem(
                    f"the workload needs {quantity.canonical(need)} {resource} in all, more than ClusterQueue "
                    f"{cq_name} can ever give ({quantity.canonical(whole)} over all flavors, with borrowing): "
                    "it stays Inadmissible", fields.count(pods_of.get(resource, []))))
    for g, members in sharing.items():
        if len(members) < 2 or any(r in reported for _, needs, _ in members for r in needs):
            continue
        if _assignment_exists([needs for _, needs, _ in members], [caps for _, caps in cq.groups[g][1]]) is False:
            names = ", ".join(label for label, _, _ in members)
            problems.append(problem(
                f"{names} each fit a flavor of ClusterQueue {cq_name}, but no choice of one flavor per pod set fits them "
                "all at once (Kueue gives each pod set one flavor per resource group for all its resources, within "
                "each flavor's quota and borrowing limit): the workload stays Inadmissible",
                fields.count([ps for _, _, sets in members for ps in sets])))
    return _unique(problems)


def _fits(need, capacity) -> bool:
    return capacity is None or need <= capacity


def _assignment_exists(demands: list[dict], flavors: list[dict], budget: int = 20000) -> bool | None:
    """Whether each demand ({resource: quantity}) can take one flavor ({resource: capacity or None})
    with no flavor over capacity: a search over the choices, biggest demands first. None when it
    takes more than `budget` steps (then nothing is claimed)."""
    zero = quantity.Quantity()
    order = sorted(demands, key=lambda d: sorted((v for v in d.values()), reverse=True), reverse=True)
    used = [dict() for _ in flavors]
    steps = 0

    def place(i: int) -> bool | None:
        nonlocal steps
        if i == len(order):
            return True
        for f, caps in enumerate(flavors):
            steps += 1
            if steps > budget:
                return None
            if all(_fits(used[f].get(r, zero) + need, caps.get(r, zero)) for r, need in order[i].items()):
                for r, need in order[i].items():
                    used[f][r] = used[f].get(r, zero) + need
                found = place(i + 1)
                for r, need in order[i].items():
                    used[f][r] = used[f][r] - need
                if found is not False:
                    return found
        return False

    return place(0)


def _describe(resource: str, need, members: list) -> str:
    """`4 nvidia.com/gpu (2 pod(s) x 2)` for a single pod set, the total for a group."""
    if len(members) == 1:
        count, per_pod, _ = members[0]
        return f"{quantity.canonical(need)} {resource} ({count} pod(s) x {quantity.canonical(per_pod[resource])})"
    return f"{quantity.canonical(need)} {resource}"


def _unique(problems: list) -> list:
    seen, out = set(), []
    for p in problems:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out
