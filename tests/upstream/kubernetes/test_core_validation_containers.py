"""Kubernetes' own table cases for the container-level rule families (k8s/containers, k8s/env,
k8s/ports, k8s/probes, k8s/resources, k8s/volumes), ported from pkg/apis/core/validation/
validation_test.go (snapshot: docs/validation.md, "Where the cases and messages come from").

Each case is upstream's input written as the YAML a user puts in a pod template, placed in a rendered
JobSet's replicated job (tests/upstream/kubernetes/harness.py); an invalid case carries upstream's
expected (error type, field, detail), the field as upstream's test spells it from its own root. Valid
cases must produce no finding at all. What upstream tests but this function does not check by design
is in NOT_PORTED with the reason.
"""

from __future__ import annotations

import json

import pytest

from upstream.kubernetes.harness import Case, Place, check, params

REQUIRED, INVALID, UNSUPPORTED = "FieldValueRequired", "FieldValueInvalid", "FieldValueNotSupported"
DUPLICATE, NOT_FOUND, FORBIDDEN = "FieldValueDuplicate", "FieldValueNotFound", "FieldValueForbidden"
TOO_LONG = "FieldValueTooLong"

# upstream passes field.NewPath("containers") to validateContainers
CONTAINERS = Place("spec.template.spec.containers", root="containers")


def C(test, name, text, *errors):
    return Case(test, name, text, tuple(errors))


def q(text: str) -> str:
    """A YAML double-quoted scalar (a JSON string is one) for names full of punctuation."""
    return json.dumps(text)


# --- TestValidateContainers --------------------------------------------------------------------

