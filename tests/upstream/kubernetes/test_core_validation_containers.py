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

import pytest

from upstream.kubernetes.harness import Case, Place, check, params

REQUIRED, INVALID, UNSUPPORTED = "FieldValueRequired", "FieldValueInvalid", "FieldValueNotSupported"
DUPLICATE, NOT_FOUND, FORBIDDEN = "FieldValueDuplicate", "FieldValueNotFound", "FieldValueForbidden"
TOO_LONG = "FieldValueTooLong"

# upstream passes field.NewPath("containers") to validateContainers
CONTAINERS = Place("spec.template.spec.containers", root="containers")


def C(test, name, text, *errors):
    return Case(test, name, text, tuple(errors))


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

# Upstream cases this function does not check, by design: (upstream test, case name(s), why).
DEFAULTED = "defaulted before validation (pkg/apis/core/v1/defaults.go), so the API server never sees it empty"
NOT_PORTED = [
    (T, "invalid lifecycle, no http path.", "httpGet.path " + DEFAULTED + " (SetDefaults_HTTPGetAction: \"/\")"),
    (T, "invalid lifecycle, no http scheme.", "httpGet.scheme " + DEFAULTED + " (SetDefaults_HTTPGetAction: HTTP)"),
    (T, "empty message termination policy", "terminationMessagePolicy " + DEFAULTED + " (SetDefaults_Container: File)"),
    (T, "privilege disabled", "depends on the API server's --allow-privileged (capabilities), cluster configuration"),
    (T, "Forbidden RestartPolicy: Always/OnFailure/Never/invalid/empty",
     "upstream's table runs with ContainerRestartRules off; the gate is beta and on by default since 1.35 "
     "(pkg/features/kube_features.go), so a regular container may set restartPolicy in 1.36"),
    (T, "success/container-with-stopsignal-lifecycle",
     "lifecycle.stopSignal: the ContainerStopSignals gate is alpha and off in 1.36 (kube_features.go), "
     "so the field is dropped before validation"),
]


@pytest.mark.parametrize("case,where", params(CONTAINER_CASES, CONTAINERS))
def test_containers(case, where):
    check(case, where)


def test_not_ported_cases_are_not_also_ported():
    ported = {c.id for c in CONTAINER_CASES}
    assert not {f"{test}/{name}" for test, name, _ in NOT_PORTED} & ported
