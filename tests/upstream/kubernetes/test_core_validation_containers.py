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

from upstream.kubernetes.harness import (DUPLICATE, FORBIDDEN, INVALID, NOT_FOUND, POD_SPEC, REQUIRED, TOO_LONG,
                                         UNSUPPORTED, Place, check, params)
from upstream.kubernetes.harness import case as C

# upstream passes field.NewPath("containers") to validateContainers
CONTAINERS = Place("spec.template.spec.containers", root="containers")


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


# --- TestValidateProbe, Test_validateProbe, TestValidateHandler (a liveness probe of containers[0]) -----

# upstream calls validateProbe / validateHandler with field.NewPath("field") (Test_validateProbe: "test");
# here the probe is a readinessProbe (no successThreshold rule of its own) and the handler a liveness
# probe's, so the paths are ours under containers[0]
PROBE = Place("spec.template.spec.containers[0].readinessProbe", root="test")
TV, TVP, TH = "TestValidateProbe", "Test_validateProbe", "TestValidateHandler"
EXEC = "exec: {command: [echo]}"
PROBE_FIELDS = ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold")
PROBE_CASES = [
    *[C(TV, f"success/{name} 10", f"{{{EXEC}, {name}: 10}}") for name in PROBE_FIELDS],
    *[C(TV, f"error/{name} -10", f"{{{EXEC}, {name}: -10}}", (INVALID, f"test.{name}", "must be greater than or equal to 0"))
      for name in PROBE_FIELDS],
    C(TV, "error/no handler", "{timeoutSeconds: 10, initialDelaySeconds: 10}", (REQUIRED, "test", "must specify a handler type")),
    C(TVP, "no handler", "{}", (REQUIRED, "test", "must specify a handler type")),
    C(TVP, "exec", f"{{{EXEC}}}"),
]
# terminationGracePeriodSeconds on a readiness probe has its own refusal; upstream's validateProbe
# cases are ported on a liveness probe
LIVENESS = Place("spec.template.spec.containers[0].livenessProbe", root="test")
LIVENESS_CASES = [
    C(TVP, "terminationGracePeriodSeconds -1", f"{{{EXEC}, terminationGracePeriodSeconds: -1}}",
      (INVALID, "test.terminationGracePeriodSeconds", "Invalid value: -1: must be greater than 0")),
    C(TVP, "terminationGracePeriodSeconds 0", f"{{{EXEC}, terminationGracePeriodSeconds: 0}}",
      (INVALID, "test.terminationGracePeriodSeconds", "Invalid value: 0: must be greater than 0")),
    C(TVP, "terminationGracePeriodSeconds 1", f"{{{EXEC}, terminationGracePeriodSeconds: 1}}"),
]
HANDLER = Place("spec.template.spec.containers[0].readinessProbe", root="field")
HANDLER_CASES = [
    C(TH, "success/exec", f"{{{EXEC}}}"),
    C(TH, "success/httpGet port 1", "httpGet: {path: /, port: 1, host: '', scheme: HTTP}"),
    C(TH, "success/httpGet port 65535", "httpGet: {path: /foo, port: 65535, host: host, scheme: HTTP}"),
    C(TH, "success/httpGet named port", "httpGet: {path: /, port: port, host: '', scheme: HTTP}"),
    C(TH, "success/Host header", "httpGet: {path: /, port: port, scheme: HTTP, httpHeaders: [{name: Host, value: foo.example.com}]}"),
    C(TH, "success/repeated header", """
httpGet:
  path: /
  port: port
  scheme: HTTP
  httpHeaders: [{name: X-Forwarded-For, value: 1.2.3.4}, {name: X-Forwarded-For, value: 5.6.7.8}]
"""),
    C(TH, "error/empty", "{}", (REQUIRED, "field", "must specify a handler type")),
    C(TH, "error/exec without command", "exec: {command: []}", (REQUIRED, "field.exec.command", "")),
    C(TH, "error/httpGet port 0", "httpGet: {path: '', port: 0, host: ''}",
      (INVALID, "field.httpGet.port", "must be between 1 and 65535, inclusive")),
    C(TH, "error/httpGet port 65536", "httpGet: {path: /foo, port: 65536, host: host}",
      (INVALID, "field.httpGet.port", "must be between 1 and 65535, inclusive")),
    C(TH, "error/httpGet empty port name", "httpGet: {path: '', port: '', host: ''}", (INVALID, "field.httpGet.port", "")),
    C(TH, "error/header name with colon", "httpGet: {path: /, port: port, scheme: HTTP, httpHeaders: [{name: 'Host:', value: foo.example.com}]}",
      (INVALID, "field.httpGet.httpHeaders", "a valid HTTP header must consist of alphanumeric characters or '-'")),
    C(TH, "error/header name with underscores",
      "httpGet: {path: /, port: port, scheme: HTTP, httpHeaders: [{name: X_Forwarded_For, value: foo.example.com}]}",
      (INVALID, "field.httpGet.httpHeaders", "")),
]


@pytest.mark.parametrize("case,where", params(PROBE_CASES, PROBE) + params(LIVENESS_CASES, LIVENESS)
                         + params(HANDLER_CASES, HANDLER))
def test_probes(case, where):
    check(case, where)


# --- TestValidateResizePolicy (validateResizePolicy(list, field.NewPath("field"), podRestartPolicy)) ---

RESIZE = Place("spec.template.spec.containers[0].resizePolicy", root="field")
RESIZE_NEVER = Place("spec.template.spec.containers[0].resizePolicy", root="field",
                     pod={"restartPolicy": "Never", "containers": [{"name": "ctr", "image": "image"}]})