T = "TestValidateContainers"
CONTAINER_CASES = [
    # successCase, one container each (upstream validates them as one list)
    C(T, "success/abc", "- {name: abc, image: image, imagePullPolicy: IfNotPresent, terminationMessagePolicy: File}"),
    # "backwards compatibility to ensure containers in pod template spec do not check for this"
    C(T, "success/def image blank", "- {name: def, image: ' ', imagePullPolicy: IfNotPresent, terminationMessagePolicy: File}"),
    C(T, "success/ghi image padded", "- {name: ghi, image: ' some  ', imagePullPolicy: IfNotPresent}"),
    C(T, "success/123", "- {name: '123', image: image}"),
    C(T, "success/life-123", """
- name: life-123
  image: image
  lifecycle:
    preStop:
      exec: {command: [ls, -l]}
"""),
    C(T, "success/resources-test", """
- name: resources-test
  image: image
  resources:
    limits: {cpu: "10", memory: 10G, my.org/resource: "10"}
"""),
    C(T, "success/resources-test-with-request-and-limit", """
- name: resources-test-with-request-and-limit
  image: image
  resources:
    requests: {cpu: "10", memory: 10G}
    limits: {cpu: "10", memory: 10G}
"""),
    C(T, "success/resources-request-limit-simple", """
- name: resources-request-limit-simple
  image: image
  resources: {requests: {cpu: "8"}, limits: {cpu: "10"}}
"""),
    C(T, "success/resources-request-limit-edge", """
- name: resources-request-limit-edge
  image: image
  resources:
    requests: {cpu: "10", memory: 10G, my.org/resource: "10"}
    limits: {cpu: "10", memory: 10G, my.org/resource: "10"}
"""),
    C(T, "success/resources-request-limit-partials", """
- name: resources-request-limit-partials
  image: image
  resources:
    requests: {cpu: "9.5", memory: 10G}
    limits: {cpu: "10", my.org/resource: "10"}
"""),
    C(T, "success/resources-request", """
- name: resources-request
  image: image
  resources: {requests: {cpu: "9.5", memory: 10G}}
"""),
    C(T, "success/resources-resize-policy", """
- name: resources-resize-policy
  image: image
  resizePolicy:
  - {resourceName: cpu, restartPolicy: NotRequired}
  - {resourceName: memory, restartPolicy: RestartContainer}
"""),
    C(T, "success/same-host-port-different-protocol", """
- name: same-host-port-different-protocol
  image: image
  ports:
  - {containerPort: 80, hostPort: 80, protocol: TCP}
  - {containerPort: 80, hostPort: 80, protocol: UDP}
"""),
    C(T, "success/fallback-to-logs-termination-message",
      "- {name: fallback-to-logs-termination-message, image: image, terminationMessagePolicy: FallbackToLogsOnError}"),
    C(T, "success/env-from-source", "- {name: env-from-source, image: image, envFrom: [{configMapRef: {name: test}}]}"),
    C(T, "success/abc-1234 privileged", "- {name: abc-1234, image: image, securityContext: {privileged: true}}"),
    C(T, "success/live-123", """
- name: live-123
  image: image
  livenessProbe: {tcpSocket: {port: 80}, successThreshold: 1}
"""),
    C(T, "success/startup-123", """
- name: startup-123
  image: image
  startupProbe: {tcpSocket: {port: 80}, successThreshold: 1}
"""),
    C(T, "success/resize-policy-cpu", "- {name: resize-policy-cpu, image: image, resizePolicy: [{resourceName: cpu, restartPolicy: NotRequired}]}"),
    C(T, "success/file-termination-message", "- {name: file-termination-message, image: image, terminationMessagePolicy: File}"),
    C(T, "success/resize-policy-cpu-and-mem", """
- name: resize-policy-cpu-and-mem
  image: image
  resizePolicy:
  - {resourceName: memory, restartPolicy: NotRequired}
  - {resourceName: cpu, restartPolicy: RestartContainer}
"""),
    # errorCases
    C(T, "zero-length name", "- {name: '', image: image}", (REQUIRED, "containers[0].name", "")),
    C(T, "zero-length-image", "- {name: abc, image: ''}", (REQUIRED, "containers[0].image", "")),
    C(T, "zero-length image", "- {name: abc}", (REQUIRED, "containers[0].image", "")),
    C(T, "name > 63 characters", f"- {{name: {'a' * 64}, image: image}}", (INVALID, "containers[0].name", "")),
    C(T, "name not a DNS label", "- {name: a.b.c, image: image}", (INVALID, "containers[0].name", "")),
    C(T, "name not unique", "- {name: abc, image: image}\n- {name: abc, image: image}",
      (DUPLICATE, "containers[1].name", "")),
    C(T, "host port not unique", """
- {name: abc, image: image, ports: [{containerPort: 80, hostPort: 80, protocol: TCP}]}
- {name: def, image: image, ports: [{containerPort: 81, hostPort: 80, protocol: TCP}]}
""", (DUPLICATE, "containers[1].ports[0].hostPort", "")),
    # upstream runs this table with PodValidationOptions{} (strict C-identifier env names); 1.36 always
    # relaxes them (RelaxedEnvironmentVariableValidation is GA), so the same name is valid here
    C(T, "invalid env var name (valid under relaxed names)", "- {name: abc, image: image, env: [{name: ev!1}]}"),
    C(T, "unknown volume name", "- {name: abc, image: image, volumeMounts: [{name: anything, mountPath: /foo}]}",
      (NOT_FOUND, "containers[0].volumeMounts[0].name", "")),
    C(T, "invalid lifecycle, no exec command.", """
- name: life-123
  image: image
  lifecycle: {preStop: {exec: {}}}
""", (REQUIRED, "containers[0].lifecycle.preStop.exec.command", "")),
    C(T, "invalid lifecycle, no http port.", """
- name: life-123
  image: image
  lifecycle: {preStop: {httpGet: {path: /, scheme: HTTP}}}
""", (INVALID, "containers[0].lifecycle.preStop.httpGet.port", "")),
    C(T, "invalid lifecycle, no tcp socket port.", """
- name: life-123
  image: image
  lifecycle: {preStop: {tcpSocket: {}}}
""", (INVALID, "containers[0].lifecycle.preStop.tcpSocket.port", "")),
    C(T, "invalid lifecycle, zero tcp socket port.", """
- name: life-123
  image: image
  lifecycle: {preStop: {tcpSocket: {port: 0}}}
""", (INVALID, "containers[0].lifecycle.preStop.tcpSocket.port", "")),
    C(T, "invalid lifecycle, no action.", """
- name: life-123
  image: image
  lifecycle: {preStop: {}}
""", (REQUIRED, "containers[0].lifecycle.preStop", "")),
    C(T, "invalid readiness probe, terminationGracePeriodSeconds set.", """
- name: life-123
  image: image
  readinessProbe: {tcpSocket: {port: 80}, terminationGracePeriodSeconds: 10}
""", (INVALID, "containers[0].readinessProbe.terminationGracePeriodSeconds", "")),
    C(T, "invalid liveness probe, no tcp socket port.", """
- name: live-123
  image: image
  livenessProbe: {tcpSocket: {}, successThreshold: 1}
""", (INVALID, "containers[0].livenessProbe.tcpSocket.port", "")),
    C(T, "invalid liveness probe, no action.", """
- name: live-123
  image: image
  livenessProbe: {successThreshold: 1}
""", (REQUIRED, "containers[0].livenessProbe", "")),
    C(T, "invalid liveness probe, successThreshold != 1", """
- name: live-123
  image: image
  livenessProbe: {tcpSocket: {port: 80}, successThreshold: 2}
""", (INVALID, "containers[0].livenessProbe.successThreshold", "")),
    C(T, "invalid startup probe, successThreshold != 1", """
- name: startup-123
  image: image
  startupProbe: {tcpSocket: {port: 80}, successThreshold: 2}
""", (INVALID, "containers[0].startupProbe.successThreshold", "")),
    *[C(T, f"invalid {kind} probe, negative numbers", f"""
- name: {kind}-123
  image: image
  {kind}Probe:
    tcpSocket: {{port: 80}}
    initialDelaySeconds: -1
    timeoutSeconds: -1
    periodSeconds: -1
    successThreshold: -1
    failureThreshold: -1
    terminationGracePeriodSeconds: -1
""", *[(INVALID, f"containers[0].{kind}Probe.{f}", "") for f in (
        "initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold",
        "terminationGracePeriodSeconds")]) for kind in ("liveness", "readiness", "startup")],
    C(T, "invalid message termination policy", "- {name: life-123, image: image, terminationMessagePolicy: Unknown}",
      (UNSUPPORTED, "containers[0].terminationMessagePolicy", "")),
    C(T, "invalid compute resource", "- {name: abc-123, image: image, resources: {limits: {disk: 10G}}}",
      (INVALID, "containers[0].resources.limits[disk]", "must be a standard resource type or fully qualified"),
      (INVALID, "containers[0].resources.limits[disk]", "must be a standard resource for containers")),
    C(T, "Resource CPU invalid", "- {name: abc-123, image: image, resources: {limits: {cpu: '-10', memory: '0'}}}",
      (INVALID, "containers[0].resources.limits[cpu]", "must be greater than or equal to 0")),
    C(T, "Resource Requests CPU invalid", "- {name: abc-123, image: image, resources: {requests: {cpu: '-10', memory: '0'}}}",
      (INVALID, "containers[0].resources.requests[cpu]", "must be greater than or equal to 0")),
    C(T, "Resource Memory invalid", "- {name: abc-123, image: image, resources: {limits: {cpu: '0', memory: '-10'}}}",
      (INVALID, "containers[0].resources.limits[memory]", "must be greater than or equal to 0")),
    C(T, "Request limit simple invalid", """
- name: abc-123
  image: image
  resources: {limits: {cpu: "5", memory: "3"}, requests: {cpu: "6", memory: "3"}}
""", (INVALID, "containers[0].resources.requests", "must be less than or equal to cpu limit of 5")),
    C(T, "Invalid storage limit request", "- {name: abc-123, image: image, resources: {limits: {attachable-volumes-aws-ebs: 10}}}",
      (INVALID, "containers[0].resources.limits[attachable-volumes-aws-ebs]", "must be a standard resource type or fully qualified"),
      (INVALID, "containers[0].resources.limits[attachable-volumes-aws-ebs]", "must be a standard resource for containers")),
    C(T, "CPU request limit multiple invalid", """
- name: abc-123
  image: image
  resources: {limits: {cpu: "5", memory: "3"}, requests: {cpu: "6", memory: "3"}}
""", (INVALID, "containers[0].resources.requests", "")),
    C(T, "Memory request limit multiple invalid", """
- name: abc-123
  image: image
  resources: {limits: {cpu: "5", memory: "3"}, requests: {cpu: "5", memory: "4"}}
""", (INVALID, "containers[0].resources.requests", "must be less than or equal to memory limit of 3")),
    C(T, "Invalid env from", "- {name: env-from-source, image: image, envFrom: [{configMapRef: {name: $%^&*#}}]}",
      (INVALID, "containers[0].envFrom[0].configMapRef.name", "")),
    C(T, "Unsupported resize policy for memory", """
- name: resize-policy-mem-invalid
  image: image
  resizePolicy: [{resourceName: memory, restartPolicy: RestartContainerrrr}]
""", (UNSUPPORTED, "containers[0].resizePolicy", 'supported values: "NotRequired", "RestartContainer"')),
    C(T, "Unsupported resize policy for CPU", """
- name: resize-policy-cpu-invalid
  image: image
  resizePolicy: [{resourceName: cpu, restartPolicy: RestartNotRequired}]
""", (UNSUPPORTED, "containers[0].resizePolicy", "")),
]

