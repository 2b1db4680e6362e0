"""Kueue's JobSet webhook on CREATE (kubernetes-sigs/kueue v0.19.2), re-implemented for the emulated
cluster: what Kueue adds to a JobSet the API server is asked to create.

`JobSetWebhook.Default` (pkg/controller/jobs/jobset/jobset_webhook.go :75-90) runs, in order:

* `ApplyDefaultLocalQueueWithManagedJobsNamespaceSelector` (pkg/controller/jobframework/defaults.go
  :62-98): a JobSet without a queue-name label gets `kueue.x-k8s.io/queue-name: default` when the
  namespace has a LocalQueue named `default` (and the namespace is managed);
* `ApplyDefaultForSuspend` (defaults.go :36-46, with `WorkloadShouldBeSuspended`, utils.go :131-158):
  a JobSet with a queue-name label is suspended (utils.go :147-150), whatever it says; without one,
  only under `manageJobsWithoutQueueName` in a managed namespace;
* `ApplyDefaultForManagedBy` (defaults.go :127-150): MultiKueue's `spec.managedBy`, when the queue's
  ClusterQueue has a MultiKueue admission check.

The webhook is registered only for CREATE (the kubebuilder marker above Default: `verbs=create`), and
where Kueue's JobSet integration is disabled it is a no-op (jobset_webhook.go :60-61,
jobframework/setup.go :109): such a JobSet is created as rendered.

NOT_PORTED: the ancestor check (`FindAncestorJobManagedByKueue`: a rendered JobSet has no owner), the
deletion tolerance (a create is never of an object being deleted), the workload priority class
(`ApplyDefaultWorkloadPriorityClass` is empty in v0.19.2), and MultiKueue's managedBy defaulting
(no ClusterQueue or admission check is emulated; the profile renders managedBy itself).
"""

from __future__ import annotations

import copy

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
DEFAULT_LOCAL_QUEUE = "default"


class KueueConfig:
    """What the webhook reads of Kueue's configuration and queues."""

    def __init__(self, jobset_integration: bool = True, default_queue_namespaces: frozenset = frozenset(),
                 manage_jobs_without_queue_name: bool = False, managed_namespaces: frozenset | None = None):
        self.jobset_integration = jobset_integration  # integrations.frameworks holds jobset.x-k8s.io/jobset
        self.default_queue_namespaces = default_queue_namespaces  # namespaces with a LocalQueue "default"
        self.manage_jobs_without_queue_name = manage_jobs_without_queue_name
        # managedJobsNamespaceSelector: the namespaces it matches (None: no selector, every namespace)
        self.managed_namespaces = managed_namespaces

    def manages(self, namespace: str) -> bool:
        """namespaceMatchesSelector (utils.go :161-172): a nil selector matches every namespace."""
        return self.managed_namespaces is None or namespace in self.managed_namespaces


def default_local_queue(jobset: dict, config: KueueConfig) -> dict:
    """ApplyDefaultLocalQueueWithManagedJobsNamespaceSelector (defaults.go :62-98)."""
    metadata = jobset.setdefault("metadata", {})
    namespace = metadata.get("namespace", "")
    labels = metadata.get("labels") or {}
    if namespace in config.default_queue_namespaces and not labels.get(QUEUE_LABEL) and config.manages(namespace):
        metadata["labels"] = {**labels, QUEUE_LABEL: DEFAULT_LOCAL_QUEUE}
    return jobset


def should_be_suspended(jobset: dict, config: KueueConfig) -> bool:
    """WorkloadShouldBeSuspended (utils.go :131-158) for a JobSet without an owner."""
    metadata = jobset.get("metadata") or {}
    if (metadata.get("labels") or {}).get(QUEUE_LABEL):
        return True
    return config.manage_jobs_without_queue_name and config.manages(metadata.get("namespace", ""))


def default_on_create(jobset: dict, config: KueueConfig) -> dict:
    """The JobSet as Kueue's mutating webhook returns it on CREATE (JobSetWebhook.Default)."""
    if not config.jobset_integration:
        return jobset
    jobset = default_local_queue(copy.deepcopy(jobset), config)
    if should_be_suspended(jobset, config):  # ApplyDefaultForSuspend: suspend unless it already is
        jobset.setdefault("spec", {})["suspend"] = True
    return jobset