TZ = "TestValidateResizePolicy"
RESIZE_CASES = [
    C(TZ, "ValidCPUandMemoryPolicies", "[{resourceName: cpu, restartPolicy: NotRequired}, {resourceName: memory, restartPolicy: RestartContainer}]"),
    C(TZ, "ValidCPUPolicy", "[{resourceName: cpu, restartPolicy: RestartContainer}]"),
    C(TZ, "ValidMemoryPolicy", "[{resourceName: memory, restartPolicy: NotRequired}]"),
    C(TZ, "NoPolicy", "[]"),
    C(TZ, "ValidCPUandInvalidMemoryPolicy",
      "[{resourceName: cpu, restartPolicy: NotRequired}, {resourceName: memory, restartPolicy: Restarrrt}]",
      (UNSUPPORTED, "field", 'Unsupported value: "Restarrrt": supported values: "NotRequired", "RestartContainer"')),
    C(TZ, "ValidMemoryandInvalidCPUPolicy",
      "[{resourceName: cpu, restartPolicy: RestartNotRequirrred}, {resourceName: memory, restartPolicy: RestartContainer}]",
      (UNSUPPORTED, "field", '"RestartNotRequirrred"')),
    C(TZ, "InvalidResourceNameValidPolicy", "[{resourceName: cpuuu, restartPolicy: NotRequired}]",
      (UNSUPPORTED, "field", 'Unsupported value: "cpuuu": supported values: "cpu", "memory"')),
    C(TZ, "ValidResourceNameMissingPolicy", "[{resourceName: memory, restartPolicy: ''}]", (REQUIRED, "field", "")),
    C(TZ, "RepeatedPolicies", """
- {resourceName: cpu, restartPolicy: NotRequired}
- {resourceName: memory, restartPolicy: RestartContainer}
- {resourceName: cpu, restartPolicy: RestartContainer}
""", (DUPLICATE, "field[2]", 'Duplicate value: "cpu"')),
]
# the Job's pods may restart Never (the JobSet webhook defaults OnFailure); the pod's restartPolicy is
# what upstream's PodRestartPolicy is
RESIZE_NEVER_CASES = [
    C(TZ, "InvalidCPUPolicyWithPodRestartPolicy",
      "[{resourceName: cpu, restartPolicy: NotRequired}, {resourceName: memory, restartPolicy: RestartContainer}]",
      (INVALID, "field", "Invalid value: \"RestartContainer\": must be 'NotRequired' when pod `restartPolicy` is 'Never'")),
    C(TZ, "InvalidMemoryPolicyWithPodRestartPolicy",
      "[{resourceName: cpu, restartPolicy: RestartContainer}, {resourceName: memory, restartPolicy: NotRequired}]",
      (INVALID, "field", "must be 'NotRequired' when pod `restartPolicy` is 'Never'")),
    C(TZ, "InvalidMemoryCPUPolicyWithPodRestartPolicy",
      "[{resourceName: cpu, restartPolicy: RestartContainer}, {resourceName: memory, restartPolicy: RestartContainer}]",
      (INVALID, "field", "must be 'NotRequired' when pod `restartPolicy` is 'Never'")),
    C(TZ, "ValidMemoryCPUPolicyWithPodRestartPolicy",
      "[{resourceName: cpu, restartPolicy: NotRequired}, {resourceName: memory, restartPolicy: NotRequired}]"),
]

# TestValidatePullPolicy: each valid policy (an empty one is defaulted from the image tag)
PULL = Place("spec.template.spec.containers", root="field")
PULL_CASES = [C("TestValidatePullPolicy", name, f"- {{name: {c}, image: '{image}', imagePullPolicy: {policy}}}")
              for name, c, image, policy in (
                  ("NotPresent1", "abc", "image:latest", "IfNotPresent"), ("NotPresent2", "abc1", "image", "IfNotPresent"),
                  ("Always1", "'123'", "image:latest", "Always"), ("Always2", "'1234'", "image", "Always"),
                  ("Never1", "abc-123", "image:latest", "Never"), ("Never2", "abc-1234", "image", "Never"))]


@pytest.mark.parametrize("case,where", params(RESIZE_CASES, RESIZE) + params(RESIZE_NEVER_CASES, RESIZE_NEVER)
                         + params(PULL_CASES, PULL))
def test_resize_and_pull_policies(case, where):
    check(case, where)


# --- TestValidateVolumes and the per-source tables (TestValidateKeyToPath, TestValidateNFSVolumeSource,
# --- TestValidateCSIVolumeSource); one volume in the pod's volumes -------------------------------------

# upstream: ValidateVolumes([]core.Volume{vol}, nil, field.NewPath("field"), opts), its expected field
# compared as a suffix; written here in full under field[0]
VOLUMES = Place("spec.template.spec.volumes", root="field")
TVV = "TestValidateVolumes"


def V(name, volume, *errors):
    return C(TVV, name, volume, *[(t, f"field[0].{f}" if f else "field[0]", d) for t, f, d in errors])


DOWNWARD_ITEMS = """
    - {path: labels, fieldRef: {apiVersion: v1, fieldPath: metadata.labels}}
    - {path: labels with subscript, fieldRef: {apiVersion: v1, fieldPath: "metadata.labels['key']"}}
    - {path: labels with complex subscript, fieldRef: {apiVersion: v1, fieldPath: "metadata.labels['test.example.com/key']"}}
    - {path: annotations, fieldRef: {apiVersion: v1, fieldPath: metadata.annotations}}
    - {path: annotations with subscript, fieldRef: {apiVersion: v1, fieldPath: "metadata.annotations['key']"}}
    - {path: annotations with complex subscript, fieldRef: {apiVersion: v1, fieldPath: "metadata.annotations['TEST.EXAMPLE.COM/key']"}}
    - {path: namespace, fieldRef: {apiVersion: v1, fieldPath: metadata.namespace}}
    - {path: name, fieldRef: {apiVersion: v1, fieldPath: metadata.name}}
    - {path: path/with/subdirs, fieldRef: {apiVersion: v1, fieldPath: metadata.labels}}
    - {path: path/./withdot, fieldRef: {apiVersion: v1, fieldPath: metadata.labels}}
    - {path: path/with/embedded..dotdot, fieldRef: {apiVersion: v1, fieldPath: metadata.labels}}
    - {path: path/with/leading/..dotdot, fieldRef: {apiVersion: v1, fieldPath: metadata.labels}}
    - {path: cpu_limit, resourceFieldRef: {containerName: test-container, resource: limits.cpu}}
    - {path: cpu_request, resourceFieldRef: {containerName: test-container, resource: requests.cpu}}
    - {path: memory_limit, resourceFieldRef: {containerName: test-container, resource: limits.memory}}
    - {path: memory_request, resourceFieldRef: {containerName: test-container, resource: requests.memory}}
"""


def _downward(item):
    return f"- name: downapi\n  downwardAPI:\n    items: [{item}]"