# --- TestValidateInitContainers ----------------------------------------------------------------

# upstream's regular container "app" is there for the name collision case
INIT = Place("spec.template.spec.initContainers", root="initContainers",
             pod={"containers": [{"name": "app", "image": "nginx"}]})
TI = "TestValidateInitContainers"
SIDECAR_HOOKS = """
  lifecycle:
    postStart: {exec: {command: [echo, post start]}}
    preStop: {exec: {command: [echo, pre stop]}}
  livenessProbe: {tcpSocket: {port: 80}, successThreshold: 1}
  readinessProbe: {tcpSocket: {port: 80}}
  startupProbe: {tcpSocket: {port: 80}, successThreshold: 1}
"""
INIT_CASES = [
    C(TI, "success/same host port different protocol", """
- name: container-1-same-host-port-different-protocol
  image: image
  ports:
  - {containerPort: 80, hostPort: 80, protocol: TCP}
  - {containerPort: 80, hostPort: 80, protocol: UDP}
- name: container-2-same-host-port-different-protocol
  image: image
  ports:
  - {containerPort: 80, hostPort: 80, protocol: TCP}
  - {containerPort: 80, hostPort: 80, protocol: UDP}
"""),
    C(TI, "success/container-3-restart-always-with-lifecycle-hook-and-probes",
      "- name: container-3-restart-always-with-lifecycle-hook-and-probes\n  image: image\n  restartPolicy: Always"
      + SIDECAR_HOOKS),
    # AllowSidecarResizePolicy is InPlacePodVerticalScaling, GA and on in 1.36 (pkg/api/pod/util.go)
    C(TI, "success/container-4-allowed-resize-policy", """
- name: container-4-allowed-resize-policy
  image: image
  resizePolicy: [{resourceName: cpu, restartPolicy: NotRequired}]
"""),
    C(TI, "success/restartcontainer-policy-allowed-if-sidecar", """
- name: restartcontainer-policy-allowed-if-sidecar
  image: nginx
  restartPolicy: Always
  resizePolicy: [{resourceName: cpu, restartPolicy: RestartContainer}]
"""),
    C(TI, "empty name", "- {name: '', image: image}", (REQUIRED, "initContainers[0].name", "")),
    C(TI, "name collision with regular container", "- {name: app, image: image}",
      (DUPLICATE, "initContainers[0].name", 'Duplicate value: "app"')),
    C(TI, "invalid termination message policy", "- {name: init, image: image, terminationMessagePolicy: Unknown}",
      (UNSUPPORTED, "initContainers[0].terminationMessagePolicy", "")),
    C(TI, "duplicate names", "- {name: init, image: image}\n- {name: init, image: image}",
      (DUPLICATE, "initContainers[1].name", "")),
    C(TI, "duplicate ports", """
- name: abc
  image: image
  ports:
  - {containerPort: 8080, hostPort: 8080, protocol: TCP}
  - {containerPort: 8080, hostPort: 8080, protocol: TCP}
""", (DUPLICATE, "initContainers[0].ports[1].hostPort", 'Duplicate value: "TCP//8080"')),
    C(TI, "uses disallowed field: Lifecycle", """
- name: debug
  image: image
  lifecycle: {preStop: {exec: {command: [ls, -l]}}}
""", (FORBIDDEN, "initContainers[0].lifecycle", "may not be set for init containers without restartPolicy=Always")),
    C(TI, "uses disallowed field: LivenessProbe", """
- name: debug
  image: image
  livenessProbe: {tcpSocket: {port: 80}, successThreshold: 1}
""", (FORBIDDEN, "initContainers[0].livenessProbe", "")),
    C(TI, "uses disallowed field: ReadinessProbe", """
- name: debug
  image: image
  readinessProbe: {tcpSocket: {port: 80}}
""", (FORBIDDEN, "initContainers[0].readinessProbe", "")),
    C(TI, "Container uses disallowed field: StartupProbe", """
- name: debug
  image: image
  startupProbe: {tcpSocket: {port: 80}, successThreshold: 1}
""", (FORBIDDEN, "initContainers[0].startupProbe", "")),
    C(TI, "Disallowed field with other errors should only return a single Forbidden", """
- name: debug
  image: image
  startupProbe:
    tcpSocket: {port: 80}
    initialDelaySeconds: -1
    timeoutSeconds: -1
    periodSeconds: -1
    successThreshold: -1
    failureThreshold: -1
    terminationGracePeriodSeconds: -1
""", (FORBIDDEN, "initContainers[0].startupProbe", "")),
    # upstream's table runs with ContainerRestartRules off; on in 1.36, an init container may restart
    # OnFailure or Never (validateInitContainerRestartPolicy), and anything else is NotSupported
    *[C(TI, f"Not supported RestartPolicy: {p} (allowed with ContainerRestartRules)",
        f"- {{name: init, image: image, restartPolicy: {p}}}") for p in ("OnFailure", "Never")],
    C(TI, "Not supported RestartPolicy: invalid", "- {name: init, image: image, restartPolicy: invalid}",
      (UNSUPPORTED, "initContainers[0].restartPolicy", "")),
    C(TI, "Not supported RestartPolicy: empty", "- {name: init, image: image, restartPolicy: ''}",
      (UNSUPPORTED, "initContainers[0].restartPolicy", "")),
    C(TI, "invalid startup probe in restartable container, successThreshold != 1", """
- name: restartable-init
  image: image
  restartPolicy: Always
  startupProbe: {tcpSocket: {port: 80}, successThreshold: 2}
""", (INVALID, "initContainers[0].startupProbe.successThreshold", "Invalid value: 2: must be 1")),
    C(TI, "invalid readiness probe, terminationGracePeriodSeconds set.", """
- name: life-123
  image: image
  restartPolicy: Always
  readinessProbe: {tcpSocket: {port: 80}, terminationGracePeriodSeconds: 10}
""", (INVALID, "initContainers[0].readinessProbe.terminationGracePeriodSeconds", "must not be set for readinessProbes")),
    C(TI, "invalid liveness probe, successThreshold != 1", """
- name: live-123
  image: image
  restartPolicy: Always
  livenessProbe: {tcpSocket: {port: 80}, successThreshold: 2}
""", (INVALID, "initContainers[0].livenessProbe.successThreshold", "")),
    C(TI, "invalid lifecycle, no exec command.", """
- name: life-123
  image: image
  restartPolicy: Always
  lifecycle: {preStop: {exec: {}}}
""", (REQUIRED, "initContainers[0].lifecycle.preStop.exec.command", "")),
    C(TI, "invalid lifecycle, no http port.", """
- name: life-123
  image: image
  restartPolicy: Always
  lifecycle: {preStop: {httpGet: {path: /, scheme: HTTP}}}
""", (INVALID, "initContainers[0].lifecycle.preStop.httpGet.port", "Invalid value: 0: must be between 1 and 65535, inclusive")),
    C(TI, "invalid lifecycle, no tcp socket port.", """
- name: life-123
  image: image
  restartPolicy: Always
  lifecycle: {preStop: {tcpSocket: {}}}
""", (INVALID, "initContainers[0].lifecycle.preStop.tcpSocket.port", "Invalid value: 0")),
    C(TI, "invalid lifecycle, zero tcp socket port.", """
- name: life-123
  image: image
  restartPolicy: Always
  lifecycle: {preStop: {tcpSocket: {port: 0}}}
""", (INVALID, "initContainers[0].lifecycle.preStop.tcpSocket.port", "")),
    C(TI, "invalid lifecycle, no action.", """
- name: life-123
  image: image
  restartPolicy: Always
  lifecycle: {preStop: {}}
""", (REQUIRED, "initContainers[0].lifecycle.preStop", "must specify a handler type")),
    C(TI, "RestartContainer policy forbidden for non-sidecar init container", """
- name: standard-init-no-restart
  image: image
  resizePolicy: [{resourceName: cpu, restartPolicy: RestartContainer}]
""", (INVALID, "initContainers[0].resizePolicy[0].restartPolicy",
      "must not be set to 'RestartContainer' for non-sidecar initContainers")),
]

