"""kpt_fn.profiles.kueue_create: Kueue's create checks on a JobSet, and Kueue's runtimePatch in Git
(the checks through a whole run: tests/behaviour/test_kueue_create_checks.py)."""

from __future__ import annotations

from kpt_fn.problems import ERROR, WARNING
from kpt_fn.profiles import kueue_create, kueue_names


def _jobset(labels=None, annotations=None, jobs=1, containers=None):
    container = containers or [{"name": "node", "image": "x"}]
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": "a", "namespace": "ml", "labels": labels or {}, "annotations": annotations or {}},
            "spec": {"replicatedJobs": [{"name": f"j{i}", "replicas": 1, "template": {"spec": {"template": {"spec": {
                "containers": container}}}}} for i in range(jobs)]}}


def test_the_elastic_job_annotation_is_refused():
    [p] = kueue_create.create_problems(_jobset(annotations={kueue_names.ELASTIC_JOB_ANNOTATION: "true"}))
    assert (p.severity, p.rule) == (ERROR, kueue_names.RULE_CREATE) and "elastic job is not supported" in p.message


def test_more_pod_sets_than_a_workload_holds():
    [p] = kueue_create.create_problems(_jobset(jobs=kueue_names.MAX_POD_SETS + 1))
    assert p.path == "spec.replicatedJobs" and "at most 18 items" in p.message
    assert kueue_create.create_problems(_jobset(jobs=kueue_names.MAX_POD_SETS)) == []


def test_max_exec_time_from_the_profile_points_at_active_deadline_seconds():
    [p] = kueue_create.create_problems(_jobset(labels={kueue_names.MAX_EXEC_TIME_LABEL: "0"}), deadline_label=True)
    assert (p.path, p.rule) == ("spec.activeDeadlineSeconds", kueue_names.RULE_MAX_EXEC)


def test_containers_without_requests_and_the_limit_range_defaults():
    [p] = kueue_create.request_problems(_jobset(), None)
    assert (p.severity, p.rule) == (WARNING, kueue_names.RULE_REQUESTS) and "requests no cpu or memory" in p.message
    assert kueue_create.request_problems(_jobset(), {"default": {"cpu": "1", "memory": "1Gi"}}) == []


def test_kueues_runtime_patch_in_git():
    tj = {"spec": {"runtimePatches": [{"manager": "someone"}, {"manager": kueue_names.RUNTIME_PATCH_MANAGER}]}}
    [p] = kueue_create.stale_runtime_patches(tj)
    assert (p.path, p.rule) == ("spec.runtimePatches[1]", kueue_names.RULE_STALE_PATCH)
