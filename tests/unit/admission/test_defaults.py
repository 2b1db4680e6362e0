"""kpt_fn.admission.defaults: the API server's Job and Pod defaulting and built-in mutating admission."""

from __future__ import annotations

from kpt_fn.admission import defaults


def test_job_defaults():
    job = {"metadata": {"name": "j"}, "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}}}
    defaults.job(job)
    spec = job["spec"]
    assert (spec["completions"], spec["parallelism"], spec["backoffLimit"], spec["completionMode"]) == (1, 1, 6, "NonIndexed")
    assert spec["podReplacementPolicy"] == "TerminatingOrFailed"
    assert spec["template"]["metadata"]["labels"]["job-name"] == "j"
    assert spec["selector"]["matchLabels"] == {"batch.kubernetes.io/controller-uid": defaults.UNKNOWN_UID}
    assert spec["template"]["spec"]["dnsPolicy"] == "ClusterFirst"


def test_backoff_limit_per_index_and_pod_failure_policy():
    job = {"metadata": {"name": "j"}, "spec": {"backoffLimitPerIndex": 1, "podFailurePolicy": {"rules": []}}}
    defaults.job(job)
    assert job["spec"]["backoffLimit"] == defaults.MAX_INT32
    assert job["spec"]["podReplacementPolicy"] == "Failed"


def test_container_defaults():
    c = {"image": "repo/img", "ports": [{"containerPort": 80}], "resources": {"limits": {"cpu": "1"}}}
    defaults.container(c)
    assert c["imagePullPolicy"] == "Always"  # no tag
    assert c["ports"][0]["protocol"] == "TCP"
    assert c["resources"]["requests"] == {"cpu": "1"}
    assert defaults._image_pull_policy("repo/img:1.0") == "IfNotPresent"
    assert defaults._image_pull_policy("repo/img:latest") == "Always"
    assert defaults._image_pull_policy("repo/img@sha256:abc") == "IfNotPresent"


def test_pod_admission():
    pod = {"spec": {"containers": [{"name": "c"}], "tolerations": [{"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}]}}
    defaults.pod_admission(pod)
    spec = pod["spec"]
    assert spec["serviceAccountName"] == "default"
    assert spec["containers"][0]["volumeMounts"][0]["mountPath"] == defaults.TOKEN_PATH
    assert [t["key"] for t in spec["tolerations"]] == ["node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready"]


def test_no_token_when_automount_is_off():
    pod = {"spec": {"automountServiceAccountToken": False, "containers": [{"name": "c"}]}}
    defaults.pod_admission(pod)
    assert "volumes" not in pod["spec"] and "volumeMounts" not in pod["spec"]["containers"][0]
