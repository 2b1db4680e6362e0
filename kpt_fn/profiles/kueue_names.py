"""Kueue's names, written once where both sides can import them: the labels and annotations Kueue
reads from a job object (kubernetes-sigs/kueue v0.19, pkg/controller/constants/constants.go and
pkg/constants/constants.go), the limits of its Workload, and the rules of the Kueue profile's checks
(the profile, the controller profile's warning, the review report and the lifecycle read them). A
leaf of the profiles: it imports no check.
"""

from __future__ import annotations

from kpt_fn.problems import Rule
from kpt_fn.resource import dig

# The Kueue release the checks and the profile follow (read from kubernetes-sigs/kueue at this tag;
# `expand-trainjobs --version` names it).
RELEASE = "v0.19.2"


QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
MAX_EXEC_TIME_LABEL = "kueue.x-k8s.io/max-exec-time-seconds"
MULTIKUEUE = "kueue.x-k8s.io/multikueue"
DEFAULT_LOCAL_QUEUE = "default"  # pkg/controller/constants/constants.go DefaultLocalQueueName
# pkg/constants/constants.go ElasticJobAnnotation; workloadslicing.Enabled matches the value "true"
ELASTIC_JOB_ANNOTATION = "kueue.x-k8s.io/elastic-job"
# apis/kueue/v1beta2/workload_types.go: Workload spec.podSets has MaxItems=18 (jobframework.MaxPodSets)
MAX_POD_SETS = 18
INT32_MAX = 2**31 - 1
RUNTIME_PATCH_MANAGER = "kueue.x-k8s.io/manager"


RULE_QUEUE = "kueue/queue-name"
RULE_QUEUE_UNCHECKED = "kueue/queue-unchecked"
RULE_LABEL_LOST = "kueue/labels-not-on-jobset"
RULE_MAX_EXEC = "kueue/max-exec-time"
RULE_STALE_PATCH = "kueue/runtime-patch-in-git"
RULE_DOUBLE_GANG = "kueue/double-gang-scheduling"
RULE_REQUESTS = "kueue/container-requests"
RULE_QUOTA = "kueue/quota-fit"
RULE_CREATE = "kueue/jobset-webhook"
RULE_TAS = "kueue/tas-annotations"

RULES = [
    Rule(RULE_QUEUE, "TrainJob",
         "kueue profile: the JobSet gets a LocalQueue (TrainJob label kueue.x-k8s.io/queue-name, the label from the "
         "runtime's template metadata, kueueQueues, or the namespace's LocalQueue `default` among the inputs, "
         "which Kueue's webhook assigns); the name is a "
         "DNS-1123 subdomain (jobframework.ValidateQueueName); when LocalQueues of the TrainJob's namespace are among "
         "the inputs, the name is one of them (else the JobSet waits forever; the closest name is suggested)"),
    Rule(RULE_QUEUE_UNCHECKED, "TrainJob",
         "info, always shown: kueue profile and no LocalQueue of the TrainJob's namespace among the inputs: the queue "
         "name could not be checked"),
    Rule(RULE_LABEL_LOST, "TrainJob",
         "warning: controller profile and a TrainJob with Kueue labels: the JobSet does not carry them"),
    Rule(RULE_MAX_EXEC, "TrainJob",
         "kueue profile: activeDeadlineSeconds becomes kueue.x-k8s.io/max-exec-time-seconds (different semantics: "
         "warning); the label is a positive integer (validateCreateForMaxExecTime); above 2147483647 Kueue's "
         "reconciler ignores it (warning)"),
    Rule(RULE_STALE_PATCH, "TrainJob",
         "warning: a runtimePatches entry of manager kueue.x-k8s.io/manager is written by Kueue at admission, not kept in Git"),
    Rule(RULE_DOUBLE_GANG, "TrainJob",
         "warning: kueue profile and a coscheduling/Volcano PodGroup gate the same pods twice"),
    Rule(RULE_TAS, "JobSet",
         "Topology-Aware-Scheduling pod-set annotations, the multi-layer slice constraints included, parse "
         "(jobframework/tas.go) and are consistent (jobframework/tas_validation.go)"),
    Rule(RULE_CREATE, "JobSet",
         "kueue profile: no kueue.x-k8s.io/elastic-job annotation on a JobSet (ValidateElasticJobAnnotation); at most "
         "18 replicated jobs, the pod sets of one Workload"),
    Rule(RULE_REQUESTS, "JobSet",
         "warning: kueue profile: every container requests cpu and memory (or sets limits, or a LimitRange among "
         "the inputs sets defaults), so that quota counts it"),
    Rule(RULE_QUOTA, "TrainJob",
         "the TrainJob's requests can fit its ClusterQueue: each pod set in one flavor per resource group, and "
         "the whole workload (nominal quota plus borrowing limit)"),
]

KUEUE_GROUP = "kueue.x-k8s.io"


def labels(obj: dict | None) -> dict:
    """The labels of an object ({} when it has none or they are not a map)."""
    found = dig(obj, "metadata", "labels") if obj is not None else None
    return found if isinstance(found, dict) else {}


def is_kueue_object(obj: dict, kind: str) -> bool:
    api = obj.get("apiVersion")
    return obj.get("kind") == kind and isinstance(api, str) and api.split("/")[0] == KUEUE_GROUP


# The profile option's parser lives with the names, not in the Kueue profile: every run parses
# `kueueQueues` (profiles.select), and only `profile: kueue` needs the profile's modules.
def parse_queues(entries) -> tuple[dict, list[str]]:
    """`kueueQueues` entries: `QUEUE` (every namespace) or `NAMESPACE=QUEUE`. ({namespace or "": queue},
    messages about malformed entries)."""
    queues, bad = {}, []
    for entry in entries or ():
        namespace, sep, queue = str(entry).partition("=")
        if not sep:
            namespace, queue = "", namespace
        namespace, queue = namespace.strip(), queue.strip()
        if not queue or (sep and not namespace):
            bad.append(f"kueueQueues entry {entry!r}: expected QUEUE or NAMESPACE=QUEUE")
            continue
        queues[namespace] = queue
    return queues, bad