# Upstream cases this function does not check, by design: (upstream test, case name(s), why).
DEFAULTED = "defaulted before validation (pkg/apis/core/v1/defaults.go), so the API server never sees it empty"
NOT_PORTED = [
    (T, "invalid lifecycle, no http path.", "httpGet.path " + DEFAULTED + " (SetDefaults_HTTPGetAction: \"/\")"),
    (T, "invalid lifecycle, no http scheme.", "httpGet.scheme " + DEFAULTED + " (SetDefaults_HTTPGetAction: HTTP)"),
    (T, "empty message termination policy", "terminationMessagePolicy " + DEFAULTED + " (SetDefaults_Container: File)"),
    (T, "privilege disabled", "depends on the API server's --allow-privileged (capabilities), cluster configuration"),
    (T, "Forbidden RestartPolicy: Always/OnFailure/Never/invalid/empty",
     "upstream's table runs with ContainerRestartRules off; the gate is beta and on since 1.35 "
     "(pkg/features/kube_features.go): ported with the gate on in test_core_validation_pod_spec.py"),
    (T, "success/container-with-stopsignal-lifecycle",
     "lifecycle.stopSignal: the ContainerStopSignals gate is alpha and off in 1.36 (kube_features.go), "
     "so the field is dropped before validation"),
    (TI, "success/restartcontainer-policy-allowed-if-already-exists",
     "ratcheting on update (AllowExistingRestartContainerForNonSidecarInitContainer): a JobSet's Job is always new"),
    (TI, "Not supported ResizePolicy: invalid",
     "upstream's table runs with AllowSidecarResizePolicy off; it is InPlacePodVerticalScaling, on in 1.36 "
     "(the second error of 'RestartContainer policy forbidden for non-sidecar init container' likewise)"),
    (TI, "invalid lifecycle, no http path. / no http scheme.", "httpGet.path and scheme " + DEFAULTED),
]


