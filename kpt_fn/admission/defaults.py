"""What the API server (and its built-in mutating admission) adds to a Job or a Pod before the
validating admission policies see it. Only the fields a policy plausibly reads are written; the
list of what is and is not emulated is in docs/admission.md.

Kubernetes 1.36 sources (kubernetes/kubernetes at v1.36.0):
- pkg/apis/batch/v1/defaults.go SetDefaults_Job: completions and parallelism 1 when both are unset,
  parallelism 1, backoffLimit 6 (MaxInt32 with backoffLimitPerIndex), completionMode NonIndexed,
  suspend false, podReplacementPolicy TerminatingOrFailed (Failed with a podFailurePolicy).
- pkg/registry/batch/job/strategy.go PrepareForCreate / generateSelector: the template labels
  `batch.kubernetes.io/controller-uid`, `batch.kubernetes.io/job-name`, `controller-uid`,
  `job-name`, and the selector on the controller uid (manualSelector unset).
- pkg/apis/core/v1/defaults.go SetDefaults_PodSpec, SetDefaults_Container, SetDefaults_Pod: dnsPolicy
  ClusterFirst, restartPolicy Always, terminationGracePeriodSeconds 30, schedulerName
  default-scheduler, securityContext {}, enableServiceLinks true; per container
  terminationMessagePath /dev/termination-log, terminationMessagePolicy File, imagePullPolicy
  (Always for `:latest` or no tag, else IfNotPresent), port protocol TCP, requests from limits.
- plugin/pkg/admission/serviceaccount/admission.go: serviceAccountName `default`, and (unless
  automountServiceAccountToken is false) the projected token volume `kube-api-access-<random>`
  mounted read-only at /var/run/secrets/kubernetes.io/serviceaccount in every container.
- plugin/pkg/admission/defaulttolerationseconds/admission.go: NoExecute tolerations of
  node.kubernetes.io/not-ready and /unreachable for 300 s, where the pod has none for them.
"""

from __future__ import annotations

# The uid the API server gives a created object cannot be known offline: one fixed stand-in.
UNKNOWN_UID = "00000000-0000-0000-0000-000000000000"
# The five random characters of a generated name (k8s.io/apiserver/pkg/storage/names): a stand-in.
RANDOM_SUFFIX = "xxxxx"
TOKEN_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
MAX_INT32 = 2**31 - 1


def job(job_obj: dict) -> None:
    """SetDefaults_Job and the registry's selector, in place."""
    spec = job_obj.setdefault("spec", {})
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
        spec["parallelism"] = 1
    spec.setdefault("parallelism", 1)
    if spec.get("backoffLimit") is None:
        spec["backoffLimit"] = MAX_INT32 if spec.get("backoffLimitPerIndex") is not None else 6
    spec.setdefault("completionMode", "NonIndexed")
    spec.setdefault("suspend", False)
    if spec.get("podReplacementPolicy") is None:
        spec["podReplacementPolicy"] = "Failed" if spec.get("podFailurePolicy") is not None else "TerminatingOrFailed"
    template = spec.setdefault("template", {})
    labels = template.setdefault("metadata", {}).setdefault("labels", {})
    name = job_obj["metadata"]["name"]
    for key, value in (("batch.kubernetes.io/controller-uid", UNKNOWN_UID), ("batch.kubernetes.io/job-name", name),
                       ("controller-uid", UNKNOWN_UID), ("job-name", name)):
        labels[key] = value
    if not spec.get("manualSelector"):
        spec["selector"] = {"matchLabels": {"batch.kubernetes.io/controller-uid": UNKNOWN_UID}}
    pod_spec(template.setdefault("spec", {}))


def _image_pull_policy(image) -> str:
    if not isinstance(image, str) or "@" in image:
        return "IfNotPresent"
    last = image.rsplit("/", 1)[-1]
    return "Always" if ":" not in last or last.endswith(":latest") else "IfNotPresent"


def container(c: dict) -> None:
    c.setdefault("terminationMessagePath", "/dev/termination-log")
    c.setdefault("terminationMessagePolicy", "File")
    c.setdefault("imagePullPolicy", _image_pull_policy(c.get("image")))
    for port in c.get("ports") or ():
        if isinstance(port, dict):
            port.setdefault("protocol", "TCP")
    resources = c.get("resources")
    if isinstance(resources, dict) and isinstance(resources.get("limits"), dict):
        requests = resources.setdefault("requests", {})
        for key, value in resources["limits"].items():
            requests.setdefault(key, value)


def pod_spec(spec: dict) -> None:
    """SetDefaults_PodSpec and the containers' defaults, in place (a template's or a pod's)."""
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("securityContext", {})
    spec.setdefault("enableServiceLinks", True)
    for field in ("initContainers", "containers"):
        for c in spec.get(field) or ():
            if isinstance(c, dict):
                container(c)


def pod_admission(pod: dict) -> None:
    """The built-in mutating admission a Pod goes through before validation, in place: the
    ServiceAccount plugin and DefaultTolerationSeconds."""
    spec = pod.setdefault("spec", {})
    if not spec.get("serviceAccountName"):
        spec["serviceAccountName"] = "default"
    if spec.get("automountServiceAccountToken") is not False:
        volume = f"kube-api-access-{RANDOM_SUFFIX}"
        spec.setdefault("volumes", []).append({"name": volume, "projected": {"defaultMode": 420, "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}]}})
        for field in ("initContainers", "containers"):
            for c in spec.get(field) or ():
                if isinstance(c, dict) and not any(isinstance(m, dict) and m.get("mountPath") == TOKEN_PATH
                                                   for m in c.get("volumeMounts") or ()):
                    c.setdefault("volumeMounts", []).append({"name": volume, "readOnly": True, "mountPath": TOKEN_PATH})
    tolerations = spec.setdefault("tolerations", [])
    for key in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"):
        if not any(isinstance(t, dict) and t.get("key") == key and t.get("effect") in ("NoExecute", None, "")
                   for t in tolerations):
            tolerations.append({"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300})