LABELS = "fieldRef: {apiVersion: v1, fieldPath: metadata.labels}"
VOLUME_CASES = [
    V("valid alpha name", "- {name: empty, emptyDir: {}}"),
    V("valid num name", "- {name: '123', emptyDir: {}}"),
    V("valid alphanum name", "- {name: empty-123, emptyDir: {}}"),
    V("valid numalpha name", "- {name: 123-empty, emptyDir: {}}"),
    V("zero-length name", "- {name: '', emptyDir: {}}", (REQUIRED, "name", "")),
    V("name > 63 characters", f"- {{name: {'a' * 64}, emptyDir: {{}}}}", (INVALID, "name", "must be no more than")),
    V("name has dots", "- {name: a.b.c, emptyDir: {}}", (INVALID, "name", "")),
    V("name not a DNS label", "- {name: Not a DNS label!, emptyDir: {}}",
      (INVALID, "name", "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'")),
    V("more than one source", "- {name: dups, emptyDir: {}, hostPath: {path: /mnt/path, type: Directory}}",
      (FORBIDDEN, "hostPath", "may not specify more than 1 volume")),
    V("default HostPath", "- {name: hostpath, hostPath: {path: /mnt/path, type: Directory}}"),
    V("valid HostPath", "- {name: hostpath, hostPath: {path: /mnt/path, type: Socket}}"),
    V("invalid HostPath", "- {name: hostpath, hostPath: {path: /mnt/path, type: invalid}}",
      (UNSUPPORTED, "hostPath.type", "")),
    V("invalid HostPath backsteps", "- {name: hostpath, hostPath: {path: /mnt/path/.., type: Directory}}",
      (INVALID, "hostPath.path", "must not contain '..'")),
    # the secret and configMap tables are the same cases for each: (title, lower-case, volume, field, name field)
    *[case for title, low, vol, kind, ref in (("Secret", "secret", "secret", "secret", "secretName"),
                                               ("ConfigMap", "configmap", "cfgmap", "configMap", "name"))
      for case in (
          V(f"valid {title}", f"- {{name: {vol}, {kind}: {{{ref}: my-{vol}}}}}"),
          V(f"valid {title} with defaultMode", f"- {{name: {vol}, {kind}: {{{ref}: my-{vol}, defaultMode: 0644}}}}"),
          V(f"valid {title} with projection and mode",
            f"- {{name: {vol}, {kind}: {{{ref}: my-{vol}, items: [{{key: key, path: filename, mode: 0644}}]}}}}"),
          V(f"valid {title} with subdir projection",
            f"- {{name: {vol}, {kind}: {{{ref}: my-{vol}, items: [{{key: key, path: dir/filename}}]}}}}"),
          V(f"{low} with missing path", f"- {{name: {vol}, {kind}: {{{ref}: s, items: [{{key: key, path: ''}}]}}}}",
            (REQUIRED, f"{kind}.items[0].path", "")),
          V(f"{low} with leading ..", f"- {{name: {vol}, {kind}: {{{ref}: s, items: [{{key: key, path: ../foo}}]}}}}",
            (INVALID, f"{kind}.items[0].path", "")),
          V(f"{low} with .. inside", f"- {{name: {vol}, {kind}: {{{ref}: s, items: [{{key: key, path: foo/../bar}}]}}}}",
            (INVALID, f"{kind}.items[0].path", "")),
          V(f"{low} with invalid positive defaultMode", f"- {{name: {vol}, {kind}: {{{ref}: s, defaultMode: 01000}}}}",
            (INVALID, f"{kind}.defaultMode", "must be a number between 0 and 0777 (octal), both inclusive")),
          V(f"{low} with invalid negative defaultMode", f"- {{name: {vol}, {kind}: {{{ref}: s, defaultMode: -1}}}}",
            (INVALID, f"{kind}.defaultMode", "")))],
    V("valid DownwardAPI", "- name: downwardapi\n  downwardAPI:\n    items:" + DOWNWARD_ITEMS),
    V("hugepages-downwardAPI-enabled", """
- name: downwardapi
  downwardAPI:
    items:
    - {path: hugepages_request, resourceFieldRef: {containerName: test-container, resource: requests.hugepages-2Mi}}
    - {path: hugepages_limit, resourceFieldRef: {containerName: test-container, resource: limits.hugepages-2Mi}}
"""),
    V("downapi valid defaultMode", "- {name: downapi, downwardAPI: {defaultMode: 0644}}"),
    V("downapi valid item mode", _downward(f"{{mode: 0644, path: path, {LABELS}}}")),
    # upstream reports a downward API item's problems at the volume's downwardAPI path, without items[i]
    V("downapi invalid positive item mode", _downward(f"{{mode: 01000, path: path, {LABELS}}}"),
      (INVALID, "downwardAPI.mode", "")),
    V("downapi invalid negative item mode", _downward(f"{{mode: -1, path: path, {LABELS}}}"),
      (INVALID, "downwardAPI.mode", "")),
    V("downapi empty metatada path", _downward(f"{{path: '', {LABELS}}}"), (REQUIRED, "downwardAPI.path", "")),
    V("downapi absolute path", _downward(f"{{path: /absolutepath, {LABELS}}}"), (INVALID, "downwardAPI.path", "")),
    V("downapi dot dot path", _downward(f"{{path: ../../passwd, {LABELS}}}"),
      (INVALID, "downwardAPI.path", "must not contain '..'")),
    V("downapi dot dot file name", _downward(f"{{path: ..badFileName, {LABELS}}}"),
      (INVALID, "downwardAPI.path", "must not start with '..'")),
    V("downapi dot dot first level dirent", _downward(f"{{path: ..badDirName/goodFileName, {LABELS}}}"),
      (INVALID, "downwardAPI.path", "must not start with '..'")),
    V("downapi fieldRef and ResourceFieldRef together",
      _downward(f"{{path: test, {LABELS}, resourceFieldRef: {{containerName: test-container, resource: requests.memory}}}}"),
      (INVALID, "downwardAPI", "fieldRef and resourceFieldRef can not be specified simultaneously")),
    V("downapi invalid positive defaultMode", "- {name: downapi, downwardAPI: {defaultMode: 01000}}",
      (INVALID, "downwardAPI.defaultMode", "")),
    V("downapi invalid negative defaultMode", "- {name: downapi, downwardAPI: {defaultMode: -1}}",
      (INVALID, "downwardAPI.defaultMode", "")),
    V("ProjectedVolumeSource more than one projection in a source", """
- name: projected-volume
  projected:
    sources:
    - secret: {name: foo}
    - secret: {name: foo}
      downwardAPI: {}
""", (FORBIDDEN, "projected.sources[1]", "may not specify more than 1 volume type per source")),
    V("ProjectedVolumeSource more than one projection in a source, without names", """
- name: projected-volume
  projected:
    sources:
    - secret: {}
    - {secret: {}, downwardAPI: {}}
""", (REQUIRED, "projected.sources[0].secret.name", ""), (REQUIRED, "projected.sources[1].secret.name", ""),
      (FORBIDDEN, "projected.sources[1]", "")),
    V("valid image volume on pod", "- {name: image-volume, image: {reference: 'quay.io/my/artifact:v1', pullPolicy: IfNotPresent}}"),
    V("image volume with empty name", "- {name: '', image: {reference: 'quay.io/my/artifact:v1', pullPolicy: IfNotPresent}}",
      (REQUIRED, "name", "")),
    V("image volume with wrong pullPolicy", "- {name: image-volume, image: {reference: 'quay.io/my/artifact:v1', pullPolicy: wrong}}",
      (UNSUPPORTED, "image.pullPolicy", "")),
    C(TVV, "dupsCase", "- {name: abc, emptyDir: {}}\n- {name: abc, emptyDir: {}}", (DUPLICATE, "field[1].name", "")),
    V("hugePagesCase: emptyDir medium HugePages", "- {name: working, emptyDir: {medium: HugePages}}"),
    *[C("TestValidateKeyToPath", f"ok/{path}", f"- {{name: s, secret: {{secretName: s, items: [{{key: k, path: {q(path)}{mode}}}]}}}}")
      for path, mode in (("p", ""), ("p/p/p/p", ""), ("p/..p/p../p..p", ""), ("p", ", mode: 0644"))],
    *[C("TestValidateKeyToPath", f"error/{name}", f"- {{name: s, secret: {{secretName: s, items: [{item}]}}}}",
        (kind, f"field[0].secret.items[0].{where}", ""))
      for name, item, kind, where in (
          ("empty key", "{key: '', path: p}", REQUIRED, "key"), ("empty path", "{key: k, path: ''}", REQUIRED, "path"),
          ("..p", "{key: k, path: ..p}", INVALID, "path"), ("../p", "{key: k, path: ../p}", INVALID, "path"),
          ("p/../p", "{key: k, path: p/../p}", INVALID, "path"), ("p/..", "{key: k, path: p/..}", INVALID, "path"),
          ("mode 01000", "{key: k, path: p, mode: 01000}", INVALID, "mode"),
          ("mode -1", "{key: k, path: p, mode: -1}", INVALID, "mode"))],
    *[C("TestValidateNFSVolumeSource", name, f"- {{name: nfs, nfs: {nfs}}}", (kind, f"field[0].nfs.{where}", detail))
      for name, nfs, kind, where, detail in (
          ("missing server", "{server: '', path: /tmp}", REQUIRED, "server", ""),
          ("missing path", "{server: my-server, path: ''}", REQUIRED, "path", ""),
          ("abs path", "{server: my-server, path: tmp}", INVALID, "path", "must be an absolute path"))],
    *[C("TestValidateCSIVolumeSource", name, f"- {{name: csi, csi: {csi}}}",
        *([(kind, f"field[0].csi.{where}", "")] if kind else []))
      for name, csi, kind, where in (
          ("all required fields ok", "{driver: test-driver}", None, None),
          ("missing driver name", "{driver: ''}", REQUIRED, "driver"),
          ("driver name: ok no punctuations", "{driver: comgooglestoragecsigcepd}", None, None),
          ("driver name: ok dot only", "{driver: io.kubernetes.storage.csi.flex}", None, None),
          ("driver name: ok dash only", "{driver: io-kubernetes-storage-csi-flex}", None, None),
          ("driver name: invalid underscore", "{driver: io_kubernetes_storage_csi_flex}", INVALID, "driver"),
          ("driver name: invalid dot underscores", "{driver: io.kubernetes.storage_csi.flex}", INVALID, "driver"),
          ("driver name: ok beginning with number", "{driver: 2io.kubernetes.storage-csi.flex}", None, None),
          ("driver name: ok ending with number", "{driver: io.kubernetes.storage-csi.flex2}", None, None),
          ("driver name: invalid dot dash underscores", "{driver: io.kubernetes-storage.csi_flex}", INVALID, "driver"),
          ("driver name: ok length 1", "{driver: a}", None, None),
          ("driver name: invalid length > 63", "{driver: " + "g" * 65 + "}", TOO_LONG, "driver"),
          ("driver name: invalid start char", "{driver: _comgooglestoragecsigcepd}", INVALID, "driver"),
          ("driver name: invalid end char", "{driver: comgooglestoragecsigcepd/}", INVALID, "driver"),
          ("driver name: invalid separators", "{driver: com/google/storage/csi~gcepd}", INVALID, "driver"),
          ("valid nodePublishSecretRef", "{driver: com.google.gcepd, nodePublishSecretRef: {name: foobar}}", None, None),
          ("nodePublishSecretRef: invalid name missing", "{driver: com.google.gcepd, nodePublishSecretRef: {name: ''}}",
           REQUIRED, "nodePublishSecretRef.name"))],
]