@pytest.mark.parametrize("case,where", params(CONTAINER_CASES, CONTAINERS))
def test_containers(case, where):
    check(case, where)


@pytest.mark.parametrize("case,where", params(INIT_CASES, INIT))
def test_init_containers(case, where):
    check(case, where)


# --- TestValidateEnv, TestRelaxedValidateEnv, TestValidateEnvFrom, TestRelaxedValidateEnvFrom,
# --- TestValidateEnvVarValueFromFileKeyRef, TestLocalStorageEnvWithFeatureGate, TestHugePagesEnv

# upstream passes field.NewPath("field") to ValidateEnv / ValidateEnvFrom
ENV = Place("spec.template.spec.containers[0].env", root="field")
ENV_FROM = Place("spec.template.spec.containers[0].envFrom", root="field")
# validateEnvVarValueFrom(envVar, field.NewPath("valueFrom")): the env var itself; the pod has the
# emptyDir that validateFileKeyRefVolumes wants a fileKeyRef to name
FILE_KEY_REF = Place("spec.template.spec.containers[0].env[0]",
                     pod={"containers": [{"name": "ctr", "image": "image"}],
                          "volumes": [{"name": "volume-name", "emptyDir": {}}]})
VALUE_FROM = Place("spec.template.spec.containers[0].env[0]", root="field")

TE, TR = "TestValidateEnv", "TestRelaxedValidateEnv"
ENV_FIELD_PATHS = ("metadata.annotations['key']", "metadata.labels['key']", "metadata.name", "metadata.namespace",
                   "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.podIP",
                   "status.podIPs")
FIELD_PATHS_SUPPORTED = ('supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", '
                         '"spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"')


def _field_ref(path, name="abc"):
    return f"- name: {name}\n  valueFrom:\n    fieldRef: {{apiVersion: v1, fieldPath: \"{path}\"}}\n"


