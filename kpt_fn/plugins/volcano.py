"""Volcano: the Volcano PodGroup, its pod annotation and admission checks.

Upstream: pkg/runtime/framework/plugins/volcano/volcano.go. Active when the runtime has
podGroupPolicy.volcano.
"""

from __future__ import annotations

from kpt_fn.engine.info import pod_spec_of
from kpt_fn.plugins.coscheduling import gang, pod_group_metadata
from kpt_fn.problems import WARNING, Problem, Rule

NAME = "Volcano"
GROUP_NAME_ANNOTATION = "scheduling.k8s.io/group-name"
QUEUE_ANNOTATION = "scheduling.volcano.sh/queue-name"
SYSTEM_PRIORITY_CLASSES = ("system-cluster-critical", "system-node-critical")

RULE_QUEUE = "trainer-webhook/volcano-queue-name"
RULE_PRIORITY_CLASS = "trainer-webhook/volcano-priority-class"

RULES = [
    Rule(RULE_QUEUE, "TrainJob",
         f"the {QUEUE_ANNOTATION} annotation (runtime template or runtimePatches) must not be empty"),
    Rule(RULE_PRIORITY_CLASS, "TrainJob",
         "pod template priorityClassName must name an existing PriorityClass (checked against "
         "knownPriorityClasses; a warning when that list is empty)"),
]


def enforce_pod_group_policy(info, trainjob, options) -> None:
    if info.scheduler.pod_annotations is None:
        info.scheduler.pod_annotations = {}
    info.scheduler.pod_annotations[GROUP_NAME_ANNOTATION] = trainjob["metadata"]["name"]


def build(info, trainjob, options) -> list[dict]:
    members, min_resources = gang(info)
    spec = {"minMember": members, "minResources": min_resources}
    if QUEUE_ANNOTATION in info.annotations:
        spec["queue"] = info.annotations[QUEUE_ANNOTATION]
    for rj in info.replicated_jobs:
        # The last job that sets one wins.
        if pod_spec_of(rj).get("priorityClassName"):
            spec["priorityClassName"] = pod_spec_of(rj)["priorityClassName"]
    topology = info.runtime_policy.pod_group_policy["volcano"].get("networkTopology")
    if topology is not None:
        spec["networkTopology"] = {"mode": topology.get("mode"),
                                   "highestTierAllowed": topology.get("highestTierAllowed")}
    return [{
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": pod_group_metadata(trainjob),
        "spec": spec,
    }]


def validate(info, trainjob, options) -> list[Problem]:
    problems = []
    if info.annotations.get(QUEUE_ANNOTATION, None) == "":
        problems.append(Problem("Volcano queue name must not be empty",
                                f"spec.annotations[{QUEUE_ANNOTATION}]", rule=RULE_QUEUE))
    known = frozenset(options.knownPriorityClasses) or None
    for rj in info.replicated_jobs:
        pc = pod_spec_of(rj).get("priorityClassName")
        if not pc:
            continue
        if pc in SYSTEM_PRIORITY_CLASSES:
            # Upstream stops checking the remaining jobs here.
            break
        if known is None:
            problems.append(Problem(
                f'PriorityClass "{pc}" cannot be checked offline (knownPriorityClasses is empty); it must exist '
                "in the cluster",
                "spec.templateSpec.priorityClassName", severity=WARNING, rule=RULE_PRIORITY_CLASS))
        elif pc not in known:
            problems.append(Problem(
                f'PriorityClass "{pc}" doesn\'t exist: priorityclasses.scheduling.k8s.io "{pc}" not found',
                "spec.templateSpec.priorityClassName", rule=RULE_PRIORITY_CLASS))
    return problems