IN_TREE = ("an in-tree cloud or legacy volume source (gcePersistentDisk, awsElasticBlockStore, gitRepo, iscsi, "
           "glusterfs, flocker, rbd, cinder, cephfs, fc, flexVolume, azureFile, quobyte, azureDisk, scaleIO): "
           "counted as a volume type, its own fields are not checked (docs/validation.md)")
NOT_PORTED += [
    (TVV, "GcePersistentDisk, AWSElasticBlockStore, GitRepo, ISCSI, Glusterfs, Flocker, RBD, Cinder, CephFS, FC, "
     "FlexVolume, AzureFile, Quobyte, AzureDisk, ScaleIO cases", IN_TREE),
    ("TestValidateGlusterfs", "all", IN_TREE),
    ("TestValidateCSIPersistentVolumeSource", "all", "a PersistentVolume's source, not a pod's"),
    ("TestValidateGlusterfsPersistentVolumeSource", "all", "a PersistentVolume's source, not a pod's"),
    (TVV, "no volume source", "a volume without a source " + DEFAULTED + " (SetDefaults_Volume: emptyDir)"),
    (TVV, "image volume with empty reference on pod", "Pod only: a template may leave the reference empty "
     "(validateImageVolumeSource refuses it for a Pod, or with the ratcheting option off)"),
    (TVV, "image volume with empty reference allowed for ratcheting", "ratcheting on update"),
]


# --- TestValidateVolumeMounts, TestValidateSubpathMutuallyExclusive, TestValidateDisabledSubpathExpr,
# --- TestValidateMountPropagation, TestAlphaValidateVolumeDevices --------------------------------------

