"""Guardrails on what will really run: platform rules checked on the RENDERED pod templates.

A TrainJob's pods are split between the TrainJob, its runtime and its runtimePatches; offline policy
tools see only the pieces. This module reads the expansion (kpt_fn.workload) and reports each
violation as an error with a `policy/...` rule id, pointing at the field of the TrainJob, or of its
runtime, that the value came from.

A reviewer-visible escape hatch: the TrainJob annotation `waive.expand-trainjobs.kpt.dev/<rule>`
(e.g. `waive.expand-trainjobs.kpt.dev/max-gpus-per-trainjob: "approved in PLAT-123"`) turns that rule's
violations into warnings that quote the reason. A waiver needs a reason, and names a known rule.
"""

from __future__ import annotations

from kpt_fn import quantity, workload
from kpt_fn.blame import Blame, resources_per_node_field
from kpt_fn.config import POLICY_SETTINGS
from kpt_fn.resource import dig
from kpt_fn.problems import ERROR, WARNING, Problem, Rule
from kpt_fn.trainer_names import WAIVER_PREFIX

ANNOTATION_GUIDE = f"{WAIVER_PREFIX}<rule>: <reason>"


RULE_IDS = tuple(dict.fromkeys(f"policy/{s.rule}" for s in POLICY_SETTINGS.values()))

RULES = [
    Rule(rule, "TrainJob",
         " ".join(f"{s.name}: {s.help}" for s in POLICY_SETTINGS.values() if f"policy/{s.rule}" == rule))  # sentences
    for rule in RULE_IDS
] + [Rule("policy/waiver", "TrainJob",
          f"annotation {ANNOTATION_GUIDE} names a known rule and gives a reason; waived violations are warnings"),
     Rule("policy/skipped", "TrainJob",
          "warning: when a TrainJob is not rendered because its spec.managedBy hands it to another controller "
          "(the selected release's reconciler leaves it alone), the pod-level rules cannot run; the rules skipped "
          "are named")]


# --- the checks ----------------------------------------------------------------------------------


def _image_problems(image: str, settings: dict) -> list:
    out = []
    prefixes = settings.get("allowedImagePrefixes")
    if prefixes and not any(image.startswith(p) for p in prefixes):
        out.append(("allowed-images", f"image {image!r} is not from an allowed registry ({', '.join(prefixes)})"))
    if settings.get("forbidLatestTag") and "@" not in image:
        last = image.rsplit("/", 1)[-1]
        tag = last.split(":", 1)[1] if ":" in last else None
        if tag in (None, "latest"):
            out.append(("no-latest-tag", f"image {image!r} is {'untagged' if tag is None else 'tagged latest'}: pin a version or a digest"))
    return out


def _runtime_used(trainjob: dict, runtime: dict | None) -> tuple:
    """(kind, names) of the runtime the TrainJob was expanded against: its own name, and the name the
    TrainJob refers to it by only when that is its name or kustomize's record explains the rename
    (kpt_fn.kustomize_names.rename_explained) -- a runtime reached any other way is judged as itself."""
    from kpt_fn import kustomize_names

    ref = dig(trainjob, "spec", "runtimeRef") or {}
    ref_name = ref.get("name")
    if runtime is None:
        return ref.get("kind", "ClusterTrainingRuntime"), (ref_name,)
    name = dig(runtime, "metadata", "name")
    if name != ref_name and isinstance(ref_name, str) and kustomize_names.rename_explained(runtime, ref_name):
        return runtime.get("kind"), (name, ref_name)
    return runtime.get("kind"), (name,)


# Rules read from the rendered pods: nothing to read when nothing is rendered.
_POD_LEVEL = ("maxGPUsPerTrainJob", "maxGPUsPerNode", "maxGPUsPerPod", "maxNodes", "maxCPUPerTrainJob",
              "maxMemoryPerTrainJob", "allowedImagePrefixes", "forbidLatestTag", "requireRequests",
              "requireGPULimitsEqualRequests", "forbidPrivileged", "forbidHostPath", "forbidHostNetwork")


def _skipped(trainjob: dict, objects: list, settings: dict) -> list:
    """A warning naming the pod-level rules that could not run because nothing was rendered for a
    TrainJob whose spec.managedBy hands it to another controller (which creates its pods unchecked)."""
    managed_by = dig(trainjob, "spec", "managedBy")
    if objects or managed_by in (None, "trainer.kubeflow.org/trainjob-controller"):
        return []
    rules = sorted({f"policy/{POLICY_SETTINGS[k].rule}" for k in _POD_LEVEL if settings.get(k) not in (None, False, ())})
    if not rules:
        return []
    return [Problem(f"spec.managedBy is {managed_by!r}: nothing is rendered, so the pod-level policy rule(s) "
                    f"{', '.join(rules)} were skipped; the controller named there creates the pods unchecked",
                    "spec.managedBy", severity=WARNING, rule="policy/skipped")]


