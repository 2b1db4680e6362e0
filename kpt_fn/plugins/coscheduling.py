"""CoScheduling: the scheduler-plugins PodGroup and its pod label (pkg/runtime/framework/plugins/coscheduling/coscheduling.go at v2.3.0).

Upstream: pkg/runtime/framework/plugins/coscheduling/coscheduling.go. Active when the runtime has
podGroupPolicy.coscheduling.
"""

from __future__ import annotations


NAME = "CoScheduling"
POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"


def enforce_pod_group_policy(info, trainjob, options) -> None:
    info.scheduler.pod_labels[POD_GROUP_LABEL] = trainjob["metadata"]["name"]


def gang(info) -> tuple[int, dict]:
    """minMember and minResources shared by both PodGroup kinds: every PodSet, requests x count."""
    from kpt_fn.engine import pod_resources as resources

    members = sum(ps.count for ps in info.pod_sets)
    total = resources.sum_requests([(ps.single_pod_requests, ps.count) for ps in info.pod_sets])
    return members, resources.format_resource_list(total)


def pod_group_metadata(trainjob) -> dict:
    md = trainjob["metadata"]
    out = {"name": md["name"]}
    if md.get("namespace") is not None:
        out["namespace"] = md["namespace"]
    return out


def build(info, trainjob, options) -> list[dict]:
    members, min_resources = gang(info)
    policy = info.runtime_policy.pod_group_policy["coscheduling"]
    return [{
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": pod_group_metadata(trainjob),
        "spec": {
            "minMember": members,
            "minResources": min_resources,
            "scheduleTimeoutSeconds": policy["scheduleTimeoutSeconds"],
        },
    }]