# upstream's volumes (and, for the mount tables, volumeDevices named xyz and uvw, which here are
# persistentVolumeClaim volumes so that the devices are valid themselves)
MOUNT_POD = {
    "containers": [{"name": "ctr", "image": "image"}],
    "volumes": [{"name": "abc", "persistentVolumeClaim": {"claimName": "testclaim1"}},
                {"name": "abc-123", "persistentVolumeClaim": {"claimName": "testclaim2"}},
                {"name": "123", "hostPath": {"path": "/foo/baz", "type": ""}},
                {"name": "ephemeral", "ephemeral": {"volumeClaimTemplate": {"spec": {
                    "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10G"}}}}}},
                {"name": "image-volume", "image": {"reference": "quay.io/my/artifact:v1", "pullPolicy": "IfNotPresent"}},
                {"name": "xyz", "persistentVolumeClaim": {"claimName": "xyz"}},
                {"name": "uvw", "persistentVolumeClaim": {"claimName": "uvw"}},
                {"name": "foo", "hostPath": {"path": "/foo/baz", "type": ""}}],
}
# ValidateVolumeMounts(mounts, devices, vols, &container, field.NewPath("field")): the mounts of containers[0]
MOUNTS = Place("spec.template.spec.containers[0].volumeMounts", root="field", pod=MOUNT_POD)
TM = "TestValidateVolumeMounts"
GOOD_MOUNTS = [("abc", "/foo", ""), ("123", "/bar", ""), ("abc-123", "/baz", ""), ("abc-123", "/baa", "subPath: ''"),
               ("abc-123", "/bab", "subPath: baz"), ("abc-123", "d:", "subPath: ''"), ("abc-123", "F:", "subPath: ''"),
               ("abc-123", "G:\\\\mount", "subPath: ''"), ("abc-123", "/bac", "subPath: .baz"),
               ("abc-123", "/bad", "subPath: ..baz"), ("ephemeral", "/foobar", ""),
               ("123", "/rro-nil", "readOnly: true"),
               ("123", "/rro-disabled", "readOnly: true, recursiveReadOnly: Disabled"),
               ("123", "/rro-disabled-2", "readOnly: false, recursiveReadOnly: Disabled"),
               ("123", "/rro-ifpossible", "readOnly: true, recursiveReadOnly: IfPossible"),
               ("123", "/rro-enabled", "readOnly: true, recursiveReadOnly: Enabled"),
               ("123", "/rro-enabled-2", "readOnly: true, recursiveReadOnly: Enabled, mountPropagation: None"),
               ("image-volume", "/image-volume", ""), ("image-volume", "/image-volume-1", "subPath: foo"),
               ("image-volume", "/image-volume-2", "subPathExpr: $(POD_NAME)")]


def _mount(name, path, extra=""):
    return f"- {{name: {q(name)}, mountPath: {q(path)}{', ' + extra if extra else ''}}}"


MOUNT_CASES = [
    *[C(TM, f"success/{name} at {path} {extra}".strip(), _mount(name, path, extra)) for name, path, extra in GOOD_MOUNTS],
    C(TM, "empty name", _mount("", "/foo"), (REQUIRED, "field[0].name", ""), (NOT_FOUND, "field[0].name", "")),
    C(TM, "empty mountpath", _mount("abc", ""), (REQUIRED, "field[0].mountPath", "")),
    C(TM, "mountpath collision", _mount("foo", "/path/a") + "\n" + _mount("abc", "/path/a"),
      (INVALID, "field[1].mountPath", "must be unique")),
    # upstream reports subPath problems at `<mounts>.subPath`, without the index
    C(TM, "absolute subpath", _mount("abc", "/bar", "subPath: /baz"), (INVALID, "field.subPath", "must be a relative path")),
    C(TM, "subpath in ..", _mount("abc", "/bar", "subPath: ../baz"), (INVALID, "field.subPath", "must not contain '..'")),
    C(TM, "subpath contains ..", _mount("abc", "/bar", "subPath: baz/../bat"), (INVALID, "field.subPath", "must not contain '..'")),
    C(TM, "subpath ends in ..", _mount("abc", "/bar", "subPath: ./.."), (INVALID, "field.subPath", "must not contain '..'")),
    C(TM, "disabled MountPropagation feature gate", _mount("abc", "/bar", "mountPropagation: Bidirectional"),
      (FORBIDDEN, "field.mountPropagation", "Bidirectional mount propagation is available only to privileged containers")),
    C(TM, "rro but not ro", _mount("123", "/rro-bad1", "readOnly: false, recursiveReadOnly: Enabled"),
      (FORBIDDEN, "field.recursiveReadOnly", "may only be specified when readOnly is true")),
    C(TM, "rro with incompatible propagation",
      _mount("123", "/rro-bad2", "readOnly: true, recursiveReadOnly: Enabled, mountPropagation: HostToContainer"),
      (FORBIDDEN, "field.recursiveReadOnly", "may only be specified when mountPropagation is None or not specified")),
    C(TM, "rro-if-possible but not ro", _mount("123", "/rro-bad1", "readOnly: false, recursiveReadOnly: IfPossible"),
      (FORBIDDEN, "field.recursiveReadOnly", "")),
    C(TM, "subPath for image volume sources should be relative", _mount("image-volume", "/image-volume-err-1", "subPath: /foo"),
      (INVALID, "field.subPath", "must be a relative path")),
    *[C("TestValidateSubpathMutuallyExclusive", name, _mount("abc-123", "/bab", extra), *errors)
      for name, extra, errors in (
          ("subpath and subpathexpr not specified", "", ()),
          ("subpath expr specified", "subPathExpr: $(POD_NAME)", ()),
          ("subpath specified", "subPath: baz", ()),
          ("subpath and subpathexpr specified", "subPath: baz, subPathExpr: $(POD_NAME)",
           ((INVALID, "field[0].subPathExpr", "subPathExpr and subPath are mutually exclusive"),)))],
    *[C("TestValidateDisabledSubpathExpr", name, _mount("abc-123", "/bab", extra))
      for name, extra in (("subpath expr not specified", ""), ("subpath expr specified", "subPathExpr: $(POD_NAME)"))],
]

# the mount and device tables whose container or devices differ: (case, container fields)
TMP = "TestValidateMountPropagation"
PROPAGATION_CASES = [
    (C(TMP, f"{who} + {mode or 'no propagation'}", "- {name: ctr, image: image, " + sc
       + "volumeMounts: [{name: foo, mountPath: /foo" + (f", mountPropagation: {mode}" if mode else "") + "}]}",
       *([(FORBIDDEN if mode == "Bidirectional" else UNSUPPORTED, "containers[0].volumeMounts.mountPropagation", "")]
         if bad else [])))
    for who, sc, mode, bad in (
        ("implicitly non-privileged container", "", "", False),
        ("implicitly non-privileged container", "", "HostToContainer", False),
        ("non-privileged container", "", "None", False),
        ("implicitly non-privileged container", "", "Bidirectional", True),
        ("explicitly non-privileged container", "securityContext: {privileged: false}, ", "", False),
        ("explicitly non-privileged container", "securityContext: {privileged: false}, ", "HostToContainer", False),
        ("explicitly non-privileged container", "securityContext: {privileged: false}, ", "Bidirectional", True),
        ("privileged container", "securityContext: {privileged: true}, ", "", False),
        ("privileged container", "securityContext: {privileged: true}, ", "HostToContainer", False),
        ("privileged container", "securityContext: {privileged: true}, ", "Bidirectional", False),
        ("privileged container", "securityContext: {privileged: true}, ", "invalid", True))
]
CONTAINERS_WITH_VOLUMES = Place("spec.template.spec.containers", root="containers", pod=MOUNT_POD)

TD = "TestAlphaValidateVolumeDevices"
DEVICE_POD = {**MOUNT_POD, "volumes": MOUNT_POD["volumes"][:2] + [
    {"name": "def", "hostPath": {"path": "/foo/baz", "type": ""}}, MOUNT_POD["volumes"][3]]}