def check(trainjob: dict, runtime: dict | None, objects: list, settings, source: str = "") -> list:
    """Problems of one TrainJob's rendered objects against the policy settings (waivers applied).
    `source`: where the runtime came from (kpt_fn.resolve's label), for the allowed-runtimes message."""
    if not settings:
        return []
    settings = dict(settings)
    blame = Blame(trainjob, runtime)
    found: list = []  # (rule, message, where or None)

    def violate(rule, message, where=None):
        found.append((rule, message, where))

    allowed = settings.get("allowedRuntimes")
    if allowed:
        kind, names = _runtime_used(trainjob, runtime)
        if not any(n in allowed or f"{kind}/{n}" in allowed for n in names):
            origin = f" from {source}" if source else ""
            violate("allowed-runtimes", f"runtime {kind}/{names[0]}{origin} is not allowed ({', '.join(allowed)})",
                    ("spec.runtimeRef.name", None))
    labels = dig(trainjob, "metadata", "labels") or {}
    for label in settings.get("requiredLabels") or ():
        if not labels.get(label):
            violate("required-labels", f"label {label} is required", (f"metadata.labels[{label}]", None))
    deadline = dig(trainjob, "spec", "activeDeadlineSeconds")
    if settings.get("requireActiveDeadline") and not deadline:
        violate("active-deadline", "spec.activeDeadlineSeconds is required", ("spec.activeDeadlineSeconds", None))
    cap = settings.get("maxActiveDeadlineSeconds")
    if cap is not None and isinstance(deadline, int) and deadline > cap:
        violate("active-deadline", f"activeDeadlineSeconds {deadline} exceeds {cap}", ("spec.activeDeadlineSeconds", None))

    jobsets = [o for o in objects if o.get("kind") == "JobSet"]
    is_node = workload.training_node_test(runtime)
    job_gpus, nodes = 0, 0
    totals: dict = {}
    for js in jobsets:
        for k, v in workload.totals(js).items():
            totals[k] = totals.get(k, quantity.Quantity()) + v
        for ps in workload.pod_sets(js):
            per_pod = ps.requests()
            gpus = workload.gpus(per_pod)
            job_gpus += gpus * ps.count
            if is_node(ps):
                nodes += ps.count
            _pod_checks(ps, per_pod, gpus, settings, blame, violate, is_node(ps))
    limit = settings.get("maxGPUsPerTrainJob")
    if limit is not None and job_gpus > limit:
        violate("max-gpus-per-trainjob", f"the TrainJob requests {job_gpus} GPUs in all, more than {limit}",
                _per_node(trainjob, _gpu_names(dig(trainjob, "spec", "trainer", "resourcesPerNode")), blame))
    limit = settings.get("maxNodes")
    if limit is not None and nodes > limit:
        violate("max-nodes", f"the TrainJob runs {nodes} training nodes, more than {limit}", blame.nodes())
    for setting, resource, rule in (("maxCPUPerTrainJob", "cpu", "max-cpu-per-trainjob"), ("maxMemoryPerTrainJob", "memory", "max-memory-per-trainjob")):
        limit = settings.get(setting)
        have = totals.get(resource)
        if limit is not None and have is not None and have > limit:
            violate(rule, f"the TrainJob requests {quantity.canonical(have)} {resource} in all, more than {quantity.canonical(limit)}",
                    _per_node(trainjob, [resource], blame))
    return _apply_waivers(trainjob, found) + _skipped(trainjob, objects, settings)


def _pod_checks(ps, per_pod, gpus, settings, blame, violate, node: bool):
    where = f"replicated job {ps.name}"
    limit = settings.get("maxGPUsPerPod")
    if limit is not None and gpus > limit:
        violate("max-gpus-per-pod", f"a pod of {where} requests {gpus} GPUs, more than {limit}", _resources_blame(ps, blame))
    limit = settings.get("maxGPUsPerNode")
    if limit is not None and node and gpus > limit:
        violate("max-gpus-per-node", f"a training node ({where}) requests {gpus} GPUs, more than {limit}", _resources_blame(ps, blame))
    if settings.get("forbidHostNetwork") and ps.pod.get("hostNetwork"):
        violate("no-host-network", f"{where} uses hostNetwork", blame.pod(ps, ("hostNetwork",)))
    if settings.get("forbidHostPath"):
        for v in ps.pod.get("volumes") or ():
            if isinstance(v, dict) and v.get("hostPath") is not None:
                violate("no-host-path", f"{where} mounts hostPath volume {v.get('name')!r}",
                        blame.pod(ps, ("volumes",), lambda item, n=v.get("name"): isinstance(item, dict) and item.get("name") == n))
    for field, _, c in ps.containers():
        name = f"container {c.get('name')} of {where}"
        image = c.get("image")
        if isinstance(image, str):
            for rule, message in _image_problems(image, settings):
                violate(rule, f"{name}: {message}", blame.container(ps, field, c, ("image",)))
        if settings.get("forbidPrivileged") and dig(c, "securityContext", "privileged"):
            violate("no-privileged", f"{name} is privileged", blame.container(ps, field, c, ("securityContext", "privileged")))
        res = c.get("resources") or {}
        requests, limits = res.get("requests") or {}, res.get("limits") or {}
        if settings.get("requireRequests"):
            missing = [r for r in ("cpu", "memory") if r not in requests]
            if missing and not isinstance(dig(ps.pod, "resources", "requests"), dict):
                violate("requests-required", f"{name} requests no {' or '.join(missing)}", blame.container(ps, field, c, ("resources",)) or blame.container(ps, field, c, ("name",)))
        if settings.get("requireGPULimitsEqualRequests"):
            for r in sorted(set(requests) | set(limits)):
                if workload.is_gpu(r) and (r not in requests or r not in limits or quantity.parse(requests[r]) != quantity.parse(limits[r])):
                    violate("gpu-limits-equal-requests", f"{name}: {r} requests {requests.get(r, 'none')} but limits {limits.get(r, 'none')}",
                            blame.container(ps, field, c, ("resources",), [r]))


