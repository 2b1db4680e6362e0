"""kpt_fn.profiles.kueue_quota: the queues among the items and the flavor-assignment search (the quota
fit through whole runs: tests/behaviour/test_kueue_create_checks.py, tests/unit/profiles/test_kueue_profile.py)."""

from __future__ import annotations

from kpt_fn import quantity
from kpt_fn.profiles import kueue_quota


def test_quotas_collect_the_queues_among_the_items():
    cq = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"}, "spec": {}}
    lq = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "q", "namespace": "ml"},
          "spec": {"clusterQueue": "cq"}}
    quotas = kueue_quota.Quotas([cq, lq, {"kind": "ConfigMap"}, "not a dict"])
    assert quotas.cluster_queues == {"cq": cq} and quotas.local_queues == {("ml", "q"): "cq"}
    assert quotas and not kueue_quota.Quotas([])


def test_the_assignment_search():
    one = {"gpu": quantity.parse(1)}
    assert kueue_quota._assignment_exists([dict(one)] * 2, [dict(one)] * 2) is True
    assert kueue_quota._assignment_exists([dict(one)] * 3, [dict(one)] * 2) is False