DEVICES = Place("spec.template.spec.containers[0].volumeDevices", root="field", pod=DEVICE_POD)


def _devices(*pairs):
    return "\n".join(f"- {{name: {q(n)}, devicePath: {q(p)}}}" for n, p in pairs)


DEVICE_CASES = [
    C(TD, "success", _devices(("abc", "/foo"), ("abc-123", "/usr/share/test"), ("ephemeral", "/disk"))),
    C(TD, "empty name", _devices(("", "/foo")), (REQUIRED, "field[0].name", ""), (NOT_FOUND, "field[0].name", "")),
    C(TD, "duplicate name", _devices(("abc", "/foo"), ("abc", "/foo/bar")), (INVALID, "field[1].name", "must be unique")),
    C(TD, "name not found", _devices(("not-found", "/usr/share/test")), (NOT_FOUND, "field[0].name", "")),
    C(TD, "name found but invalid source", _devices(("def", "/usr/share/test")),
      (INVALID, "field[0].name", "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode")),
    C(TD, "empty devicepath", _devices(("abc", "")), (REQUIRED, "field[0].devicePath", "")),
    C(TD, "duplicate devicepath", _devices(("abc", "/foo"), ("abc-123", "/foo")), (INVALID, "field[1].devicePath", "must be unique")),
    C(TD, "no backsteps", _devices(("abc", "/baz/../")), (INVALID, "field[0].devicePath", "can not contain backsteps ('..')")),
]
# upstream's "relative devicepath" (baz) expects a failure that validateVolumeDevices never reports
# for a relative path: its error comes from the device map's other entries in that test
NOT_PORTED += [
    (TD, "relative devicepath", "ValidateVolumeDevices accepts a relative devicePath; upstream's case fails only "
     "through the shared badVolumeMounts fixture (abc-123 mounted at /this/path/exists)"),
    (TD, "name/path/both exist in volumemounts", "overlap with the same container's volumeMounts is ported "
     "from TestValidateVolumeMounts' side (a real container has both lists)"),
    (TM, "name exists in volumeDevice / mountpath exists in volumeDevice / both exist in volumeDevice",
     "see TestAlphaValidateVolumeDevices: ported as one container with both lists (DEVICE_OVERLAP_CASES)"),
]
DEVICE_OVERLAP_CASES = [
    C(TM, "name exists in volumeDevice",
      "- {name: ctr, image: image, volumeMounts: [{name: xyz, mountPath: /bar}], volumeDevices: [{name: xyz, devicePath: /mnt/exists}]}",
      (INVALID, "containers[0].volumeMounts[0].name", "must not already exist in volumeDevices"),
      (INVALID, "containers[0].volumeDevices[0].name", "must not already exist in volumeMounts")),
    C(TM, "mountpath exists in volumeDevice",
      "- {name: ctr, image: image, volumeMounts: [{name: uvw, mountPath: /mnt/exists}], volumeDevices: [{name: xyz, devicePath: /mnt/exists}]}",
      (INVALID, "containers[0].volumeMounts[0].mountPath", "must not already exist as a path in volumeDevices"),
      (INVALID, "containers[0].volumeDevices[0].devicePath", "must not already exist as a path in volumeMounts")),
]


@pytest.mark.parametrize("case,where", params(VOLUME_CASES, VOLUMES) + params(MOUNT_CASES, MOUNTS)
                         + params(PROPAGATION_CASES + DEVICE_OVERLAP_CASES, CONTAINERS_WITH_VOLUMES)
                         + params(DEVICE_CASES, DEVICES))
def test_volumes(case, where):
    check(case, where)


# --- resources: TestValidateResourceNames, TestHugePagesIsolation, TestAlphaLocalStorageCapacityIsolation,
# --- TestValidatePodResources, TestValidatePodResourceConsistency (pod level) ---------------------------

RESOURCES = Place("spec.template.spec.containers[0].resources", root="resources")
TRN = "TestValidateResourceNames"
# validateResourceName on its own accepts quota names (storage, requests.cpu, ...); a container's
# resources also pass validateContainerResourceName, which refuses those (see NOT_PORTED)
RESOURCE_NAME_CASES = [
    *[C(TRN, f"success/{name}", f"limits: {{{q(name)}: '1'}}\nrequests: {{{q(name)}: '1'}}")
      for name in ("memory", "cpu", "my.favorite.app.co/12345", "kubernetes.io/" + "a" * 63)],
    C(TRN, "success/hugepages-2Mi", "limits: {hugepages-2Mi: 2Mi, memory: 1Gi}"),
    C(TRN, "success/hugepages-1Gi", "limits: {hugepages-1Gi: 1Gi, memory: 1Gi}"),
    *[C(TRN, f"failure/{name or 'empty'}", f"limits: {{{q(name)}: '1'}}", (INVALID, f"resources.limits[{name}]", ""))
      for name in ("network", "disk", "", ".", "..", "my.favorite.app.co/_12345", "my.favorite.app.co/12345_",
                   "kubernetes.io/..", "kubernetes.io/" + "a" * 64, "kubernetes.io//", "kubernetes.io",
                   "kubernetes.io/will/not/work/")],
]
THP = "TestHugePagesIsolation"
HUGE = "{cpu: '10', memory: 10G, hugepages-2Mi: 1Gi}"
HUGEPAGE_CASES = [
    C(THP, "Valid: request hugepages-2Mi", f"requests: {HUGE}\nlimits: {HUGE}"),
    C(THP, "Valid: request more than one hugepages size",
      "requests: {cpu: '10', memory: 10G, hugepages-2Mi: 1Gi, hugepages-1Gi: 2Gi}\n"
      "limits: {cpu: '10', memory: 10G, hugepages-2Mi: 1Gi, hugepages-1Gi: 2Gi}"),
    C(THP, "Invalid: not requesting cpu and memory", "requests: {hugepages-2Mi: 1Gi}\nlimits: {hugepages-2Mi: 1Gi}",
      (FORBIDDEN, "resources", "HugePages require cpu or memory")),
    C(THP, "Invalid: request 1Gi hugepages-2Mi but limit 2Gi",
      "requests: {cpu: '10', memory: 10G, hugepages-2Mi: 1Gi}\nlimits: {cpu: '10', memory: 10G, hugepages-2Mi: 2Gi}",
      (INVALID, "resources.requests", "must be equal to hugepages-2Mi limit of 2Gi")),
    C("TestAlphaLocalStorageCapacityIsolation", "containerLimitCase", "limits: {ephemeral-storage: 40}"),
]
NOT_PORTED += [
    (TRN, "success/storage, requests.cpu, requests.memory, requests.storage, limits.cpu, limits.memory",
     "valid for validateResourceName alone (quota names); a container's resources also pass "
     "validateContainerResourceName, which refuses them ('must be a standard resource for containers')"),
    ("TestValidatePodResourceNames", "all", "the names of pod-level resources are not checked (docs/validation.md)"),
    (THP, "Valid: request hugepages-1Gi, limit hugepages-2Mi and hugepages-1Gi",
     "the table's pod is the same as 'more than one hugepages size' in the stored snapshot"),
]


