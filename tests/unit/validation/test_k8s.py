"""Kubernetes 1.36's checks of the Jobs and Pods a JobSet makes (kpt_fn/validation/k8s), one table per
family. Invalid and valid cases follow upstream's own tables in pkg/apis/core/validation/validation_test.go
(TestValidateEnv, TestValidateEnvFrom, TestValidateContainerPorts, TestValidateVolumeMounts,
TestValidateVolumes, TestValidateProbe, TestValidateResourceRequirements, TestValidateContainers,
TestValidateInitContainers, TestValidateTolerations, TestValidateTopologySpreadConstraints,
TestValidatePodSpec) and pkg/apis/batch/validation/validation_test.go (TestValidateJob), rewritten as
pod templates of one replicated job; paths are the rendered JobSet's."""

from __future__ import annotations

import pytest

from kpt_fn import validation
from kpt_fn.apimachinery import validation as utilvalidation
from kpt_fn.validation.k8s import env

POD = "spec.replicatedJobs[0].template.spec.template.spec."
JOB = "spec.replicatedJobs[0].template.spec."
C0 = "containers[0]."


def ctr(**fields):
    return {"name": "c", "image": "img", **fields}


def jobset(pod=None, containers=None, **job):
    spec = {"containers": containers if containers is not None else [ctr()], **(pod or {})}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js", "namespace": "ns"},
            "spec": {"replicatedJobs": [{"name": "node", "replicas": 1, "template": {
                "spec": {"parallelism": 1, "completions": 1, **job, "template": {"spec": spec}}}}]}}


def errors(js) -> list[tuple[str, str]]:
    out = []
    for p in validation.check_job_templates(js):
        assert p.rule.startswith("k8s/"), p
        path = p.path[len(POD):] if p.path.startswith(POD) else p.path[len(JOB) - 1:] if p.path.startswith(JOB) else p.path
        out.append((path, p.message))
    return out


def of(**c):
    """The errors of a pod with one container carrying `c`."""
    return errors(jobset(containers=[ctr(**c)]))


# --- resources ---------------------------------------------------------------------------------

GPU = "nvidia.com/gpu"


@pytest.mark.parametrize("resources", [
    {"limits": {GPU: "2"}},                                   # GPU only in limits: the request defaults to it
    {"requests": {GPU: "2"}, "limits": {GPU: 2}},
    {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}},
    {"requests": {"cpu": "1"}},                               # cpu may be requested without a limit
    {"limits": {"hugepages-2Mi": "4Mi", "memory": "1Gi"}, "requests": {"hugepages-2Mi": "4Mi", "memory": "1Gi"}},
    {"requests": {"ephemeral-storage": "10Gi"}, "limits": {"ephemeral-storage": "20Gi"}},
    {"limits": {"example.com/a": "0"}},
    {"requests": {"cpu": "0"}, "limits": {"cpu": "0"}},
])
def test_valid_resources(resources):
    assert of(resources=resources) == []


@pytest.mark.parametrize("resources,expected", [
    ({"requests": {GPU: "1"}}, [(C0 + "resources.limits", "Required value: Limit must be set for non overcommitable resources")]),
    ({"requests": {GPU: "1"}, "limits": {GPU: "2"}},
     [(C0 + "resources.requests", 'Invalid value: "1": must be equal to nvidia.com/gpu limit of 2')]),
    ({"limits": {GPU: "0.5"}}, [(C0 + "resources.limits[nvidia.com/gpu]", 'Invalid value: "500m": must be an integer')]),
    ({"requests": {"cpu": "2"}, "limits": {"cpu": "1"}},
     [(C0 + "resources.requests", 'Invalid value: "2": must be less than or equal to cpu limit of 1')]),
    ({"requests": {"memory": "2Gi"}, "limits": {"memory": "1Gi"}},
     [(C0 + "resources.requests", 'Invalid value: "2Gi": must be less than or equal to memory limit of 1Gi')]),
    ({"limits": {GPU: "-16"}}, [(C0 + "resources.limits[nvidia.com/gpu]", 'Invalid value: "-16": must be greater than or equal to 0')]),
    ({"requests": {"cpu": "-1"}}, [(C0 + "resources.requests[cpu]", 'Invalid value: "-1": must be greater than or equal to 0')]),
    ({"limits": {"hugepages-2Mi": "2Mi"}}, [(C0 + "resources", "Forbidden: HugePages require cpu or memory")]),
    ({"limits": {"hugepages-2Mi": "3Mi", "memory": "1Gi"}},
     [(C0 + "resources.limits[hugepages-2Mi]", 'Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi')]),
    ({"requests": {"hugepages-2Mi": "2Mi", "cpu": "1"}},
     [(C0 + "resources.limits", "Required value: Limit must be set for non overcommitable resources")]),
    ({"limits": {"gpu": "1"}}, [
        (C0 + "resources.limits[gpu]", 'Invalid value: "gpu": must be a standard resource type or fully qualified'),
        (C0 + "resources.limits[gpu]", 'Invalid value: "gpu": must be a standard resource for containers')]),
    ({"limits": {"storage": "1Gi"}}, [(C0 + "resources.limits[storage]", 'Invalid value: "storage": must be a standard resource for containers')]),
    # validateResourceName: every IsQualifiedName message, then nothing else
    ({"limits": {"-Bad_/x-": "1"}}, [(C0 + "resources.limits[-Bad_/x-]", 'Invalid value: "-Bad_/x-": ' + m)
                                     for m in utilvalidation.is_qualified_name("-Bad_/x-")]),
    ({"limits": {"example.com/foo/bar": "1"}}, [(C0 + "resources.limits[example.com/foo/bar]", 'Invalid value: "example.com/foo/bar": ' + m)
                                                for m in utilvalidation.is_qualified_name("example.com/foo/bar")]),
])
def test_invalid_resources(resources, expected):
    assert of(resources=resources) == expected