def _resources_blame(ps, blame):
    for field, _, c in ps.containers():
        if workload.gpus(workload.pod_requests({"containers": [c]})):
            return blame.container(ps, field, c, ("resources",), _gpu_names(c.get("resources")))
    return None


def _gpu_names(resources) -> list:
    """The GPU resource names a resources map (requests and limits) asks for, sorted."""
    resources = resources if isinstance(resources, dict) else {}
    return sorted({r for key in ("requests", "limits") if isinstance(resources.get(key), dict)
                   for r in resources[key] if workload.is_gpu(r)})


def _per_node(trainjob: dict, resources: list, blame):
    """Where a TrainJob's total of `resources` is written: its resourcesPerNode (the key of the one
    resource), else how many training nodes it runs."""
    if dig(trainjob, "spec", "trainer", "resourcesPerNode"):
        return resources_per_node_field(trainjob, resources), None
    return blame.nodes()


# Letters and symbols that render as blank space (Hangul fillers, the blank Braille pattern), beside
# the categories below: a reason made of them shows as nothing in a review.
_BLANK_GLYPHS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
# White space (Z*), controls and format characters (Cc, Cf: zero-width spaces and joiners, bidi
# marks), surrogates, private use, unassigned, and combining marks with no base (Mn, Me).
_INVISIBLE_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn", "Mn", "Me"})


def visible(reason: str) -> bool:
    """Whether a waiver reason has at least one character a reader sees: a reason is shown in review
    outputs as the justification of a waived rule, so one that shows as nothing is no reason."""
    import unicodedata  # only with a waiver: unicodedata costs start-up

    return any(not c.isspace() and c not in _BLANK_GLYPHS and unicodedata.category(c) not in _INVISIBLE_CATEGORIES
               for c in reason)


def _apply_waivers(trainjob: dict, found: list) -> list:
    notes = dig(trainjob, "metadata", "annotations") or {}
    waivers = {k[len(WAIVER_PREFIX):]: v for k, v in notes.items() if isinstance(k, str) and k.startswith(WAIVER_PREFIX)}
    known = {s.rule for s in POLICY_SETTINGS.values()}
    problems = []
    for rule, reason in sorted(waivers.items()):
        path = f"metadata.annotations[{WAIVER_PREFIX}{rule}]"
        if rule not in known:
            problems.append(Problem(f"waiver for unknown policy rule {rule!r}; known rules: {', '.join(sorted(known))}",
                                    path, rule="policy/waiver"))
        elif not visible(str(reason or "")):
            text = "gives no reason" if not str(reason or "").strip() else \
                "gives a reason with no visible character (only blanks, invisible or control characters)"
            problems.append(Problem(f"waiver of policy/{rule} {text}: write why as the annotation's value", path,
                                    rule="policy/waiver"))
    who = f"{dig(trainjob, 'metadata', 'namespace') or ''}/{dig(trainjob, 'metadata', 'name')}".lstrip("/")
    for rule, message, where in found:
        path, subject = where if where else ("", None)
        if subject is not None:
            message = f"TrainJob {who}: {message}"
        reason = str(waivers.get(rule) or "").strip()
        if rule in waivers and visible(reason):
            problems.append(Problem(f"policy/{rule} waived ({reason}): {message}", path, severity=WARNING, subject=subject, rule=f"policy/{rule}"))
        else:
            problems.append(Problem(f"{message} (waive with the TrainJob annotation {WAIVER_PREFIX}{rule}: <reason>)",
                                    path, severity=ERROR, subject=subject, rule=f"policy/{rule}"))
    return problems