def _env_errors(test):
    """The error cases TestValidateEnv and TestRelaxedValidateEnv share (upstream's two tables)."""
    return [
        C(test, "zero-length name", "- {name: ''}", (REQUIRED, "field[0].name", "")),
        C(test, "value and valueFrom specified",
          "- name: abc\n  value: foo\n  valueFrom: {fieldRef: {apiVersion: v1, fieldPath: metadata.name}}",
          (INVALID, "field[0].valueFrom", 'Invalid value: "": may not be specified when `value` is not empty')),
        # upstream's table runs with EnvFiles off and names four sources; EnvFiles is beta and on since
        # 1.35, which makes validateEnvVarValueFrom name fileKeyRef as a fifth
        C(test, "valueFrom without a source", "- {name: abc, valueFrom: {}}",
          (INVALID, "field[0].valueFrom", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, "
           "`secretKeyRef` or `fileKeyRef`")),
        C(test, "valueFrom.fieldRef and valueFrom.secretKeyRef specified", """
- name: abc
  valueFrom:
    fieldRef: {apiVersion: v1, fieldPath: metadata.name}
    secretKeyRef: {name: a-secret, key: a-key}
""", (INVALID, "field[0].valueFrom", 'Invalid value: "": may not have more than one field specified at a time')),
        C(test, "valueFrom.fieldRef and valueFrom.configMapKeyRef set", """
- name: some_var_name
  valueFrom:
    fieldRef: {apiVersion: v1, fieldPath: metadata.name}
    configMapKeyRef: {name: some-config-map, key: some-key}
""", (INVALID, "field[0].valueFrom", "may not have more than one field specified at a time")),
        C(test, "valueFrom.fieldRef, secretKeyRef and configMapKeyRef specified", """
- name: abc
  valueFrom:
    fieldRef: {apiVersion: v1, fieldPath: metadata.name}
    secretKeyRef: {name: a-secret, key: a-key}
    configMapKeyRef: {name: some-config-map, key: some-key}
""", (INVALID, "field[0].valueFrom", "may not have more than one field specified at a time")),
        C(test, "valueFrom.secretKeyRef.name invalid",
          "- name: abc\n  valueFrom: {secretKeyRef: {name: $%^&*#, key: a-key}}",
          (INVALID, "field[0].valueFrom.secretKeyRef.name", "")),
        C(test, "valueFrom.configMapKeyRef.name invalid",
          "- name: abc\n  valueFrom: {configMapKeyRef: {name: $%^&*#, key: some-key}}",
          (INVALID, "field[0].valueFrom.configMapKeyRef.name", "")),
        C(test, "missing FieldPath on ObjectFieldSelector", "- name: abc\n  valueFrom: {fieldRef: {apiVersion: v1}}",
          (REQUIRED, "field[0].valueFrom.fieldRef.fieldPath", "")),
        C(test, "invalid fieldPath", _field_ref("metadata.whoops"),
          (INVALID, "field[0].valueFrom.fieldRef.fieldPath", 'Invalid value: "metadata.whoops": error converting fieldPath')),
        C(test, "metadata.name with subscript", _field_ref("metadata.name['key']", "labels"),
          (INVALID, "field[0].valueFrom.fieldRef.fieldPath",
           "Invalid value: \"metadata.name['key']\": error converting fieldPath: field label does not support subscript")),
        C(test, "metadata.labels without subscript", _field_ref("metadata.labels", "labels"),
          (UNSUPPORTED, "field[0].valueFrom.fieldRef.fieldPath",
           'Unsupported value: "metadata.labels": ' + FIELD_PATHS_SUPPORTED)),
        C(test, "metadata.annotations without subscript", _field_ref("metadata.annotations"),
          (UNSUPPORTED, "field[0].valueFrom.fieldRef.fieldPath", FIELD_PATHS_SUPPORTED)),
        C(test, "metadata.annotations with invalid key", _field_ref("metadata.annotations['invalid~key']"),
          (INVALID, "field[0].valueFrom.fieldRef", 'Invalid value: "invalid~key"')),
        C(test, "metadata.labels with invalid key", _field_ref("metadata.labels['Www.k8s.io/test']"),
          (INVALID, "field[0].valueFrom.fieldRef", 'Invalid value: "Www.k8s.io/test"')),
        C(test, "unsupported fieldPath", _field_ref("status.phase"),
          (UNSUPPORTED, "field[0].valueFrom.fieldRef.fieldPath", 'Unsupported value: "status.phase": ' + FIELD_PATHS_SUPPORTED)),
    ]


RELAXED_NAMES = ("!\"#$%&'()", "* +,-./0123456789", ":;<>?@", "ABCDEFG", "abcdefghijklmn", "[\\]^_`{}|~")
ENV_CASES = [
    *[C(TE, f"success/{name}", f"- {{name: {name}, value: value}}")
      for name in ("abc", "ABC", "AbC_123", "a.b.c", "a-b-c")],
    C(TE, "success/empty value", "- {name: abc, value: ''}"),
    *[C(TE, f"success/fieldRef {path}", _field_ref(path)) for path in ENV_FIELD_PATHS],
    C(TE, "success/secretKeyRef", "- name: secret_value\n  valueFrom: {secretKeyRef: {name: some-secret, key: secret-key}}"),
    C(TE, "success/configMapKeyRef", "- name: ENV_VAR_1\n  valueFrom: {configMapKeyRef: {name: some-config-map, key: some-key}}"),
    # updateSuccessCase: names valid under relaxed validation, which 1.36 always applies
    *[C(TE, f"updateSuccessCase/{name}", yaml_env) for name, yaml_env in
      ((n, f"- name: {q(n)}\n  value: value") for n in RELAXED_NAMES)],
    *_env_errors(TE),
    *[C(TR, f"success/{n}", f"- name: {q(n)}\n  value: value") for n in RELAXED_NAMES],
    C(TR, "success/relaxed name with fieldRef", _field_ref("metadata.annotations['key']", q("!\"#$%&'()"))),
    C(TR, "illegal character", "- {name: '=abc'}",
      (INVALID, "field[0].name", 'Invalid value: "=abc": a valid environment variable name must consist only of '
       "printable ASCII characters other than '='")),
    *_env_errors(TR),
]

