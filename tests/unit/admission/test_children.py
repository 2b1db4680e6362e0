"""kpt_fn.admission.children: the Jobs the JobSet controller creates and the Pods the Job controller
creates, as the API server admits them, and how many are judged."""

from __future__ import annotations

import hashlib

from kpt_fn.admission import children


def jobset(replicas=1, parallelism=3, **spec):
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": "llm", "namespace": "team-a", "annotations": {"a": "b"}},
            "spec": {"network": {"enableDNSHostnames": True}, **spec, "replicatedJobs": [
                {"name": "init", "replicas": 1, "groupName": "default",
                 "template": {"spec": {"completionMode": "Indexed", "parallelism": 1, "completions": 1,
                                       "template": {"spec": {"containers": [{"name": "i", "image": "i:1"}]}}}}},
                {"name": "node", "replicas": replicas, "groupName": "default",
                 "template": {"metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                              "spec": {"completionMode": "Indexed", "parallelism": parallelism, "completions": parallelism,
                                       "template": {"metadata": {"labels": {"app": "x"}},
                                                    "spec": {"containers": [{"name": "node", "image": "reg/img:1"}]}}}}}]}}


def test_job_names_labels_and_annotations():
    js = jobset(replicas=2)
    job = children.job(js, js["spec"]["replicatedJobs"][1], 1)
    md = job["metadata"]
    assert md["name"] == "llm-node-1" and md["namespace"] == "team-a"
    labels = md["labels"]
    assert labels["trainer.kubeflow.org/trainjob-ancestor-step"] == "trainer"
    assert labels["jobset.sigs.k8s.io/jobset-name"] == "llm"
    assert labels["jobset.sigs.k8s.io/replicatedjob-name"] == "node"
    assert labels["jobset.sigs.k8s.io/job-index"] == "1"
    assert labels["jobset.sigs.k8s.io/job-global-index"] == "2"  # after the one Job of `init`
    assert labels["jobset.sigs.k8s.io/global-replicas"] == "3"
    assert labels["jobset.sigs.k8s.io/replicatedjob-replicas"] == "2"
    assert labels["jobset.sigs.k8s.io/job-key"] == hashlib.sha1(b"team-a/llm-node-1").hexdigest()
    assert md["annotations"]["jobset.sigs.k8s.io/job-index"] == "1"
    template = job["spec"]["template"]
    assert template["metadata"]["labels"]["jobset.sigs.k8s.io/job-index"] == "1"
    assert template["metadata"]["labels"]["batch.kubernetes.io/job-name"] == "llm-node-1"
    assert template["metadata"]["labels"]["app"] == "x"
    assert template["spec"]["subdomain"] == "llm"
    assert job["spec"]["suspend"] is False and job["spec"]["backoffLimit"] == 6


def test_exclusive_placement_with_the_node_selector_strategy():
    js = jobset()
    js["metadata"]["annotations"] = {"alpha.jobset.sigs.k8s.io/exclusive-topology": "rack",
                                     "alpha.jobset.sigs.k8s.io/node-selector": "true"}
    job = children.job(js, js["spec"]["replicatedJobs"][1], 0)
    pod = job["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"alpha.jobset.sigs.k8s.io/namespaced-job": "team-a_llm-node-0"}
    assert pod["tolerations"][0]["key"] == "alpha.jobset.sigs.k8s.io/no-schedule"


def test_indexed_pod():
    js = jobset()
    pod = children.pod(children.job(js, js["spec"]["replicatedJobs"][1], 0), 2)
    md = pod["metadata"]
    assert md["generateName"] == "llm-node-0-2-"
    assert md["labels"]["batch.kubernetes.io/job-completion-index"] == "2"
    assert md["annotations"]["batch.kubernetes.io/job-completion-index"] == "2"
    assert md["ownerReferences"][0]["name"] == "llm-node-0"
    spec = pod["spec"]
    assert spec["hostname"] == "llm-node-0-2" and spec["subdomain"] == "llm"
    container = spec["containers"][0]
    assert {"name": "JOB_COMPLETION_INDEX", "valueFrom": {"fieldRef": {
        "apiVersion": "v1", "fieldPath": "metadata.labels['batch.kubernetes.io/job-completion-index']"}}} in container["env"]
    assert spec["serviceAccountName"] == "default"
    assert container["imagePullPolicy"] == "IfNotPresent"


def test_long_job_names_are_cut_for_generate_name():
    job = {"metadata": {"name": "j" * 60, "namespace": "n"}, "spec": {"completionMode": "Indexed", "template": {"spec": {}}}}
    assert children.pod(job, 7)["metadata"]["generateName"] == "j" * 55 + "-7-"


def test_created_samples_large_jobs_and_says_how_many_are_left():
    trainjob = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": {"name": "llm", "namespace": "team-a"}}
    made = children.created(trainjob, [jobset(replicas=1, parallelism=1000)])
    labels = [c.label for c in made]
    assert labels[:2] == ["TrainJob `llm`", "JobSet `llm`"]
    pods = [c for c in made if c.obj["kind"] == "Pod" and "node" in c.label]
    assert [c.label for c in pods] == [f"Pod `llm-node-0-{i}` of Job `llm-node-0`" for i in (0, 1, 2, 999)]
    assert pods[-1].elided == 996
    assert {c.creator for c in made if c.obj["kind"] == "Pod"} == {children.JOB_CONTROLLER}
    assert {c.creator for c in made if c.obj["kind"] == "Job"} == {children.JOBSET_CONTROLLER}


def test_request_and_resources():
    r = children.request({"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup", "metadata": {"name": "g", "namespace": "n"}})
    assert (r["group"], r["version"], r["resource"], r["operation"]) == ("scheduling.x-k8s.io", "v1alpha1", "podgroups", "CREATE")
    assert children.resource_of("NetworkPolicy") == "networkpolicies"
    assert children.resource_of("Ingress") == "ingresses"


def test_parse_users():
    assert children.parse_users(["job-controller=alice"]) == ({"job-controller": "alice"}, [])
    assert children.parse_users(["robot=alice"])[1]