@pytest.mark.parametrize("case,where", params(RESOURCE_NAME_CASES + HUGEPAGE_CASES, RESOURCES))
def test_resources(case, where):
    check(case, where)


# --- TestValidateSleepAction (validateSleepAction; PodLifecycleSleepActionAllowZero is on in 1.36) ---

TS = "TestValidateSleepAction"


def _sleep(seconds, grace):
    """A preStop sleep in a pod whose terminationGracePeriodSeconds is `grace`."""
    return Place("spec.template.spec.containers", root="containers", pod={"terminationGracePeriodSeconds": grace,
                                                                         "containers": []})


SLEEP_TABLE = [
    # (case, seconds, grace period, error detail or None); upstream's gate-off cases are in NOT_PORTED
    (TS, "valid setting", 5, 30, None),
    (TS, "longer than gracePeriod", 5, 3, "must be non-negative and less than terminationGracePeriodSeconds (3)"),
    (TS, "sleep duration of zero with zero value feature gate enabled", 0, 30, None),
    (TS, "invalid sleep duration (negative value) with zero value enabled", -1, 30,
     "must be non-negative and less than terminationGracePeriodSeconds (30)"),
    (TS, "zero grace period duration with zero value enabled", 0, 0, None),
]


@pytest.mark.parametrize("test,name,seconds,grace,detail", SLEEP_TABLE, ids=[f"{c[0]}/{c[1]}" for c in SLEEP_TABLE])
def test_sleep_action(test, name, seconds, grace, detail):
    errors = [(INVALID, "containers[0].lifecycle.preStop.sleep", detail)] if detail else []
    case = C(test, name, f"- {{name: ctr, image: image, lifecycle: {{preStop: {{sleep: {{seconds: {seconds}}}}}}}}}", *errors)
    check(case, _sleep(seconds, grace))


NOT_PORTED += [
    (TS, "negative seconds / sleep duration of zero with zero value feature gate disabled / invalid sleep duration "
     "(negative value) with zero value disabled / nil grace period with zero value disabled",
     "PodLifecycleSleepActionAllowZero is on in 1.36: the gate-off wording and the refusal of 0 do not apply"),
    (TS, "nil grace period with zero value enabled", "a Job's pod always has a grace period (defaulted to 30)"),
    ("TestValidateStopSignal", "all", "lifecycle.stopSignal: ContainerStopSignals is alpha and off in 1.36"),
]


# --- pod-level resources: TestValidatePodResources, TestValidatePodResourceConsistency ----------------

# upstream's roots: validatePodResources(spec, ..., field.NewPath("spec")) and
# validatePodResourceConsistency(spec, field.NewPath("resources")); here both are the pod spec's
POD_LEVEL = Place(POD_SPEC, root="spec", pod={})
TPR, TPC = "TestValidatePodResources", "TestValidatePodResourceConsistency"
POD_RESOURCES = """
resources:
  requests: {cpu: '10', memory: 10Mi}
  limits: {cpu: '20', memory: 20Mi, hugepages-2Mi: 100Mi}
resourceClaims: [{name: resource-claim, resourceClaimName: claim}]
"""


def _pod(pod_resources, *container_resources):
    containers = "".join(f"\n- {{name: c{i}, image: image, resources: {r}}}" for i, r in enumerate(container_resources))
    return f"resources: {pod_resources}\ncontainers:{containers or ' [{name: c0, image: image}]'}"


POD_RESOURCE_CASES = [
    C(TPR, "supported os", "os: {name: linux}" + POD_RESOURCES + "containers: [{name: c0, image: image}]"),
    C(TPR, "unsupported os", "os: {name: windows}" + POD_RESOURCES + "containers: [{name: c0, image: image}]",
      (FORBIDDEN, "spec.resources", "may not be set for a windows pod")),
    C(TPR, "unsupported resource claims at pod level resources", "os: {name: linux}" + POD_RESOURCES.replace(
        "hugepages-2Mi: 100Mi}", "hugepages-2Mi: 100Mi}\n  claims: [{name: resource-claim}]")
      + "containers: [{name: c0, image: image}]",
      (FORBIDDEN, "spec.resources.claims", "claims may not be set for Resources at pod-level")),
    C(TPC, "aggregate container requests less than pod requests",
      _pod("{requests: {cpu: '10', memory: 10Mi}}", "{requests: {cpu: '5', memory: 5Mi}}", "{requests: {cpu: '4', memory: 3Mi}}")),
    C(TPC, "aggregate container requests equal to pod requests",
      _pod("{requests: {cpu: '10', memory: 10Mi}}", "{requests: {cpu: '5', memory: 5Mi}}", "{requests: {cpu: '5', memory: 5Mi}}")),
    C(TPC, "aggregate container requests greater than pod requests",
      _pod("{requests: {cpu: '10', memory: 10Mi}}", "{requests: {cpu: '6', memory: 5Mi}}", "{requests: {cpu: '8', memory: 7Mi}}"),
      (INVALID, "spec.resources.requests[cpu]", "must be greater than or equal to aggregate container requests of 14"),
      (INVALID, "spec.resources.requests[memory]", "must be greater than or equal to aggregate container requests of 12Mi")),
    C(TPC, "aggregate container limits less than pod limits",
      _pod("{limits: {cpu: '10', memory: 10Mi, hugepages-2Mi: 10Mi}}", "{limits: {cpu: '5', memory: 5Mi, hugepages-2Mi: 4Mi}}",
           "{limits: {cpu: '4', memory: 3Mi, hugepages-2Mi: 4Mi}}")),
    C(TPC, "aggregate container limits equal to pod limits",
      _pod("{limits: {cpu: '10', memory: 10Mi, hugepages-2Mi: 8Mi}}", "{limits: {cpu: '5', memory: 5Mi, hugepages-2Mi: 4Mi}}",
           "{limits: {cpu: '5', memory: 5Mi, hugepages-2Mi: 4Mi}}")),
    # upstream's "hugepage aggregate container limits greater than pod limits", with CPUs the defaulted
    # Pod still fits (upstream's 6 + 6 CPUs under a pod limit of 10 are refused once defaulted: NOT_PORTED)
    C(TPC, "hugepage aggregate container limits greater than pod limits (CPUs within the pod's)",
      _pod("{limits: {cpu: '10', hugepages-2Mi: 4Mi}}", "{limits: {cpu: '5', hugepages-2Mi: 4Mi}}",
           "{limits: {cpu: '5', hugepages-2Mi: 4Mi}}"),
      (INVALID, "spec.resources.limits[hugepages-2Mi]", "must be greater than or equal to aggregate container limits of 8Mi")),
    C(TPC, "individual container limits greater than pod limits",
      _pod("{limits: {cpu: '10', memory: 10Mi, hugepages-2Mi: 2Mi}}", "{limits: {cpu: '11', memory: 12Mi, hugepages-2Mi: 4Mi}}"),
      (INVALID, "spec.resources.limits[hugepages-2Mi]", "must be greater than or equal to aggregate container limits"),
      (INVALID, "spec.resources.containers[0][cpu].limits", "must be less than or equal to pod limits of 10"),
      (INVALID, "spec.resources.containers[0][memory].limits", "must be less than or equal to pod limits of 10Mi"),
      (INVALID, "spec.resources.containers[0][hugepages-2Mi].limits", "must be less than or equal to pod limits of 2Mi"),
      # not upstream's (it checks the spec undefaulted): the defaulted Pod requests its limits, 11 CPUs
      # and 12Mi in its container against 10 and 10Mi at the pod level (SetDefaults_Pod)
      (INVALID, "spec.resources.requests[cpu]", "must be greater than or equal to aggregate container requests of 11"),
      (INVALID, "spec.resources.requests[memory]", "must be greater than or equal to aggregate container requests of 12Mi")),
]
NOT_PORTED += [
    (TPC, "container requests with resources unsupported at pod-level", "its containers request `storage`, which "
     "validateContainerResourceName refuses when the whole pod is validated (upstream calls the consistency check alone)"),
    (TPC, "aggregate container limits greater than pod limits", "upstream checks the spec as written; a Pod is "
     "defaulted first (SetDefaults_Pod): the containers request their limits (5 + 6 CPUs) and the pod its limit "
     "(10), and the API server refuses it (requests below the containers' aggregate); "
     "tests/unit/validation/k8s/test_resources.py holds the defaulted case"),
    (TPC, "hugepage aggregate container limits greater than pod limits", "as written (containers of 6 + 6 CPUs under "
     "a pod limit of 10) the defaulted Pod is also refused for its CPU request; ported with 5 + 5 CPUs"),
]