ENV_SOURCE_CASES = [
    *[C("TestLocalStorageEnvWithFeatureGate", f"success/{r}", f"""
- name: ephemeral-storage-{r.split('.')[0]}
  valueFrom: {{resourceFieldRef: {{containerName: test-container, resource: {r}}}}}
""") for r in ("limits.ephemeral-storage", "requests.ephemeral-storage")],
    *[C("TestHugePagesEnv", f"success/{r}", f"""
- name: hugepages-{r.split('.')[0]}
  valueFrom: {{resourceFieldRef: {{containerName: test-container, resource: {r}}}}}
""") for r in ("limits.hugepages-2Mi", "requests.hugepages-2Mi")],
]

TF, TRF = "TestValidateEnvFrom", "TestRelaxedValidateEnvFrom"


def _env_from_errors(test):
    return [
        C(test, "zero-length configMapRef name", "- configMapRef: {name: ''}",
          (REQUIRED, "field[0].configMapRef.name", "")),
        C(test, "invalid configMapRef name", "- configMapRef: {name: $}", (INVALID, "field[0].configMapRef.name", "")),
        C(test, "zero-length secretRef name", "- secretRef: {name: ''}", (REQUIRED, "field[0].secretRef.name", "")),
        C(test, "invalid secretRef name", "- secretRef: {name: '&'}", (INVALID, "field[0].secretRef.name", "")),
        C(test, "no refs", "- {}",
          (INVALID, "field", 'Invalid value: "": must specify one of: `configMapRef` or `secretRef`')),
        C(test, "multiple refs", "- {secretRef: {name: abc}, configMapRef: {name: abc}}",
          (INVALID, "field", 'Invalid value: "": may not have more than one field specified at a time')),
        C(test, "invalid secret ref name", "- secretRef: {name: $%^&*#}",
          (INVALID, "field[0].secretRef.name", 'Invalid value: "$%^&*#": a lowercase RFC 1123 subdomain')),
        C(test, "invalid config ref name", "- configMapRef: {name: $%^&*#}",
          (INVALID, "field[0].configMapRef.name", 'Invalid value: "$%^&*#": a lowercase RFC 1123 subdomain')),
    ]


ENV_FROM_CASES = [
    *[C(TF, f"success/{kind} prefix {prefix or 'none'}", f"- {{{kind}: {{name: abc}}, prefix: {q(prefix)}}}")
      for kind in ("configMapRef", "secretRef") for prefix in ("", "pre_", "a.b")],
    *[C(TF, f"updateSuccessCase/prefix {p}", f"- prefix: {q(p)}\n  secretRef: {{name: abc}}")
      for p in ("* +,-./0123456789", ":;<>?@", "abcdefghijklmn", "[\\]^_`{}|~")],
    *_env_from_errors(TF),
    C(TRF, "success/prefix with quotes", f"- prefix: {q(RELAXED_NAMES[0])}\n  configMapRef: {{name: abc}}"),
    C(TRF, "invalid prefix", "- {prefix: '=abc', configMapRef: {name: abc}}",
      (INVALID, "field[0].prefix", 'Invalid value: "=abc": a valid environment variable name must consist only of '
       "printable ASCII characters other than '='")),
    *_env_from_errors(TRF),
]

TK = "TestValidateEnvVarValueFromFileKeyRef"


def _file_key_ref(key="MY_VAR", volume="volume-name", path="path/to/file.env", extra=""):
    return f"name: foo\n{extra}valueFrom:\n  fileKeyRef: {{volumeName: {q(volume)}, path: {q(path)}, key: {q(key)}}}\n"


