"""matchLabelKeys when the Job controller creates each Pod: the pod strategy merges the Pod's own value
of each key into the labelSelector (pkg/registry/core/pod/strategy.go), then the Pod is validated
again; and the other checks that read the pod template as a whole (hostnameOverride, numbers too long
to convert)."""

from __future__ import annotations

from kpt_fn import validation

POD = "spec.replicatedJobs[0].template.spec.template.spec."
TERM = POD + "affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"


def _jobset(pod, labels=None, job=None):
    template = {"spec": {"containers": [{"name": "c", "image": "i"}], **pod}}
    if labels:
        template["metadata"] = {"labels": labels}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js", "namespace": "ns"},
            "spec": {"replicatedJobs": [{"name": "node", "replicas": 1, "template": {"spec": {
                "parallelism": 1, "completions": 1, **(job or {}), "template": template}}}]}}


def _errors(js):
    return [(p.path, p.message) for p in validation.check_job_templates(js)]


def _anti(key, selector_key="team"):
    return {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchExpressions": [{"key": selector_key, "operator": "In", "values": ["a"]}]},
        "topologyKey": "kubernetes.io/hostname", "matchLabelKeys": [key]}]}}}


def test_a_key_the_pod_carries_and_the_selector_names_fails_every_pod():
    both = [(f"{TERM}[0]", 'Invalid value: "team": exists in both matchLabelKeys and labelSelector')]
    assert _errors(_jobset(_anti("team"), labels={"team": "a"})) == both
    # JobSet labels every Job's pod template with its job key
    key = "jobset.sigs.k8s.io/job-key"
    assert _errors(_jobset(_anti(key, key))) == [
        (f"{TERM}[0]", f'Invalid value: "{key}": exists in both matchLabelKeys and labelSelector')]


def test_every_label_the_jobset_controller_puts_on_the_pods_counts():
    # labelAndAnnotateObject (jobset pkg/controllers/jobset_controller.go) at v0.11.1 and v0.12.0
    for key in ("jobset.sigs.k8s.io/group-name", "jobset.sigs.k8s.io/group-replicas",
                "jobset.sigs.k8s.io/global-replicas", "jobset.sigs.k8s.io/job-group-index"):
        assert _errors(_jobset(_anti(key, key))) == [
            (f"{TERM}[0]", f'Invalid value: "{key}": exists in both matchLabelKeys and labelSelector')], key
        assert _errors(_jobset(_anti(key))) == [], key


def test_the_usual_forms_are_valid():
    assert _errors(_jobset(_anti("team"))) == []  # the pod has no such label: nothing is merged
    assert _errors(_jobset(_anti("jobset.sigs.k8s.io/job-key"))) == []  # exclusive placement per Job
    assert _errors(_jobset(_anti("team", "tier"), labels={"team": "a"})) == []


def test_label_keys_without_a_label_selector():
    pod = {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
        "topologyKey": "zone", "matchLabelKeys": ["a"], "mismatchLabelKeys": ["b"]}]}}}
    term = POD + "affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
    assert _errors(_jobset(pod)) == [
        (f"{term}.matchLabelKeys", "Forbidden: must not be specified when labelSelector is not set"),
        (f"{term}.mismatchLabelKeys", "Forbidden: must not be specified when labelSelector is not set")]


def test_hostname_override():
    assert _errors(_jobset({"hostnameOverride": "node-1.example"})) == []
    assert _errors(_jobset({"hostnameOverride": "Node_1", "hostNetwork": True, "setHostnameAsFQDN": True}))[:2] == [
        (POD + "hostnameOverride", "Forbidden: may not be specified when setHostnameAsFQDN is true"),
        (POD + "hostnameOverride", "Forbidden: may not be specified when hostNetwork is true")]
    assert (POD + "hostnameOverride", "Too long: may not be more than 64 bytes") in _errors(_jobset({"hostnameOverride": "a" * 65}))


def test_numbers_too_long_to_convert_are_errors_not_crashes():
    js = _jobset({}, job={"completionMode": "Indexed", "completions": 5,
                          "successPolicy": {"rules": [{"succeededIndexes": "9" * 5000}]}})
    assert _errors(js) == [("spec.replicatedJobs[0].template.spec.successPolicy.rules[0].succeededIndexes",
                            f'Invalid value: "{"9" * 5000}": error parsing succeededIndexes: '
                            f'cannot convert string to integer for index: "{"9" * 5000}"')]
    js = _jobset({})
    js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"] = {
        "annotations": {"controller.kubernetes.io/pod-deletion-cost": "1" * 5000}}
    assert [m for _, m in _errors(js)] == [f'Invalid value: "{"1" * 5000}": must be a 32bit integer']