# --- TestValidateFileKeyRefVolume (validateFileKeyRefVolumes(spec, field.NewPath("spec"))) ---------------

TFV = "TestValidateFileKeyRefVolume"


def _file_key_pod(volumes, *refs, kind="containers"):
    env = ", ".join(f"{{name: V{i}, valueFrom: {{fileKeyRef: {{volumeName: {v}, path: f.env, key: K}}}}}}"
                    for i, v in enumerate(refs))
    app = "" if kind == "containers" else "containers: [{name: app, image: image}]\n"
    return f"{app}{kind}: [{{name: c, image: image, env: [{env}]}}]\nvolumes: {volumes}"


EMPTY_DIR, HOST = "{emptyDir: {}}", "{hostPath: {path: /tmp/data, type: Directory}}"
FILE_KEY_REF_VOLUME_CASES = [
    C(TFV, "should pass when no FileKeyRef environment variables are used",
      f"containers: [{{name: c, image: image, env: [{{name: STATIC_VAR, value: static_value}}]}}]\n"
      f"volumes: [{{name: some-volume, hostPath: {{path: /tmp/data, type: Directory}}}}]"),
    C(TFV, "should pass when FileKeyRef references a valid emptyDir volume",
      _file_key_pod("[{name: config-volume, emptyDir: {}}]", "config-volume")),
    C(TFV, "should pass when FileKeyRef references emptyDir volume with memory medium",
      _file_key_pod("[{name: cache-volume, emptyDir: {medium: Memory}}]", "cache-volume")),
    C(TFV, "should pass when FileKeyRef references emptyDir volume and other volume types exist",
      _file_key_pod("[{name: config-volume, emptyDir: {}}, {name: other-volume, hostPath: {path: /tmp/data, type: Directory}}]",
                    "config-volume")),
    C(TFV, "should fail when FileKeyRef references a non-existent volume",
      _file_key_pod("[{name: config-volume, emptyDir: {}}]", "non-existent-volume"),
      (NOT_FOUND, "spec.containers[0].env[0].valueFrom.fileKeyRef.volumeName", "")),
    *[C(TFV, f"should fail when FileKeyRef references a {kind} volume", _file_key_pod(f"[{{name: v, {source}}}]", "v"),
        (INVALID, "spec.containers[0].env[0].valueFrom.fileKeyRef.volumeName", "referenced volume must be of type emptyDir"))
      for kind, source in (("hostPath", "hostPath: {path: /tmp/config, type: Directory}"),
                           ("secret", "secret: {secretName: my-secret}"), ("configMap", "configMap: {name: my-config}"),
                           ("persistentVolumeClaim", "persistentVolumeClaim: {claimName: my-pvc}"))],
    C(TFV, "should fail when FileKeyRef references multiple non-emptyDir volumes",
      _file_key_pod("[{name: host-volume, hostPath: {path: /tmp/config, type: Directory}}, "
                    "{name: configmap-volume, configMap: {name: my-config}}]", "host-volume", "configmap-volume"),
      (INVALID, "spec.containers[0].env[0].valueFrom.fileKeyRef.volumeName", "referenced volume must be of type emptyDir"),
      (INVALID, "spec.containers[0].env[1].valueFrom.fileKeyRef.volumeName", "referenced volume must be of type emptyDir")),
    C(TFV, "should pass when FileKeyRef in initContainers references a valid emptyDir volume",
      _file_key_pod("[{name: init-config-volume, emptyDir: {}}]", "init-config-volume", kind="initContainers")),
    C(TFV, "should fail when FileKeyRef in initContainers references a hostPath volume",
      _file_key_pod("[{name: init-config-volume, hostPath: {path: /tmp/init, type: Directory}}]", "init-config-volume",
                    kind="initContainers"),
      (INVALID, "spec.initContainers[0].env[0].valueFrom.fileKeyRef.volumeName", "referenced volume must be of type emptyDir")),
]
NOT_PORTED += [
    (TFV, "should fail when FileKeyRef references non-existent volume in multiple containers",
     "the same refusal as the single-container case; its two containers have no names, which a template refuses"),
    (TFV, "... in ephemeralContainers ...", "ephemeral containers are refused in a pod template (k8s/pod)"),
]


@pytest.mark.parametrize("case,where", params(POD_RESOURCE_CASES + FILE_KEY_REF_VOLUME_CASES, POD_LEVEL))
def test_pod_level_resources_and_file_key_ref_volumes(case, where):
    check(case, where)


def test_not_ported_cases_are_not_also_ported():
    ported = {c.id for name, cases in globals().items() if name.endswith("_CASES") for c in cases}
    assert len(ported) > 100
    assert not {f"{test}/{name}" for test, name, _ in NOT_PORTED} & ported