FILE_KEY_REF_CASES = [
    C(TK, "accept valid file key reference with all required fields", _file_key_ref()),
    C(TK, "reject file key reference when key field is empty", _file_key_ref(key=""),
      (REQUIRED, "valueFrom.fileKeyRef.key", "")),
    C(TK, "reject file key reference when key contains invalid characters", _file_key_ref(key="bad=key"),
      (INVALID, "valueFrom.fileKeyRef.key", "valid environment")),
    C(TK, "reject when both value and valueFrom.fileKeyRef are specified", _file_key_ref(extra="value: some-value\n"),
      (INVALID, "valueFrom", "not empty")),
    C(TK, "reject file key reference when volumeName is empty", _file_key_ref(volume=""),
      (REQUIRED, "valueFrom.fileKeyRef.volumeName", "")),
    C(TK, "reject file key reference when volumeName is invalid", _file_key_ref(volume="INVALID_NAME!"),
      (INVALID, "valueFrom.fileKeyRef.volumeName", "")),
    C(TK, "reject file key reference when path is empty", _file_key_ref(path=""),
      (REQUIRED, "valueFrom.fileKeyRef.path", "")),
    C(TK, "reject file key reference when path contains backsteps", _file_key_ref(path="../etc/passwd"),
      (INVALID, "valueFrom.fileKeyRef.path", "must not contain '..'")),
    C(TK, "reject file key reference when multiple fields are invalid",
      _file_key_ref(key="bad=key", volume="!badname", path="../badpath"),
      (INVALID, "valueFrom.fileKeyRef.key", "environment variable"),
      (INVALID, "valueFrom.fileKeyRef.volumeName", ""),
      (INVALID, "valueFrom.fileKeyRef.path", "must not contain '..'")),
    C(TK, "accept file key reference with optional true and missing key",
      "name: foo\nvalueFrom:\n  fileKeyRef: {volumeName: volume-name, path: path/to/file.env, key: '', optional: true}\n",
      (REQUIRED, "valueFrom.fileKeyRef.key", "")),
]

NOT_PORTED += [
    (TE, "missing APIVersion on ObjectFieldSelector",
     "fieldRef.apiVersion " + DEFAULTED + " (SetDefaults_ObjectFieldSelector: v1)"),
    (TR, "missing APIVersion on ObjectFieldSelector", "as in TestValidateEnv"),
    (TE, "updateErrorCase/invalid name a-d",
     "upstream runs these with relaxed names off (a pod created before 1.30); RelaxedEnvironmentVariableValidation "
     "is GA, so a new Job's pod always gets the relaxed rule (the same names are ported as valid)"),
    (TF, "updateErrorCase/invalid name a-d", "as in TestValidateEnv"),
]


@pytest.mark.parametrize("case,where", params(ENV_CASES + ENV_SOURCE_CASES, ENV))
def test_env(case, where):
    check(case, where)


@pytest.mark.parametrize("case,where", params(ENV_FROM_CASES, ENV_FROM))
def test_env_from(case, where):
    check(case, where)


@pytest.mark.parametrize("case,where", params(FILE_KEY_REF_CASES, FILE_KEY_REF))
def test_file_key_ref(case, where):
    check(case, where)


# --- TestValidatePorts (validateContainerPorts(ports, field.NewPath("field"))) -------------------

PORTS = Place("spec.template.spec.containers[0].ports", root="field")
TP = "TestValidatePorts"
PORT_CASES = [
    C(TP, "successCase", """
- {name: abc, containerPort: 80, hostPort: 80, protocol: TCP}
- {name: easy, containerPort: 82, protocol: TCP}
- {name: as, containerPort: 83, protocol: UDP}
- {name: do-re-me, containerPort: 84, protocol: SCTP}
- {containerPort: 85, protocol: TCP}
"""),
    C(TP, "nonCanonicalCase", "- {containerPort: 80, protocol: TCP}"),
    # upstream compares a substring of the field; these are its fields under field[0]
    C(TP, "name > 15 characters", f"- {{name: {'a' * 16}, containerPort: 80, protocol: TCP}}",
      (INVALID, "field[0].name", "15")),
    C(TP, "name contains invalid characters", "- {name: a.b.c, containerPort: 80, protocol: TCP}",
      (INVALID, "field[0].name", "alpha-numeric")),
    C(TP, "name is a number", "- {name: '80', containerPort: 80, protocol: TCP}",
      (INVALID, "field[0].name", "at least one letter")),
    C(TP, "name not unique", "- {name: abc, containerPort: 80, protocol: TCP}\n- {name: abc, containerPort: 81, protocol: TCP}",
      (DUPLICATE, "field[1].name", "")),
    C(TP, "zero container port", "- {containerPort: 0, protocol: TCP}", (REQUIRED, "field[0].containerPort", "")),
    C(TP, "invalid container port", "- {containerPort: 65536, protocol: TCP}",
      (INVALID, "field[0].containerPort", "between")),
    C(TP, "invalid host port", "- {containerPort: 80, hostPort: 65536, protocol: TCP}",
      (INVALID, "field[0].hostPort", "between")),
    C(TP, "invalid protocol case", "- {containerPort: 80, protocol: tcp}",
      (UNSUPPORTED, "field[0].protocol", 'supported values: "SCTP", "TCP", "UDP"')),
    C(TP, "invalid protocol", "- {containerPort: 80, protocol: ICMP}",
      (UNSUPPORTED, "field[0].protocol", 'supported values: "SCTP", "TCP", "UDP"')),
]
NOT_PORTED += [
    (TP, "protocol required", "protocol " + DEFAULTED + " (SetDefaults_ContainerPort: TCP)"),
]


@pytest.mark.parametrize("case,where", params(PORT_CASES, PORTS))
def test_ports(case, where):
    check(case, where)


def test_not_ported_cases_are_not_also_ported():
    ported = {c.id for name, cases in globals().items() if name.endswith("_CASES") for c in cases}
    assert len(ported) > 100
    assert not {f"{test}/{name}" for test, name, _ in NOT_PORTED} & ported
