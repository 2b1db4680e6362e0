"""kpt_fn.admission.check: one TrainJob's created objects under the policies, each finding naming
the object, the policy and binding, and the TrainJob or runtime field it came from."""

from __future__ import annotations

from kpt_fn.admission import check, inputs
from kpt_fn.problems import ERROR, INFO
from support import celpy_admission

TRAINJOB = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
            "metadata": {"name": "llm", "namespace": "team-a"},
            "spec": {"runtimeRef": {"name": "torch"}, "trainer": {"image": "docker.io/me/train:1", "numNodes": 8}}}
RUNTIME = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime", "metadata": {"name": "torch"},
           "spec": {"template": {"spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {
               "containers": [{"name": "node", "image": "reg/torch:1"}]}}}}}]}}}}
JOBSET = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "llm", "namespace": "team-a"},
          "spec": {"network": {"enableDNSHostnames": True}, "replicatedJobs": [
              {"name": "node", "replicas": 1, "template": {
                  "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                  "spec": {"completionMode": "Indexed", "parallelism": 8, "completions": 8,
                                                                    "template": {"spec": {"containers": [
                                                                        {"name": "node", "image": "docker.io/me/train:1"}]}}}}}]}}


def policies(resource, expression, field=None, actions=("Deny",)):
    group = {"pods": "", "jobs": "batch", "jobsets": "jobset.x-k8s.io", "trainjobs": "trainer.kubeflow.org"}[resource]
    v = {"expression": expression, "message": "refused"}
    if field:
        v["fieldPath"] = field
    found, _ = inputs.gather([
        {"apiVersion": inputs.API_VERSION, "kind": inputs.POLICY, "metadata": {"name": "pol"},
         "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": [group], "apiVersions": ["*"], "resources": [resource],
                                                          "operations": ["CREATE"]}]}, "validations": [v]}},
        {"apiVersion": inputs.API_VERSION, "kind": inputs.BINDING, "metadata": {"name": "bind"},
         "spec": {"policyName": "pol", "validationActions": list(actions)}}])
    return found


def run(found):
    return check.check(TRAINJOB, RUNTIME, [JOBSET], found, {}, cel=celpy_admission)


def test_pod_refusal_names_the_pod_policy_binding_and_trainjob_field():
    problems = run(policies("pods", "object.spec.containers.all(c, c.image.startsWith('reg/'))", "spec.containers[0].image"))
    refusal = problems[0]
    assert refusal.message == ("Pod `llm-node-0-0` of Job `llm-node-0` (and 3 more like it): ValidatingAdmissionPolicy "
                               "'pol' with binding 'bind' denied request: refused")
    assert (refusal.path, refusal.subject, refusal.severity) == ("spec.trainer.image", None, ERROR)
    assert problems[1].severity == INFO and "4 more like Pod `llm-node-0-7`" in problems[1].message


def test_without_field_path_the_replicated_job_of_the_runtime_is_named():
    problem, sampled = run(policies("jobs", "'team' in object.metadata.labels"))
    assert sampled.rule == "admission/sampled"
    assert problem.message.startswith("Job `llm-node-0` of JobSet `llm`: ")
    assert (problem.path, problem.subject) == ("spec.template.spec.replicatedJobs[0]", RUNTIME)


def test_jsonpath_field_paths():
    assert check._field(".metadata.labels['team']") == "metadata.labels[team]"
    assert check._field('spec.containers[0]["image"]') == "spec.containers[0][image]"
    assert check._field(None) == ""


def test_trainjob_itself_is_judged():
    [problem] = run(policies("trainjobs", "has(object.metadata.labels)", "metadata.labels"))
    assert problem.message.startswith("TrainJob `llm`: ") and problem.path == "metadata.labels"


def test_controls_pass():
    assert run(policies("pods", "object.spec.containers.size() == 1")) == []
    assert run(policies("jobsets", "object.spec.replicatedJobs.size() == 1")) == []