def test_overhead_and_pod_level_resources():
    assert errors(jobset({"overhead": {"cpu": "-1"}})) == [("overhead.limits[cpu]", 'Invalid value: "-1": must be greater than or equal to 0')]
    assert errors(jobset({"resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}})) == [
        ("resources.requests", 'Invalid value: "2": must be less than or equal to cpu limit of 1')]


# --- the Job and its pods' restartPolicy --------------------------------------------------------


def test_job_pods_restart_on_failure_or_never():
    assert errors(jobset()) == []  # unset: the JobSet webhook sets OnFailure
    assert errors(jobset({"restartPolicy": "Never"})) == []
    assert errors(jobset({"restartPolicy": "Always"})) == [
        ("restartPolicy", 'Required value: valid values: "OnFailure", "Never"')]
    assert errors(jobset({"restartPolicy": "Sometimes"})) == [
        ("restartPolicy", 'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'),
        ("restartPolicy", 'Unsupported value: "Sometimes": supported values: "OnFailure", "Never"')]
    pfp = {"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}]}
    assert errors(jobset({"restartPolicy": "OnFailure"}, podFailurePolicy=pfp)) == [
        ("restartPolicy", 'Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified')]
    assert errors(jobset({"restartPolicy": "Never"}, podFailurePolicy=pfp)) == []


def test_job_counts():
    assert errors(jobset(parallelism=-1, completions=-1, backoffLimit=-2, activeDeadlineSeconds=-1, ttlSecondsAfterFinished=-1)) == [
        (".parallelism", "Invalid value: -1: must be greater than or equal to 0"),
        (".completions", "Invalid value: -1: must be greater than or equal to 0"),
        (".activeDeadlineSeconds", "Invalid value: -1: must be greater than or equal to 0"),
        (".backoffLimit", "Invalid value: -2: must be greater than or equal to 0"),
        (".ttlSecondsAfterFinished", "Invalid value: -1: must be greater than or equal to 0")]


def test_indexed_job_needs_completions_and_bounded_parallelism():
    js = jobset(parallelism=2)
    del js["spec"]["replicatedJobs"][0]["template"]["spec"]["completions"]
    assert errors(js) == [(".completions", "Required value: when completion mode is Indexed")]
    js["spec"]["replicatedJobs"][0]["template"]["spec"]["completionMode"] = "NonIndexed"
    assert errors(js) == []
    assert errors(jobset(parallelism=100001, completions=100001)) == [
        (".parallelism", "Invalid value: 100001: must be less than or equal to 100000 when completion mode is Indexed")]
    assert errors(jobset(completionMode="Sometimes")) == [
        (".completionMode", 'Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"')]


def test_backoff_limit_per_index():
    assert errors(jobset(backoffLimitPerIndex=1, maxFailedIndexes=1)) == []
    assert errors(jobset(maxFailedIndexes=1)) == [(".backoffLimitPerIndex", "Required value: when maxFailedIndexes is specified")]
    assert errors(jobset(backoffLimitPerIndex=1, maxFailedIndexes=2, completions=1)) == [
        (".maxFailedIndexes", "Invalid value: 2: must be less than or equal to completions")]
    assert errors(jobset(backoffLimitPerIndex=1, completionMode="NonIndexed")) == [
        (".backoffLimitPerIndex", "Invalid value: 1: requires indexed completion mode")]


def test_pod_failure_policy():
    def pfp(*rules, **job):
        return errors(jobset({"restartPolicy": "Never"}, podFailurePolicy={"rules": list(rules)}, **job))

    assert pfp({"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]},
               {"action": "Count", "onExitCodes": {"containerName": "c", "operator": "NotIn", "values": [0, 1, 2]}}) == []
    assert pfp({"action": "FailIndex", "onExitCodes": {"operator": "In", "values": [3]}}) == [
        (".podFailurePolicy.rules[0].action", 'Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set')]
    assert pfp({"action": "Restart", "onExitCodes": {"operator": "In", "values": [3]}}) == [
        (".podFailurePolicy.rules[0].action", 'Unsupported value: "Restart": supported values: "Count", "FailIndex", "FailJob", "Ignore"')]
    assert pfp({"action": "FailJob", "onExitCodes": {"containerName": "x", "operator": "In", "values": [0, 2, 2, 1]}}) == [
        (".podFailurePolicy.rules[0].onExitCodes.containerName", 'Invalid value: "x": must be one of the container or initContainer names in the pod template'),
        (".podFailurePolicy.rules[0].onExitCodes.values[0]", "Invalid value: 0: must not be 0 for the In operator"),
        (".podFailurePolicy.rules[0].onExitCodes.values[2]", "Duplicate value: 2"),
        (".podFailurePolicy.rules[0].onExitCodes.values", "Invalid value: [0,2,2,1]: must be ordered")]
    assert pfp({"action": "FailJob", "onExitCodes": {"values": []}}) == [
        (".podFailurePolicy.rules[0].onExitCodes.operator", 'Required value: valid values: ["In" "NotIn"]'),
        (".podFailurePolicy.rules[0].onExitCodes.values", "Invalid value: []: at least one value is required")]
    assert pfp({"action": "FailJob"}) == [
        (".podFailurePolicy.rules[0]", "Invalid value: specifying one of OnExitCodes and OnPodConditions is required")]
    assert pfp({"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "Maybe"}]}) == [
        (".podFailurePolicy.rules[0].onPodConditions[0].status", 'Unsupported value: "Maybe": supported values: "False", "True", "Unknown"')]


def test_success_policy_and_pod_replacement_policy():
    assert errors(jobset(completions=4, successPolicy={"rules": [{"succeededIndexes": "0-2", "succeededCount": 2}]})) == []
    assert errors(jobset(completions=4, successPolicy={"rules": [{}]})) == [
        (".successPolicy.rules[0]", "Required value: at least one of succeededCount or succeededIndexes must be specified")]
    assert errors(jobset(completions=4, successPolicy={"rules": [{"succeededCount": 5}]})) == [
        (".successPolicy.rules[0].succeededCount", "Invalid value: 5: must be less than or equal to 4 (the number of specified completions)")]
    assert errors(jobset(completions=4, successPolicy={"rules": [{"succeededIndexes": "0-2,1"}, {"succeededIndexes": "7"}]})) == [
        (".successPolicy.rules[0].succeededIndexes", 'Invalid value: "0-2,1": error parsing succeededIndexes: non-increasing order, previous: 2, current: 1'),
        (".successPolicy.rules[1].succeededIndexes", 'Invalid value: "7": error parsing succeededIndexes: too large index: "7"')]
    assert errors(jobset(completionMode="NonIndexed", successPolicy={"rules": [{"succeededCount": 1}]})) == [
        (".successPolicy", 'Invalid value: {"rules":[{"succeededCount":1}]}: requires indexed completion mode')]
    assert errors(jobset(podReplacementPolicy="Failed")) == []
    assert errors(jobset(podReplacementPolicy="Never")) == [
        (".podReplacementPolicy", 'Unsupported value: "Never": supported values: "Failed", "TerminatingOrFailed"')]


# --- containers ---------------------------------------------------------------------------------


def test_containers():
    assert of(imagePullPolicy="IfNotPresent", terminationMessagePolicy="FallbackToLogsOnError") == []
    assert of(imagePullPolicy="Sometimes") == [
        (C0 + "imagePullPolicy", 'Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"')]
    assert of(terminationMessagePolicy="Always") == [
        (C0 + "terminationMessagePolicy", 'Unsupported value: "Always": supported values: "File", "FallbackToLogsOnError"')]
    assert errors(jobset(containers=[{"name": "c"}])) == [(C0 + "image", "Required value")]
    assert errors(jobset(containers=[ctr(name="Big_Name")]))[0][1].startswith('Invalid value: "Big_Name": a lowercase RFC 1123 label')
    assert errors(jobset(containers=[ctr(), ctr()])) == [("containers[1].name", 'Duplicate value: "c"')]
    assert errors(jobset({"initContainers": [ctr()]})) == [("initContainers[0].name", 'Duplicate value: "c"')]
    assert errors(jobset(containers=[])) == [("containers", "Required value")]


def test_init_containers_and_sidecars():
    probe = {"exec": {"command": ["true"]}}
    sidecar = ctr(name="side", restartPolicy="Always", readinessProbe=probe, startupProbe=probe,
                  lifecycle={"preStop": {"sleep": {"seconds": 5}}})
    assert errors(jobset({"initContainers": [sidecar]})) == []
    plain = ctr(name="init", livenessProbe=probe, lifecycle={"postStart": {"exec": {"command": ["x"]}}})
    assert errors(jobset({"initContainers": [plain]})) == [
        ("initContainers[0].lifecycle", "Forbidden: may not be set for init containers without restartPolicy=Always"),
        ("initContainers[0].livenessProbe", "Forbidden: may not be set for init containers without restartPolicy=Always")]


# --- env ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["abc", "A_B", "a.b.c", "a-b-c", "1abc", "my.env-name", "!\"#$%&'()*+,-./:;<>?@[\\]^_`{|}~", "with space"])
def test_env_names_are_printable_ascii_but_equals(name):
    assert of(env=[{"name": name, "value": "v"}]) == []


@pytest.mark.parametrize("name", ["a=b", "tab\there", "é"])
def test_invalid_env_names(name):
    assert of(env=[{"name": name}]) == [(C0 + "env[0].name", f'Invalid value: "{name}": a valid environment variable name '
                                         "must consist only of printable ASCII characters other than '='")
                                        if name != "tab\there" else
                                        (C0 + "env[0].name", 'Invalid value: "tab\\there": a valid environment variable name '
                                         "must consist only of printable ASCII characters other than '='")]


def test_env_value_from():
    ok = [{"name": "a", "valueFrom": {"fieldRef": {"fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}},
          {"name": "b", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}},
          {"name": "c", "valueFrom": {"resourceFieldRef": {"resource": "limits.memory", "divisor": "1Mi"}}},
          {"name": "d", "valueFrom": {"resourceFieldRef": {"resource": "requests.cpu", "divisor": "0"}}},
          {"name": "e", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "k.e-y_1"}}},
          {"name": "f", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k", "optional": True}}},
          {"name": "g", "valueFrom": {"fileKeyRef": {"volumeName": "envs", "path": "vars.env", "key": "G"}}}]
    assert errors(jobset({"volumes": [{"name": "envs", "emptyDir": {}}]}, containers=[ctr(env=ok)])) == []
    v = C0 + "env[0].valueFrom"
    assert of(env=[{"name": "a", "valueFrom": {}}]) == [
        (v, 'Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`')]
    assert of(env=[{"name": "a", "value": "x", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]) == [
        (v, 'Invalid value: "": may not be specified when `value` is not empty')]
    assert of(env=[{"name": "a", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}, "secretKeyRef": {"name": "s", "key": "k"}}}]) == [
        (v, 'Invalid value: "": may not have more than one field specified at a time')]
    assert of(env=[{"name": "a", "valueFrom": {"fieldRef": {"fieldPath": "status.phase"}}}]) == [
        (v + ".fieldRef.fieldPath", 'Unsupported value: "status.phase": supported values: "metadata.name", "metadata.namespace", '
         '"metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"')]
    assert of(env=[{"name": "a", "valueFrom": {"fieldRef": {"fieldPath": "spec.bogus"}}}]) == [
        (v + ".fieldRef.fieldPath", 'Invalid value: "spec.bogus": error converting fieldPath: field label not supported: spec.bogus')]
    # ConvertDownwardAPIFieldLabel (pkg/apis/core/pods/helpers.go): `spec.host` is the old name of spec.nodeName;
    # a subscript on another label is refused with its own text
    assert of(env=[{"name": "a", "valueFrom": {"fieldRef": {"fieldPath": "spec.host"}}}]) == []
    assert of(env=[{"name": "a", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name['x']"}}}]) == [
        (v + ".fieldRef.fieldPath",
         'Invalid value: "metadata.name[\'x\']": error converting fieldPath: field label does not support subscript: metadata.name[\'x\']')]
    assert of(env=[{"name": "a", "valueFrom": {"fieldRef": {}}}]) == [(v + ".fieldRef.fieldPath", "Required value")]
    assert of(env=[{"name": "a", "valueFrom": {"secretKeyRef": {"name": "s"}}}]) == [(v + ".secretKeyRef.key", "Required value")]
    assert of(env=[{"name": "a", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "2"}}}]) == [
        (v + ".resourceFieldRef.divisor", 'Invalid value: "limits.cpu": only divisor\'s values 1m and 1 are supported with the cpu resource')]
    assert of(env=[{"name": "a", "valueFrom": {"resourceFieldRef": {"resource": "limits.gpu"}}}]) == [
        (v + ".resourceFieldRef.resource", 'Unsupported value: "limits.gpu": supported values: "limits.cpu", "limits.ephemeral-storage", '
         '"limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"')]
    # validateFileKeySelector refuses only backsteps in `path`; validateFileKeyRefVolumes wants an emptyDir
    assert of(env=[{"name": "a", "valueFrom": {"fileKeyRef": {"volumeName": "nope", "path": "../x", "key": "K"}}}]) == [
        (v + ".fileKeyRef.path", 'Invalid value: "../x": must not contain \'..\''),
        (v + ".fileKeyRef.volumeName", 'Not found: "nope"')]
    assert of(env=[{"name": "a", "valueFrom": {"fileKeyRef": {"volumeName": "Bad_Vol", "path": "p", "key": "a=b"}}}]) == [
        (v + ".fileKeyRef.key", 'Invalid value: "a=b": ' + env.RELAXED_NAME_MSG),
        (v + ".fileKeyRef.volumeName", 'Invalid value: "Bad_Vol": ' + utilvalidation.is_dns1123_label("Bad_Vol")[0]),
        (v + ".fileKeyRef.volumeName", 'Not found: "Bad_Vol"')]
    abs_path = [{"name": "a", "valueFrom": {"fileKeyRef": {"volumeName": "envs", "path": "/etc/app.env", "key": "K"}}}]
    assert errors(jobset({"volumes": [{"name": "envs", "emptyDir": {}}]}, containers=[ctr(env=abs_path)])) == []
    # SetDefaults_Volume: a volume with no source is an emptyDir
    assert errors(jobset({"volumes": [{"name": "envs"}]}, containers=[ctr(env=abs_path)])) == []
    assert errors(jobset({"volumes": [{"name": "envs", "configMap": {"name": "cm"}}]}, containers=[ctr(env=abs_path)])) == [
        (v + ".fileKeyRef.volumeName", 'Invalid value: "envs": referenced volume must be of type emptyDir')]


def test_env_from():
    assert of(envFrom=[{"configMapRef": {"name": "cm"}, "prefix": "P."}, {"secretRef": {"name": "s"}}]) == []
    assert of(envFrom=[{"prefix": "a"}]) == [(C0 + "envFrom", 'Invalid value: "": must specify one of: `configMapRef` or `secretRef`')]
    assert of(envFrom=[{"configMapRef": {"name": "cm"}, "secretRef": {"name": "s"}}]) == [
        (C0 + "envFrom", 'Invalid value: "": may not have more than one field specified at a time')]
    assert of(envFrom=[{"configMapRef": {}, "prefix": "a=b"}]) == [
        (C0 + "envFrom[0].prefix", "Invalid value: \"a=b\": a valid environment variable name must consist only of printable ASCII characters other than '='"),
        (C0 + "envFrom[0].configMapRef.name", "Required value")]


# --- ports and probes ---------------------------------------------------------------------------


def test_ports():
    assert of(ports=[{"containerPort": 80}, {"containerPort": 8080, "name": "http", "protocol": "UDP"},
                     {"containerPort": 9090, "hostPort": 9090}]) == []
    assert of(ports=[{"containerPort": 0}]) == [(C0 + "ports[0].containerPort", "Required value")]
    assert of(ports=[{"containerPort": 70000}]) == [(C0 + "ports[0].containerPort", "Invalid value: 70000: must be between 1 and 65535, inclusive")]
    assert of(ports=[{"containerPort": 80, "protocol": ""}]) == []  # SetDefaults_ContainerPort: "" becomes TCP
    assert of(ports=[{"containerPort": 80, "protocol": "tcp"}]) == [
        (C0 + "ports[0].protocol", 'Unsupported value: "tcp": supported values: "SCTP", "TCP", "UDP"')]
    assert of(ports=[{"containerPort": 80, "name": "a"}, {"containerPort": 81, "name": "a"}]) == [(C0 + "ports[1].name", 'Duplicate value: "a"')]
    assert of(ports=[{"containerPort": 80, "name": "Http_1"}]) == [
        (C0 + "ports[0].name", 'Invalid value: "Http_1": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)')]
    two = [ctr(ports=[{"containerPort": 80, "hostPort": 80}]), ctr(name="d", ports=[{"containerPort": 81, "hostPort": 80}])]
    assert errors(jobset(containers=two)) == [("containers[1].ports[0].hostPort", 'Duplicate value: "TCP//80"')]
    assert errors(jobset({"hostNetwork": True}, containers=[ctr(ports=[{"containerPort": 80, "hostPort": 81}])])) == [
        ("containers[0].ports[0].hostPort", "Invalid value: 81: must match `containerPort` when `hostNetwork` is true")]


def test_probes():
    named = {"httpGet": {"port": "http"}, "periodSeconds": 5}
    assert of(ports=[{"containerPort": 80, "name": "http"}], livenessProbe=named, readinessProbe={"tcpSocket": {"port": 80}},
              startupProbe={"grpc": {"port": 9000}, "failureThreshold": 30}) == []
    assert of(livenessProbe={}) == [(C0 + "livenessProbe", "Required value: must specify a handler type")]
    assert of(livenessProbe={"exec": {"command": ["x"]}, "httpGet": {"port": 80}}) == [
        (C0 + "livenessProbe.httpGet", "Forbidden: may not specify more than 1 handler type")]
    assert of(livenessProbe={"exec": {"command": ["x"]}, "successThreshold": 2}) == [
        (C0 + "livenessProbe.successThreshold", "Invalid value: 2: must be 1")]
    assert of(readinessProbe={"exec": {"command": ["x"]}, "successThreshold": 2, "periodSeconds": -1}) == [
        (C0 + "readinessProbe.periodSeconds", "Invalid value: -1: must be greater than or equal to 0")]
    assert of(livenessProbe={"httpGet": {"port": 0, "scheme": "FTP"}}) == [
        (C0 + "livenessProbe.httpGet.port", "Invalid value: 0: must be between 1 and 65535, inclusive"),
        (C0 + "livenessProbe.httpGet.scheme", 'Unsupported value: "FTP": supported values: "HTTP", "HTTPS"')]
    assert of(lifecycle={"preStop": {"sleep": {"seconds": 31}}}) == [
        (C0 + "lifecycle.preStop.sleep", "Invalid value: 31: must be non-negative and less than terminationGracePeriodSeconds (30)")]
    assert of(lifecycle={"preStop": {"exec": {}}}) == [(C0 + "lifecycle.preStop.exec.command", "Required value")]


# --- volumes ------------------------------------------------------------------------------------


def test_volumes_and_mounts():
    projected = {"sources": [{"secret": {"name": "s", "items": [{"key": "a", "path": "a"}]}},
                             {"configMap": {"name": "c", "items": [{"key": "b", "path": "b"}]}},
                             {"downwardAPI": {"items": [{"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]}},
                             {"serviceAccountToken": {"path": "token", "expirationSeconds": 3600}}]}
    volumes = [{"name": "data", "persistentVolumeClaim": {"claimName": "pvc"}}, {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "1Gi"}},
               {"name": "proj", "projected": projected}, {"name": "cfg", "configMap": {"name": "c", "defaultMode": 0o644}}]
    mounts = [{"name": "data", "mountPath": "/data"}, {"name": "shm", "mountPath": "/dev/shm"},
              {"name": "proj", "mountPath": "/var/run/p", "readOnly": True, "recursiveReadOnly": "IfPossible"},
              {"name": "cfg", "mountPath": "/etc/c", "subPath": "x/y"}]
    assert errors(jobset({"volumes": volumes, "serviceAccountName": "sa"}, containers=[ctr(volumeMounts=mounts)])) == []
    assert of(volumeMounts=[{"name": "missing", "mountPath": "/m"}]) == [(C0 + "volumeMounts[0].name", 'Not found: "missing"')]
    assert errors(jobset({"volumes": [{"name": "v", "emptyDir": {}}]}, containers=[ctr(volumeMounts=[
        {"name": "v", "mountPath": "/a"}, {"name": "v", "mountPath": "/a", "subPath": "../x"}])])) == [
        (C0 + "volumeMounts[1].mountPath", 'Invalid value: "/a": must be unique'),
        (C0 + "volumeMounts.subPath", "Invalid value: \"../x\": must not contain '..'")]
    # SetDefaults_Volume makes a volume without a source an emptyDir before validation runs
    assert errors(jobset({"volumes": [{"name": "v"}]})) == []
    assert errors(jobset({"volumes": [{"name": "v", "emptyDir": {}, "secret": {"secretName": "s"}}]})) == [
        ("volumes[0].secret", "Forbidden: may not specify more than 1 volume type")]
    assert errors(jobset({"volumes": [{"name": "v", "emptyDir": {}}, {"name": "v", "emptyDir": {}}]})) == [
        ("volumes[1].name", 'Duplicate value: "v"')]
    assert errors(jobset({"volumes": [{"name": "v", "hostPath": {"path": "/x", "type": "Dir"}}]})) == [
        ("volumes[0].hostPath.type", 'Unsupported value: "Dir": supported values: "", "BlockDevice", "CharDevice", "Directory", '
         '"DirectoryOrCreate", "File", "FileOrCreate", "Socket"')]
    assert errors(jobset({"volumes": [{"name": "v", "secret": {"secretName": "s", "defaultMode": 0o1000}}]})) == [
        ("volumes[0].secret.defaultMode", "Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive")]
    assert errors(jobset({"volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": ""}}]})) == [
        ("volumes[0].persistentVolumeClaim.claimName", "Required value")]


# --- security context, scheduling, pod-level fields ---------------------------------------------


def test_security_context():
    sc = {"runAsUser": 1000, "runAsGroup": 1000, "allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]},
          "seccompProfile": {"type": "RuntimeDefault"}, "privileged": False}
    assert errors(jobset({"securityContext": {"fsGroup": 2000, "sysctls": [{"name": "net.core.somaxconn", "value": "1024"}]}},
                         containers=[ctr(securityContext=sc)])) == []
    assert of(securityContext={"runAsUser": -1}) == [(C0 + "securityContext.runAsUser", "Invalid value: -1: must be between 0 and 2147483647, inclusive")]
    assert of(securityContext={"seccompProfile": {"type": "Localhost"}}) == [
        (C0 + "securityContext.seccompProfile.localhostProfile", "Required value: must be set when seccomp type is Localhost")]
    assert of(securityContext={"procMount": "Unmasked"}) == [
        (C0 + "securityContext.procMount", 'Invalid value: "Unmasked": `hostUsers` must be false to use `Unmasked`')]
    assert errors(jobset({"securityContext": {"sysctls": [{"name": "Bad Name"}]}}))[0][0] == "securityContext.sysctls[0].name"
    # validateHostUsers: the detail names the v1 field `hostUsers`
    assert errors(jobset({"hostUsers": False, "hostPID": True})) == [("HostPID", "Forbidden: when `hostUsers` is false")]
    # ValidateHostSysctl: namespaced sysctls and the host's namespaces
    assert errors(jobset({"hostNetwork": True, "hostIPC": True, "securityContext": {"sysctls": [
        {"name": "net.core.somaxconn", "value": "1"}, {"name": "kernel.shmmax", "value": "1"}, {"name": "vm.swappiness", "value": "1"}]}})) == [
        ("securityContext.sysctls[0].name", 'Invalid value: "net.core.somaxconn": may not be specified when \'hostNetwork\' is true'),
        ("securityContext.sysctls[1].name", 'Invalid value: "kernel.shmmax": may not be specified when \'hostIPC\' is true')]
    assert errors(jobset({"hostNetwork": True, "securityContext": {"sysctls": [{"name": "kernel.sem", "value": "1"}]}})) == []


def test_scheduling():
    ok = {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}, {"operator": "Exists"},
                          {"key": "k", "value": "v", "effect": "NoExecute", "tolerationSeconds": 60}],
          "nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"},
          "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
              {"matchExpressions": [{"key": "gpu", "operator": "Gt", "values": ["3"]}]}]}},
              "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "podAffinityTerm": {
                  "topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "x"}}}}]}},
          "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "minDomains": 2,
                                         "labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["x"]}]}}]}
    assert errors(jobset(ok)) == []
    assert errors(jobset({"tolerations": [{"operator": "Equal", "value": "v"}]})) == [
        ("tolerations[0].operator", 'Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"')]
    assert errors(jobset({"tolerations": [{"key": "k", "operator": "Exists", "tolerationSeconds": 5}]})) == [
        ("tolerations[0].effect", "Invalid value: \"\": effect must be 'NoExecute' when `tolerationSeconds` is set")]
    assert errors(jobset({"tolerations": [{"key": "k", "operator": "Exists", "effect": "NoRun"}]})) == [
        ("tolerations[0].effect", 'Unsupported value: "NoRun": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"')]
    assert errors(jobset({"topologySpreadConstraints": [{"maxSkew": 0, "topologyKey": "", "whenUnsatisfiable": "Maybe"}]})) == [
        ("topologySpreadConstraints[0].maxSkew", "Invalid value: 0: must be greater than zero"),
        ("topologySpreadConstraints[0].topologyKey", "Required value: can not be empty"),
        ("topologySpreadConstraints[0].whenUnsatisfiable", 'Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"')]
    # validateTopologySpreadConstraints: ValidatePositiveField says "greater than zero" for minDomains as well; an
    # absent maxSkew (0) and whenUnsatisfiable ("") are refused; the topologyKey has no label-name syntax check
    T = "topologySpreadConstraints[0]."
    assert errors(jobset({"topologySpreadConstraints": [{"topologyKey": "zone"}]})) == [
        (T + "maxSkew", "Invalid value: 0: must be greater than zero"),
        (T + "whenUnsatisfiable", 'Unsupported value: "": supported values: "DoNotSchedule", "ScheduleAnyway"')]
    assert errors(jobset({"topologySpreadConstraints": [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway", "minDomains": 0}]})) == [
        (T + "minDomains", "Invalid value: 0: must be greater than zero"),
        (T + "minDomains", "Invalid value: 0: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway")]
    assert errors(jobset({"topologySpreadConstraints": [
        {"maxSkew": 1, "topologyKey": "rack name/with spaces", "whenUnsatisfiable": "DoNotSchedule"}]})) == []
    assert errors(jobset({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": ""}]}}})) == [
        ("affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey", "Required value: can not be empty"),
        ("affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey",
         "Invalid value: \"\": name part must be non-empty"),
        ("affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey",
         "Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
         "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
         "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")]


def test_pod_level_fields():
    ok = {"dnsPolicy": "None", "dnsConfig": {"nameservers": ["1.1.1.1"], "searches": ["_srv.example.com", "."]},
          "hostname": "h", "subdomain": "s", "priorityClassName": "high", "serviceAccountName": "trainer",
          "activeDeadlineSeconds": 600, "preemptionPolicy": "Never", "schedulingGates": [{"name": "example.com/gate"}]}
    assert errors(jobset(ok)) == []
    assert errors(jobset({"dnsPolicy": "Sometimes"})) == [
        ("dnsPolicy", 'Unsupported value: "Sometimes": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"')]
    assert errors(jobset({"dnsPolicy": "None"})) == [("dnsConfig", "Required value: must provide `dnsConfig` when `dnsPolicy` is None")]
    assert errors(jobset({"hostname": "Bad_Host"}))[0][0] == "hostname"
    assert errors(jobset({"serviceAccountName": "Trainer"}))[0][0] == "serviceAccountName"
    assert errors(jobset({"activeDeadlineSeconds": 0})) == [("activeDeadlineSeconds", "Invalid value: 0: must be between 1 and 2147483647, inclusive")]
    assert errors(jobset({"ephemeralContainers": [ctr(name="dbg")]})) == [
        ("ephemeralContainers", "Forbidden: ephemeral containers not allowed in pod template")]
    assert errors(jobset({"imagePullSecrets": [{"name": "reg", "key": "x"}]})) == [
        ("imagePullSecrets[0]", 'Invalid value: {"key":"x","name":"reg"}: only name may be set')]


def test_each_replicated_job_is_checked_once():
    js = jobset()
    js["spec"]["replicatedJobs"].append({"name": "other", "template": {"spec": {"template": {"spec": {"containers": [ctr(imagePullPolicy="x")]}}}}})
    assert [p.path for p in validation.check_job_templates(js)] == [
        "spec.replicatedJobs[1].template.spec.template.spec.containers[0].imagePullPolicy"]


def test_pod_template_annotations():
    def with_annotations(notes, pod=None, containers=None):
        js = jobset(pod, containers)
        js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"] = {"annotations": notes}
        return errors(js)

    tmpl = "spec.replicatedJobs[0].template.spec.template.annotations"
    assert with_annotations({"controller.kubernetes.io/pod-deletion-cost": "-100",
                             "seccomp.security.alpha.kubernetes.io/pod": "runtime/default",
                             "container.apparmor.security.beta.kubernetes.io/c": "runtime/default"}) == []
    got = [(p.path, p.message) for p in validation.check_job_templates(jobset())]
    assert got == []
    js = jobset()
    js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"] = {"annotations": {
        "controller.kubernetes.io/pod-deletion-cost": "1e3", "seccomp.security.alpha.kubernetes.io/pod": "strict",
        "container.apparmor.security.beta.kubernetes.io/x": "enforce"}}
    assert [(p.path, p.message) for p in validation.check_job_templates(js)] == [
        (tmpl + "[controller.kubernetes.io/pod-deletion-cost]", 'Invalid value: "1e3": must be a 32bit integer'),
        (tmpl + ".seccomp.security.alpha.kubernetes.io/pod", 'Invalid value: "strict": must be a valid seccomp profile'),
        (tmpl + "[container.apparmor.security.beta.kubernetes.io/x]", 'Invalid value: "x": container not found'),
        (tmpl + "[container.apparmor.security.beta.kubernetes.io/x]", 'Invalid value: "enforce": invalid AppArmor profile name: "enforce"')]
    assert with_annotations({"container.seccomp.security.alpha.kubernetes.io/c": "unconfined"},
                            containers=[ctr(securityContext={"seccompProfile": {"type": "RuntimeDefault"}})]) == [
        (C0 + "securityContext.seccompProfile.type", "Forbidden: seccomp type in annotation and field must match")]


def test_pod_level_resources_cover_the_containers():
    assert errors(jobset({"resources": {"requests": {"cpu": "4"}, "limits": {"cpu": "4"}}},
                         containers=[ctr(resources={"requests": {"cpu": "1"}})])) == []
    assert errors(jobset({"resources": {"requests": {"cpu": "1"}, "limits": {"cpu": "2"}}},
                         containers=[ctr(resources={"requests": {"cpu": "2", "memory": "1Gi"}, "limits": {"cpu": "3"}})])) == [
        ("resources.requests[cpu]", 'Invalid value: "1": must be greater than or equal to aggregate container requests of 2'),
        ("resources.containers[0][cpu].limits", 'Invalid value: "3": must be less than or equal to pod limits of 2')]


def test_the_other_os_fields():
    assert errors(jobset({"os": {"name": "linux"}, "securityContext": {"windowsOptions": {"runAsUserName": "x"}}})) == [
        ("securityContext.windowsOptions", "Forbidden: windows options cannot be set for a linux pod")]
    assert errors(jobset({"os": {"name": "windows"}}, containers=[ctr(securityContext={"privileged": False})])) == [
        ("containers[0].securityContext.privileged", "Forbidden: cannot be set for a windows pod")]
    assert errors(jobset({"os": {"name": "plan9"}})) == [("os", 'Unsupported value: "plan9": supported values: "linux", "windows"')]
