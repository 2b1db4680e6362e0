"""Kubernetes' own table cases for the pod-spec rule families (k8s/pod, k8s/security-context,
k8s/tolerations, k8s/affinity, k8s/node-selector, k8s/pod-annotations, k8s/container-restart),
ported from pkg/apis/core/validation/validation_test.go (snapshot and version: docs/validation.md,
"Where the cases and messages come from").

Each case is upstream's input written as the YAML a user puts in a pod template, placed in a rendered
JobSet's replicated job (tests/upstream/kubernetes/harness.py). An invalid case carries upstream's
expected (error type, field, detail) with the field from upstream's own root; where upstream's table
gives only a substring (TestValidatePod's expectedError) the type and field are the ones
validation.go produces for it. Valid cases must produce no finding at all. What upstream tests but a
Job's pod template never meets, or what is gated off in 1.36, is in NOT_PORTED with the reason.
"""

from __future__ import annotations

import pytest

from upstream.kubernetes.harness import (DUPLICATE, FORBIDDEN, INVALID, POD_METADATA, POD_SPEC, REQUIRED, TOO_LONG,
                                         UNSUPPORTED, Case, Place, check, params)
from upstream.kubernetes.harness import case as C

SPEC_FIELD = Place(POD_SPEC, root="field")  # TestValidatePodSpec: ValidatePodSpec(..., field.NewPath("field"))
POD = Place(POD_SPEC, root="spec")          # TestValidatePod: the Pod's spec
POD_META = Place(POD_METADATA, root="metadata")  # TestValidatePod: the Pod's metadata


# --- TestValidatePodSpec -------------------------------------------------------------------------

T = "TestValidatePodSpec"
POD_SPEC_CASES = [
    C(T, "success/populate basic fields, leave defaults for most", "{}"),
    C(T, "success/populate all fields", """
initContainers: [{name: ictr, image: image}]
volumes: [{name: vol, emptyDir: {}}]
nodeSelector: {key: value}
nodeName: foobar
activeDeadlineSeconds: 2147483647
serviceAccountName: acct
"""),
    C(T, "success/populate HostNetwork", """
hostNetwork: true
containers: [{name: ctr, image: image, ports: [{hostPort: 8080, containerPort: 8080, protocol: TCP}]}]
"""),
    C(T, "success/populate RunAsUser SupplementalGroups FSGroup with minID 0",
      "securityContext: {supplementalGroups: [0], runAsUser: 0, fsGroup: 0}"),
    C(T, "success/populate RunAsUser SupplementalGroups FSGroup with maxID 2147483647",
      "securityContext: {supplementalGroups: [2147483647], runAsUser: 2147483647, fsGroup: 2147483647}"),
    C(T, "success/populate HostIPC", "hostIPC: true"),
    C(T, "success/populate HostPID", "hostPID: true"),
    C(T, "success/populate Affinity", """
affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
      - matchExpressions: [{key: key2, operator: In, values: [value1, value2]}]
        matchFields: [{key: metadata.name, operator: In, values: [host1]}]
    preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 10
      preference:
        matchExpressions: [{key: foo, operator: In, values: [bar]}]
"""),
    C(T, "success/populate HostAliases", "hostAliases: [{ip: 12.34.56.78, hostnames: [host1, host2]}]"),
    C(T, "success/populate HostAliases with `foo.bar` hostnames",
      "hostAliases: [{ip: 12.34.56.78, hostnames: [host1.foo, host2.bar]}]"),
    C(T, "success/populate HostAliases with HostNetwork",
      "{hostNetwork: true, hostAliases: [{ip: 12.34.56.78, hostnames: [host1.foo, host2.bar]}]}"),
    C(T, "success/populate PriorityClassName", "priorityClassName: valid-name"),
    C(T, "success/populate ShareProcessNamespace", "shareProcessNamespace: true"),
    C(T, "success/populate RuntimeClassName", "runtimeClassName: valid-sandbox"),
    C(T, "success/populate Overhead", "overhead: {}"),
    C(T, "success/populate FSGroupChangePolicy", "securityContext: {fsGroupChangePolicy: Always}"),
    C(T, "success/resources resize policy for containers",
      "containers: [{name: ctr, image: image, resizePolicy: [{resourceName: cpu, restartPolicy: NotRequired}]}]"),
    C(T, "success/populate SupplementalGroupsPolicy", "securityContext: {supplementalGroupsPolicy: Strict}"),
    C(T, "success/populate PodLevelResources without OS",
      "{resources: {limits: {cpu: 100m, memory: 200Mi}}, containers: [{name: container, image: image}]}"),
    C(T, "success/populate PodLevelResources with valid OS",
      "{resources: {limits: {cpu: 100m, memory: 200Mi}}, containers: [{name: container, image: image}], os: {name: linux}}"),
    C(T, "failure/no containers", "containers: []", (REQUIRED, "field.containers", "")),
    C(T, "failure/bad container", "containers: [{}]",
      (REQUIRED, "field.containers[0].name", ""), (REQUIRED, "field.containers[0].image", "")),
    C(T, "failure/bad init container", "initContainers: [{}]",
      (REQUIRED, "field.initContainers[0].name", ""), (REQUIRED, "field.initContainers[0].image", "")),
    C(T, "failure/bad DNS policy", "dnsPolicy: invalid", (UNSUPPORTED, "field.dnsPolicy", '"invalid"')),
    C(T, "failure/bad service account name", "serviceAccountName: invalidName",
      (INVALID, "field.serviceAccountName", "a lowercase RFC 1123 subdomain")),
    # upstream's ValidatePodSpec alone says Unsupported; a Job's pod also gets batch's own check
    C(T, "failure/bad restart policy", "restartPolicy: UnknowPolicy",
      (UNSUPPORTED, "field.restartPolicy", '"Always", "OnFailure", "Never"')),
    C(T, "failure/with hostNetwork hostPort not equal to containerPort", """
hostNetwork: true
containers: [{name: ctr, image: image, ports: [{hostPort: 8080, containerPort: 2600, protocol: TCP}]}]
""", (INVALID, "field.containers[0].ports[0].hostPort", "must match `containerPort` when `hostNetwork` is true")),
    C(T, "failure/with hostAliases with invalid IP", "hostAliases: [{ip: 999.999.999.999, hostnames: [host1, host2]}]",
      (INVALID, "field.hostAliases[0].ip", "must be a valid IP address")),
    C(T, "failure/with hostAliases with invalid legacy IP with strict IP validation",
      "hostAliases: [{ip: 001.002.003.004, hostnames: [host1, host2]}]", (INVALID, "field.hostAliases[0].ip", "")),
    C(T, "failure/with hostAliases with invalid hostname", "hostAliases: [{ip: 12.34.56.78, hostnames: ['@#$^#@#$']}]",
      (INVALID, "field.hostAliases[0].hostnames[0]", "a lowercase RFC 1123 subdomain")),
    C(T, "failure/bad supplementalGroups large than math.MaxInt32", "securityContext: {supplementalGroups: [2147483648, 1234]}",
      (INVALID, "field.securityContext.supplementalGroups[0]", "must be between 0 and 2147483647, inclusive")),
    C(T, "failure/bad supplementalGroups less than 0", "securityContext: {supplementalGroups: [-1, 1234]}",
      (INVALID, "field.securityContext.supplementalGroups[0]", "must be between 0 and 2147483647, inclusive")),
    C(T, "failure/bad runAsUser large than math.MaxInt32", "securityContext: {runAsUser: 2147483648}",
      (INVALID, "field.securityContext.runAsUser", "must be between 0 and 2147483647, inclusive")),
    C(T, "failure/bad runAsUser less than 0", "securityContext: {runAsUser: -1}",
      (INVALID, "field.securityContext.runAsUser", "must be between 0 and 2147483647, inclusive")),
    C(T, "failure/bad fsGroup large than math.MaxInt32", "securityContext: {fsGroup: 2147483648}",
      (INVALID, "field.securityContext.fsGroup", "must be between 0 and 2147483647, inclusive")),
    C(T, "failure/bad fsGroup less than 0", "securityContext: {fsGroup: -1}",
      (INVALID, "field.securityContext.fsGroup", "must be between 0 and 2147483647, inclusive")),
    C(T, "failure/bad-active-deadline-seconds", "activeDeadlineSeconds: 0",
      (INVALID, "field.activeDeadlineSeconds", "must be between 1 and 2147483647, inclusive")),
    C(T, "failure/active-deadline-seconds-too-large", "activeDeadlineSeconds: 2147483648",
      (INVALID, "field.activeDeadlineSeconds", "must be between 1 and 2147483647, inclusive")),
    C(T, "failure/bad nodeName", "nodeName: node name", (INVALID, "field.nodeName", "a lowercase RFC 1123 subdomain")),
    C(T, "failure/bad PriorityClassName", "priorityClassName: InvalidName",
      (INVALID, "field.priorityClassName", "a lowercase RFC 1123 subdomain")),
    C(T, "failure/ShareProcessNamespace and HostPID both set", "{hostPID: true, shareProcessNamespace: true}",
      (INVALID, "field.securityContext.shareProcessNamespace", "ShareProcessNamespace and HostPID cannot both be enabled")),
    C(T, "failure/bad RuntimeClassName", "runtimeClassName: invalid/sandbox",
      (INVALID, "field.runtimeClassName", "a lowercase RFC 1123 subdomain")),
    C(T, "failure/bad empty fsGroupchangepolicy", "securityContext: {fsGroupChangePolicy: ''}",
      (UNSUPPORTED, "field.securityContext.fsGroupChangePolicy", "")),
    C(T, "failure/bad invalid fsgroupchangepolicy", "securityContext: {fsGroupChangePolicy: invalid}",
      (UNSUPPORTED, "field.securityContext.fsGroupChangePolicy", '"invalid"')),
    C(T, "failure/bad empty SupplementalGroupsPolicy", "securityContext: {supplementalGroupsPolicy: ''}",
      (UNSUPPORTED, "field.securityContext.supplementalGroupsPolicy", "")),
    C(T, "failure/bad invalid SupplementalGroupsPolicy", "securityContext: {supplementalGroupsPolicy: invalid}",
      (UNSUPPORTED, "field.securityContext.supplementalGroupsPolicy", '"invalid"')),
    C(T, "failure/bad OS for PodLevelResources hides bad cpu limit", """
resources: {limits: {cpu: 100m, memory: 200Mi}}
containers: [{name: container, image: image, resources: {limits: {cpu: 200m, memory: 200Mi}}}]
os: {name: windows}
""", (FORBIDDEN, "field.resources", "may not be set for a windows pod")),
]


# --- TestValidatePodDNSConfig (upstream's root is dnsConfig; written here from the pod spec) ---------

def _search(n: int) -> str:
    return "a" * n  # a subdomain of n characters, like upstream's generateTestSearchPathFunc


T = "TestValidatePodDNSConfig"
DNS_CASES = [
    C(T, "invalid: 33 search paths", "dnsConfig: {searches: [" + ", ".join(
        ["custom", "mydomain.com", "local", "cluster.local", "svc.cluster.local", "default.svc.cluster.local."]
        + [str(i) for i in range(7, 34)]) + "]}",
      (INVALID, "field.dnsConfig.searches", "must not have more than 32 search paths")),
    C(T, "valid: 257 characters in search path list",
      "dnsConfig: {searches: [" + ", ".join([_search(2)] + [_search(50)] * 5) + "]}"),
    C(T, "invalid: 2049 characters in search path list",
      "dnsConfig: {searches: [" + ", ".join([_search(65)] + [_search(63)] * 31) + "]}",
      (INVALID, "field.dnsConfig.searches", "must not have more than 2048 characters (including spaces) in the search list")),
    C(T, "invalid search path", "dnsConfig: {searches: ['custom?']}", (INVALID, "field.dnsConfig.searches[0]", "")),
    C(T, "invalid nameserver", "dnsConfig: {nameservers: [invalid]}",
      (INVALID, "field.dnsConfig.nameservers[0]", "must be a valid IP address")),
    C(T, "invalid legacy IP nameserver with strict IP validation", "dnsConfig: {nameservers: [001.002.003.004]}",
      (INVALID, "field.dnsConfig.nameservers[0]", "")),
    C(T, "invalid empty option name", "dnsConfig: {options: [{value: custom_value}]}",
      (REQUIRED, "field.dnsConfig.options[0]", "must not be empty")),
    C(T, "invalid: DNSNone with 0 nameserver", "{dnsPolicy: None, dnsConfig: {searches: [custom]}}",
      (REQUIRED, "field.dnsConfig.nameservers", "must provide at least one DNS nameserver when `dnsPolicy` is None")),
]


# --- TestValidatePodReadinessGates ------------------------------------------------------------------

T = "TestValidatePodReadinessGates"
READINESS_CASES = [
    C(T, "no gate", "readinessGates: []"),
    C(T, "one readiness gate", "readinessGates: [{conditionType: example.com/condition}]"),
    C(T, "two readiness gates", "readinessGates: [{conditionType: example.com/condition1}, {conditionType: example.com/condition2}]"),
    C(T, "invalid condition type", "readinessGates: [{conditionType: invalid/condition/type}]",
      (INVALID, "field.readinessGates[0].conditionType", "")),
]


# --- TestValidatePod: affinity, tolerations, the annotations the API server reads -------------------

T = "TestValidatePod"
NA = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
AFFINITY_CASES = [
    C(T, "success/serialized node affinity requirements", """
affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
      - matchExpressions: [{key: key2, operator: In, values: [value1, value2]}]
        matchFields: [{key: metadata.name, operator: In, values: [host1]}]
    preferredDuringSchedulingIgnoredDuringExecution:
    - {weight: 10, preference: {matchExpressions: [{key: foo, operator: In, values: [bar]}]}}
"""),
    C(T, "success/serialized node affinity requirements, II", """
affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms: [{matchExpressions: []}]
    preferredDuringSchedulingIgnoredDuringExecution:
    - {weight: 10, preference: {matchExpressions: []}}
"""),
    C(T, "success/serialized pod affinity in affinity requirements in annotations", """
affinity:
  podAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
    - labelSelector: {matchExpressions: [{key: key2, operator: In, values: [value1, value2]}]}
      topologyKey: zone
      namespaces: [ns]
      namespaceSelector: {matchExpressions: [{key: key, operator: In, values: [value1, value2]}]}
    preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 10
      podAffinityTerm:
        labelSelector: {matchExpressions: [{key: key2, operator: NotIn, values: [value1, value2]}]}
        namespaces: [ns]
        topologyKey: region
"""),
    C(T, "success/serialized pod anti affinity with different Label Operators in affinity requirements in annotations", """
affinity:
  podAntiAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
    - {labelSelector: {matchExpressions: [{key: key2, operator: Exists}]}, topologyKey: zone, namespaces: [ns]}
    preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 10
      podAffinityTerm: {labelSelector: {matchExpressions: [{key: key2, operator: DoesNotExist}]}, namespaces: [ns], topologyKey: region}
"""),
    C(T, "failure/invalid node selector requirement in node affinity, operator can't be null", f"""
affinity: {{nodeAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: {{nodeSelectorTerms: [{{matchExpressions: [{{key: key1}}]}}]}}}}}}
""", (INVALID, NA + "[0].matchExpressions[0].operator", "not a valid selector operator")),
    C(T, "failure/invalid node selector requirement in node affinity, key is invalid", """
affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: 'invalid key ___@#', operator: Exists}]}]}}}
""", (INVALID, NA + "[0].matchExpressions[0].key", "")),
    C(T, "failure/invalid node field selector requirement in node affinity, more values for field selector", """
affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [host1, host2]}]}]}}}
""", (REQUIRED, NA + "[0].matchFields[0].values", "must be only one value when `operator` is 'In' or 'NotIn' for node field selector")),
    C(T, "failure/invalid node field selector requirement in node affinity, invalid operator", """
affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: Exists}]}]}}}
""", (INVALID, NA + "[0].matchFields[0].operator", "not a valid selector operator")),
    C(T, "failure/invalid node field selector requirement in node affinity, invalid key", """
affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: metadata.namespace, operator: In, values: [ns1]}]}]}}}
""", (INVALID, NA + "[0].matchFields[0].key", "not a valid field selector key")),
    C(T, "failure/invalid preferredSchedulingTerm in node affinity, weight should be in range 1-100", """
affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 199, preference: {matchExpressions: [{key: foo, operator: In, values: [bar]}]}}]}}
""", (INVALID, "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight", "must be in the range 1-100")),
    C(T, "failure/invalid requiredDuringSchedulingIgnoredDuringExecution node selector, nodeSelectorTerms must have at least one term", """
affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: []}}}
""", (REQUIRED, NA, "must have at least one node selector term")),
    C(T, "failure/invalid weight in preferredDuringSchedulingIgnoredDuringExecution in pod affinity annotations, weight should be in range 1-100", """
affinity: {podAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 109, podAffinityTerm: {labelSelector: {matchExpressions: [{key: key2, operator: NotIn, values: [value1, value2]}]}, namespaces: [ns], topologyKey: region}}]}}
""", (INVALID, "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight", "must be in the range 1-100")),
    C(T, "failure/invalid labelSelector in preferredDuringSchedulingIgnoredDuringExecution in podaffinity annotations, values should be empty if the operator is Exists", """
affinity: {podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 10, podAffinityTerm: {labelSelector: {matchExpressions: [{key: key2, operator: Exists, values: [value1, value2]}]}, namespaces: [ns], topologyKey: region}}]}}
""", (FORBIDDEN, "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.labelSelector.matchExpressions[0].values", "")),
    C(T, "failure/invalid namespaceSelector in preferredDuringSchedulingIgnoredDuringExecution in podaffinity, In operator must include Values", """
affinity: {podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 10, podAffinityTerm: {namespaceSelector: {matchExpressions: [{key: key2, operator: In}]}, namespaces: [ns], topologyKey: region}}]}}
""", (REQUIRED, "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.namespaceSelector.matchExpressions[0].values", "")),
    C(T, "failure/invalid namespaceSelector in preferredDuringSchedulingIgnoredDuringExecution in podaffinity, Exists operator can not have values", """
affinity: {podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 10, podAffinityTerm: {namespaceSelector: {matchExpressions: [{key: key2, operator: Exists, values: [value1, value2]}]}, namespaces: [ns], topologyKey: region}}]}}
""", (FORBIDDEN, "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.namespaceSelector.matchExpressions[0].values", "")),
    C(T, "failure/invalid name space in preferredDuringSchedulingIgnoredDuringExecution in podaffinity annotations, namespace should be valid", """
affinity: {podAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 10, podAffinityTerm: {labelSelector: {matchExpressions: [{key: key2, operator: Exists}]}, namespaces: [INVALID_NAMESPACE], topologyKey: region}}]}}
""", (INVALID, "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.namespace", "")),
]

_TERM = "{labelSelector: {matchExpressions: [{key: key2, operator: %s, values: [value1, value2]}]}, namespaces: [ns]}"
for _kind, _label in (("podAffinity", "pod affinity"), ("podAntiAffinity", "pod anti-affinity")):
    AFFINITY_CASES += [
        C(T, f"failure/invalid hard {_label}, empty topologyKey is not allowed for hard {_label}",
          f"affinity: {{{_kind}: {{requiredDuringSchedulingIgnoredDuringExecution: [{_TERM % 'In'}]}}}}",
          (REQUIRED, f"spec.affinity.{_kind}.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey", "can not be empty"),
          (INVALID, f"spec.affinity.{_kind}.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey", "")),
        C(T, f"failure/invalid soft {_label}, empty topologyKey is not allowed for soft {_label}",
          f"affinity: {{{_kind}: {{preferredDuringSchedulingIgnoredDuringExecution: [{{weight: 10, podAffinityTerm: {_TERM % 'NotIn'}}}]}}}}",
          (REQUIRED, f"spec.affinity.{_kind}.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey", "can not be empty"),
          (INVALID, f"spec.affinity.{_kind}.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey", "")),
    ]


def _label_keys_term(hard: bool, kind: str, keys: str, selector: str = "[{key: key, operator: NotIn, values: [value1, value2]}]"):
    term = f"{{labelSelector: {{matchExpressions: {selector}}}, topologyKey: k8s.io/zone, {keys}}}"
    if hard:
        return f"affinity: {{{kind}: {{requiredDuringSchedulingIgnoredDuringExecution: [{term}]}}}}", \
            f"spec.affinity.{kind}.requiredDuringSchedulingIgnoredDuringExecution[0]"
    return f"affinity: {{{kind}: {{preferredDuringSchedulingIgnoredDuringExecution: [{{weight: 10, podAffinityTerm: {term}}}]}}}}", \
        f"spec.affinity.{kind}.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm"


# validateMatchLabelKeysAndMismatchLabelKeys: MatchLabelKeysInPodAffinity is GA (locked on) since 1.33
_BOTH = "[{key: key, operator: In, values: [value1]}, {key: key, operator: NotIn, values: [value2]}]"
_LABEL_KEYS = "[{key: key, operator: NotIn, values: [value1, value2]}, {key: key2, operator: In, values: [value1]}, " \
              "{key: key3, operator: NotIn, values: [value1]}]"
for _kind, _label in (("podAffinity", "pod affinity"), ("podAntiAffinity", "pod anti-affinity")):
    for _hard, _which in ((False, "soft"), (True, "hard")):
        for _field, _name in (("matchLabelKeys", "MatchLabelKeys"), ("mismatchLabelKeys", "MismatchLabelKeys")):
            _text, _at = _label_keys_term(_hard, _kind, f"{_field}: [/simple]")
            AFFINITY_CASES.append(C(T, f"failure/invalid {_which} {_label}, key in {_name} isn't correctly defined", _text,
                                    (INVALID, f"{_at}.{_field}[0]", "prefix part must be non-empty")))
        _text, _at = _label_keys_term(_hard, _kind, "matchLabelKeys: [key]", _BOTH)
        # upstream's path is the term indexed by the key's place in matchLabelKeys
        AFFINITY_CASES.append(C(T, f"failure/invalid {_which} {_label}, key exists in both matchLabelKeys and labelSelector",
                                _text, (INVALID, f"{_at}[0]", "exists in both matchLabelKeys and labelSelector")))
        _text, _at = _label_keys_term(_hard, _kind, "matchLabelKeys: [samekey], mismatchLabelKeys: [samekey]")
        AFFINITY_CASES.append(C(T, f"failure/invalid {_which} {_label}, key exists in both MatchLabelKeys and MismatchLabelKeys",
                                _text, (INVALID, f"{_at}.matchLabelKeys[0]", "exists in both matchLabelKeys and mismatchLabelKeys")))
        _text, _ = _label_keys_term(_hard, _kind, "matchLabelKeys: [key2], mismatchLabelKeys: [key3]", _LABEL_KEYS)
        AFFINITY_CASES.append(C(T, f"success/MatchLabelKeys/MismatchLabelKeys in {'required' if _hard else 'preferred'} "
                                   f"{'PodAffinity' if _kind == 'podAffinity' else 'PodAntiAffinity'}", _text))
AFFINITY_CASES.append(C(T, "success/LabelSelector can have the same key as MismatchLabelKeys", _label_keys_term(
    True, "podAffinity", "mismatchLabelKeys: [key2]",
    "[{key: key, operator: NotIn, values: [value1, value2]}, {key: key2, operator: In, values: [value1]}, "
    "{key: key2, operator: NotIn, values: [value1]}]")[0]))

TOLERATION_CASES = [
    C(T, "success/populate forgiveness tolerations with exists operator in annotations.",
      "tolerations: [{key: foo, operator: Exists, value: '', effect: NoExecute, tolerationSeconds: 60}]"),
    C(T, "success/populate forgiveness tolerations with equal operator in annotations.",
      "tolerations: [{key: foo, operator: Equal, value: bar, effect: NoExecute, tolerationSeconds: 60}]"),
    C(T, "success/populate tolerations equal operator in annotations.",
      "tolerations: [{key: foo, operator: Equal, value: bar, effect: NoSchedule}]"),
    C(T, "success/empty key with Exists operator is OK for toleration, empty toleration key means match all taint keys.",
      "tolerations: [{operator: Exists, effect: NoSchedule}]"),
    C(T, "success/empty operator is OK for toleration, defaults to Equal.", "tolerations: [{key: foo, value: bar, effect: NoSchedule}]"),
    C(T, "success/empty effect is OK for toleration, empty toleration effect means match all taint effects.",
      "tolerations: [{key: foo, operator: Equal, value: bar}]"),
    C(T, "success/negative tolerationSeconds is OK for toleration.",
      "tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: -2}]"),
    C(T, "failure/invalid toleration key", "tolerations: [{key: 'nospecialchars^=@', operator: Equal, value: bar, effect: NoSchedule}]",
      (INVALID, "spec.tolerations[0].key", "")),
    C(T, "failure/invalid toleration operator", "tolerations: [{key: foo, operator: In, value: bar, effect: NoSchedule}]",
      (UNSUPPORTED, "spec.tolerations[0].operator", '"In"')),
    C(T, "failure/value must be empty when `operator` is 'Exists'",
      "tolerations: [{key: foo, operator: Exists, value: bar, effect: NoSchedule}]",
      (INVALID, "spec.tolerations[0].operator", "value must be empty when `operator` is 'Exists'")),
    C(T, "failure/operator must be 'Exists' when `key` is empty", "tolerations: [{operator: Equal, value: bar, effect: NoSchedule}]",
      (INVALID, "spec.tolerations[0].operator", "operator must be Exists when `key` is empty")),
    C(T, "failure/effect must be 'NoExecute' when `TolerationSeconds` is set",
      "tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoSchedule, tolerationSeconds: 20}]",
      (INVALID, "spec.tolerations[0].effect", "effect must be 'NoExecute' when `tolerationSeconds` is set")),
    # TaintTolerationComparisonOperators is alpha (off) in 1.35 and 1.36 (pkg/scheduler/features)
    C(T, "failure/numeric operator Lt requires feature gate (gate disabled)",
      "tolerations: [{key: node.kubernetes.io/sla, operator: Lt, value: '950', effect: NoSchedule}]",
      (UNSUPPORTED, "spec.tolerations[0].operator", 'Unsupported value: "Lt"')),
    C(T, "failure/numeric operator Gt requires feature gate (gate disabled)",
      "tolerations: [{key: node.kubernetes.io/sla, operator: Gt, value: '950', effect: NoSchedule}]",
      (UNSUPPORTED, "spec.tolerations[0].operator", 'Unsupported value: "Gt"')),
]

# the pod template's annotations (upstream's Pod is metadata + spec; its fields are metadata.annotations[...])
SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_CTR = "container.seccomp.security.alpha.kubernetes.io/"
APPARMOR_CTR = "container.apparmor.security.beta.kubernetes.io/"
ANNOTATION_CASES = [
    C(T, "success/runtime default seccomp profile", f"annotations: {{{SECCOMP_POD}: runtime/default}}"),
    C(T, "success/docker default seccomp profile", f"annotations: {{{SECCOMP_POD}: unconfined}}"),
    C(T, "success/localhost seccomp profile", f"annotations: {{{SECCOMP_POD}: localhost/foo}}"),
    C(T, "success/localhost seccomp profile for a container", f"annotations: {{{SECCOMP_CTR}foo: localhost/foo}}"),
    C(T, "success/default AppArmor annotation for a container", f"annotations: {{{APPARMOR_CTR}ctr: runtime/default}}"),
    C(T, "success/localhost AppArmor annotation for a container", f"annotations: {{{APPARMOR_CTR}ctr: localhost/foo}}"),
    C(T, "success/negative pod-deletion-cost", "annotations: {controller.kubernetes.io/pod-deletion-cost: '-100'}"),
    C(T, "success/positive pod-deletion-cost", "annotations: {controller.kubernetes.io/pod-deletion-cost: '100'}"),
    C(T, "failure/must be a valid pod seccomp profile", f"annotations: {{{SECCOMP_POD}: foo}}",
      (INVALID, f"metadata.annotations.{SECCOMP_POD}", "must be a valid seccomp profile")),
    C(T, "failure/must be a valid container seccomp profile", f"annotations: {{{SECCOMP_CTR}foo: foo}}",
      (INVALID, f"metadata.annotations.{SECCOMP_CTR}foo", "must be a valid seccomp profile")),
    C(T, "failure/must be a non-empty container profile in seccomp annotation", f"annotations: {{{SECCOMP_CTR}foo: ''}}",
      (INVALID, f"metadata.annotations.{SECCOMP_CTR}foo", "must be a valid seccomp profile")),
    C(T, "failure/must be a relative path in a node-local seccomp profile annotation",
      f"annotations: {{{SECCOMP_POD}: localhost//foo}}", (INVALID, f"metadata.annotations.{SECCOMP_POD}", "must be a relative path")),
    C(T, "failure/must not start with '../'", f"annotations: {{{SECCOMP_POD}: localhost/../foo}}",
      (INVALID, f"metadata.annotations.{SECCOMP_POD}", "must not contain '..'")),
    C(T, "failure/AppArmor profile format must be valid", f"annotations: {{{APPARMOR_CTR}ctr: bad-name}}",
      (INVALID, f"metadata.annotations[{APPARMOR_CTR}ctr]", "invalid AppArmor profile name")),
    C(T, "failure/only default AppArmor profile may start with runtime/", f"annotations: {{{APPARMOR_CTR}ctr: runtime/foo}}",
      (INVALID, f"metadata.annotations[{APPARMOR_CTR}ctr]", "invalid AppArmor profile name")),
    C(T, "failure/mirror-pod present without nodeName", "annotations: {kubernetes.io/config.mirror: ''}",
      (INVALID, "metadata.annotations[kubernetes.io/config.mirror]", "must set spec.nodeName if mirror pod annotation is set")),
    C(T, "failure/mirror-pod populated without nodeName", "annotations: {kubernetes.io/config.mirror: foo}",
      (INVALID, "metadata.annotations[kubernetes.io/config.mirror]", "must set spec.nodeName if mirror pod annotation is set")),
]

# cases that need both the annotations and the spec: (case, annotations YAML); the spec is the case's YAML
_CTR_SECCOMP = "containers: [{name: ctr, image: image, securityContext: {seccompProfile: {type: RuntimeDefault}}}]"
MIXED_CASES = [
    (C(T, "failure/AppArmor profile must apply to a container", "initContainers: [{name: init-ctr, image: image}]",
       (INVALID, f"metadata.annotations[{APPARMOR_CTR}fake-ctr]", "container not found")),
     f"{{{APPARMOR_CTR}ctr: runtime/default, {APPARMOR_CTR}init-ctr: runtime/default, {APPARMOR_CTR}fake-ctr: runtime/default}}"),
    (C(T, "success/default AppArmor annotation for an init container", "initContainers: [{name: init-ctr, image: image}]"),
     f"{{{APPARMOR_CTR}init-ctr: runtime/default}}"),
    (C(T, "failure/must match seccomp profile type and pod annotation", "securityContext: {seccompProfile: {type: RuntimeDefault}}",
       (FORBIDDEN, "spec.securityContext.seccompProfile.type", "seccomp type in annotation and field must match")),
     f"{{{SECCOMP_POD}: unconfined}}"),
    (C(T, "failure/must match seccomp profile type and container annotation", _CTR_SECCOMP,
       (FORBIDDEN, "spec.containers[0].securityContext.seccompProfile.type", "seccomp type in annotation and field must match")),
     f"{{{SECCOMP_CTR}ctr: unconfined}}"),
    (C(T, "failure/mismatched AppArmor field and annotation types",
       "containers: [{name: ctr, image: image, securityContext: {appArmorProfile: {type: Unconfined}}}]",
       (FORBIDDEN, "spec.containers[0].securityContext.appArmorProfile.type", "apparmor type in annotation and field must match")),
     f"{{{APPARMOR_CTR}ctr: runtime/default}}"),
    (C(T, "failure/mismatched AppArmor pod field and annotation types", "securityContext: {appArmorProfile: {type: Unconfined}}",
       (FORBIDDEN, "spec.containers[0].securityContext.appArmorProfile.type", "apparmor type in annotation and field must match")),
     f"{{{APPARMOR_CTR}ctr: runtime/default}}"),
    (C(T, "failure/mismatched AppArmor localhost profiles",
       "containers: [{name: ctr, image: image, securityContext: {appArmorProfile: {type: Localhost, localhostProfile: bar}}}]",
       (FORBIDDEN, "spec.containers[0].securityContext.appArmorProfile.localhostProfile", "apparmor profile in annotation and field must match")),
     f"{{{APPARMOR_CTR}ctr: localhost/foo}}"),
    (C(T, "success/matching AppArmor fields and annotations",
       "containers: [{name: ctr, image: image, securityContext: {appArmorProfile: {type: Localhost, localhostProfile: foo}}}]"),
     f"{{{APPARMOR_CTR}ctr: localhost/foo}}"),
    (C(T, "success/matching AppArmor pod field and annotations", "securityContext: {appArmorProfile: {type: Localhost, localhostProfile: foo}}"),
     f"{{{APPARMOR_CTR}ctr: localhost/foo}}"),
]

SECURITY_CASES = [
    C(T, "success/runtime default seccomp profile for a pod", "securityContext: {seccompProfile: {type: RuntimeDefault}}"),
    C(T, "success/runtime default seccomp profile for a container",
      "containers: [{name: ctr, image: image, securityContext: {seccompProfile: {type: Unconfined}}}]"),
    C(T, "success/localhost seccomp profile for a pod", "securityContext: {seccompProfile: {type: Localhost, localhostProfile: filename.json}}"),
    C(T, "success/localhost seccomp profile for a container, II",
      "containers: [{name: ctr, image: image, securityContext: {seccompProfile: {type: Localhost, localhostProfile: filename.json}}}]"),
    C(T, "success/runtime default AppArmor profile for a pod", "securityContext: {appArmorProfile: {type: RuntimeDefault}}"),
    C(T, "success/runtime default AppArmor profile for a container",
      "containers: [{name: ctr, image: image, securityContext: {appArmorProfile: {type: RuntimeDefault}}}]"),
    C(T, "success/unconfined AppArmor profile for a pod", "securityContext: {appArmorProfile: {type: Unconfined}}"),
    C(T, "success/localhost AppArmor profile for a pod",
      "securityContext: {appArmorProfile: {type: Localhost, localhostProfile: example-org/application-foo}}"),
    C(T, "success/syntactically valid sysctls", """
securityContext:
  sysctls: [{name: kernel.shmmni, value: '32768'}, {name: kernel.shmmax, value: '1000000000'}, {name: knet.ipv4.route.min_pmtu, value: '1000'}]
"""),
    C(T, "failure/unsupported pod AppArmor profile type", "securityContext: {appArmorProfile: {type: test}}",
      (UNSUPPORTED, "spec.securityContext.appArmorProfile.type", 'Unsupported value: "test"')),
    C(T, "failure/unsupported container AppArmor profile type",
      "containers: [{name: ctr, image: image, securityContext: {appArmorProfile: {type: test}}}]",
      (UNSUPPORTED, "spec.containers[0].securityContext.appArmorProfile.type", 'Unsupported value: "test"')),
    C(T, "failure/missing pod AppArmor profile type", "securityContext: {appArmorProfile: {type: ''}}",
      (REQUIRED, "spec.securityContext.appArmorProfile.type", "type is required when appArmorProfile is set")),
    C(T, "failure/missing AppArmor localhost profile", "securityContext: {appArmorProfile: {type: Localhost}}",
      (REQUIRED, "spec.securityContext.appArmorProfile.localhostProfile", "must be set when AppArmor type is Localhost")),
    C(T, "failure/empty AppArmor localhost profile", "securityContext: {appArmorProfile: {type: Localhost, localhostProfile: ''}}",
      (REQUIRED, "spec.securityContext.appArmorProfile.localhostProfile", "must be set when AppArmor type is Localhost")),
    C(T, "failure/invalid AppArmor localhost profile type",
      "securityContext: {appArmorProfile: {type: RuntimeDefault, localhostProfile: foo-bar}}",
      (INVALID, "spec.securityContext.appArmorProfile.localhostProfile", 'Invalid value: "foo-bar"')),
    C(T, "failure/invalid AppArmor localhost profile", "securityContext: {appArmorProfile: {type: Localhost, localhostProfile: 'foo-bar '}}",
      (INVALID, "spec.securityContext.appArmorProfile.localhostProfile", 'Invalid value: "foo-bar "')),
    C(T, "failure/too long AppArmor localhost profile",
      "securityContext: {appArmorProfile: {type: Localhost, localhostProfile: " + "a" * 4096 + "}}",
      (TOO_LONG, "spec.securityContext.appArmorProfile.localhostProfile", "may not be more than 4095 bytes")),
]


# --- TestValidateContainers: a container's own restartPolicy (ContainerRestartRules, on in 1.36) -----

T = "TestValidateContainers"
CONTAINERS = SPEC_FIELD  # upstream passes field.NewPath("containers"); written here from the pod spec
# upstream's errorCases run with the gate off (Forbidden for any value); it is on in 1.36, where
# validateContainerRestartPolicy accepts Always, OnFailure and Never and refuses anything else
RESTART_CASES = [
    C(T, "Forbidden RestartPolicy: Always (allowed with ContainerRestartRules)", "containers: [{name: foo, image: image, restartPolicy: Always}]"),
    C(T, "Forbidden RestartPolicy: OnFailure (allowed with ContainerRestartRules)",
      "containers: [{name: foo, image: image, restartPolicy: OnFailure}]"),
    C(T, "Forbidden RestartPolicy: Never (allowed with ContainerRestartRules)", "containers: [{name: foo, image: image, restartPolicy: Never}]"),
    C(T, "Forbidden RestartPolicy: invalid (NotSupported with ContainerRestartRules)",
      "containers: [{name: foo, image: image, restartPolicy: invalid}]",
      (UNSUPPORTED, "field.containers[0].restartPolicy", '"Always", "Never", "OnFailure"')),
    C(T, "Forbidden RestartPolicy: empty (NotSupported with ContainerRestartRules)",
      "containers: [{name: foo, image: image, restartPolicy: ''}]",
      (UNSUPPORTED, "field.containers[0].restartPolicy", "")),
]


# --- TestValidateTopologySpreadConstraints (gates as in 1.36: MatchLabelKeysInPodTopologySpread and its
# SelectorMerge on; the options for old objects off) ------------------------------------------------------

T = "TestValidateTopologySpreadConstraints"
# upstream passes the constraints list as `field`; written here as field.topologySpreadConstraints
SPREAD = SPEC_FIELD
_DO = "{maxSkew: 1, topologyKey: k8s.io/zone, whenUnsatisfiable: DoNotSchedule"
_FOO_TWICE = "labelSelector: {matchExpressions: [{key: foo, operator: NotIn, values: [value1]}, " \
             "{key: foo, operator: NotIn, values: [value2, value3]}]}"
SPREAD_CASES = [
    C(T, "all required fields ok", f"topologySpreadConstraints: [{_DO}, minDomains: 3}}]"),
    C(T, "missing MaxSkew", "topologySpreadConstraints: [{topologyKey: k8s.io/zone, whenUnsatisfiable: DoNotSchedule}]",
      (INVALID, "field.topologySpreadConstraints[0].maxSkew", "must be greater than zero")),
    C(T, "negative MaxSkew", "topologySpreadConstraints: [{maxSkew: -1, topologyKey: k8s.io/zone, whenUnsatisfiable: DoNotSchedule}]",
      (INVALID, "field.topologySpreadConstraints[0].maxSkew", "must be greater than zero")),
    C(T, "can use MinDomains with ScheduleAnyway, when MinDomains = nil",
      "topologySpreadConstraints: [{maxSkew: 1, topologyKey: k8s.io/zone, whenUnsatisfiable: ScheduleAnyway}]"),
    C(T, "negative minDomains is invalid", f"topologySpreadConstraints: [{_DO}, minDomains: -1}}]",
      (INVALID, "field.topologySpreadConstraints[0].minDomains", "must be greater than zero")),
    C(T, "cannot use non-nil MinDomains with ScheduleAnyway",
      "topologySpreadConstraints: [{maxSkew: 1, topologyKey: k8s.io/zone, whenUnsatisfiable: ScheduleAnyway, minDomains: 10}]",
      (INVALID, "field.topologySpreadConstraints[0].minDomains", "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway")),
    C(T, "use negative MinDomains with ScheduleAnyway(invalid)",
      "topologySpreadConstraints: [{maxSkew: 1, topologyKey: k8s.io/zone, whenUnsatisfiable: ScheduleAnyway, minDomains: -1}]",
      (INVALID, "field.topologySpreadConstraints[0].minDomains", "must be greater than zero"),
      (INVALID, "field.topologySpreadConstraints[0].minDomains", "can only use minDomains if whenUnsatisfiable=DoNotSchedule")),
    C(T, "missing TopologyKey", "topologySpreadConstraints: [{maxSkew: 1, whenUnsatisfiable: DoNotSchedule}]",
      (REQUIRED, "field.topologySpreadConstraints[0].topologyKey", "")),
    C(T, "missing scheduling mode", "topologySpreadConstraints: [{maxSkew: 1, topologyKey: k8s.io/zone}]",
      (UNSUPPORTED, "field.topologySpreadConstraints[0].whenUnsatisfiable", "")),
    C(T, "unsupported scheduling mode", "topologySpreadConstraints: [{maxSkew: 1, topologyKey: k8s.io/zone, whenUnsatisfiable: N/A}]",
      (UNSUPPORTED, "field.topologySpreadConstraints[0].whenUnsatisfiable", '"N/A"')),
    C(T, "multiple constraints ok with all required fields",
      f"topologySpreadConstraints: [{_DO}}}, {{maxSkew: 2, topologyKey: k8s.io/node, whenUnsatisfiable: ScheduleAnyway}}]"),
    C(T, "multiple constraints missing TopologyKey on partial ones",
      f"topologySpreadConstraints: [{{maxSkew: 1, whenUnsatisfiable: ScheduleAnyway}}, {{maxSkew: 2, topologyKey: k8s.io/zone, "
      "whenUnsatisfiable: DoNotSchedule}]", (REQUIRED, "field.topologySpreadConstraints[0].topologyKey", "")),
    C(T, "duplicate constraints",
      f"topologySpreadConstraints: [{_DO}}}, {{maxSkew: 2, topologyKey: k8s.io/zone, whenUnsatisfiable: DoNotSchedule}}]",
      (DUPLICATE, "field.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}", "")),
    C(T, "supported policy name set on NodeAffinityPolicy and NodeTaintsPolicy",
      f"topologySpreadConstraints: [{_DO}, nodeAffinityPolicy: Honor, nodeTaintsPolicy: Ignore}}]"),
    C(T, "unsupported policy name set on NodeAffinityPolicy",
      f"topologySpreadConstraints: [{_DO}, nodeAffinityPolicy: Unknown, nodeTaintsPolicy: Ignore}}]",
      (UNSUPPORTED, "field.topologySpreadConstraints[0].nodeAffinityPolicy", '"Unknown"')),
    C(T, "unsupported policy name set on NodeTaintsPolicy",
      f"topologySpreadConstraints: [{_DO}, nodeAffinityPolicy: Honor, nodeTaintsPolicy: Unknown}}]",
      (UNSUPPORTED, "field.topologySpreadConstraints[0].nodeTaintsPolicy", '"Unknown"')),
    C(T, "key in MatchLabelKeys isn't correctly defined",
      f"topologySpreadConstraints: [{_DO}, labelSelector: {{}}, matchLabelKeys: [/simple]}}]",
      (INVALID, "field.topologySpreadConstraints[0].matchLabelKeys[0]", "prefix part must be non-empty")),
    # upstream's detail is not compared (origin duplicatedLabelKeys); its path is the constraint indexed
    # by the key's place in matchLabelKeys, as for pod affinity terms
    C(T, "key exists in both MatchLabelKeys and LabelSelector",
      f"topologySpreadConstraints: [{_DO}, matchLabelKeys: [foo], {_FOO_TWICE}}}]",
      (INVALID, "field.topologySpreadConstraints[0][0]", "exists in both matchLabelKeys and labelSelector")),
    C(T, "key in MatchLabelKeys is forbidden to be specified when LabelSelector is not set",
      f"topologySpreadConstraints: [{_DO}, matchLabelKeys: [foo]}}]",
      (FORBIDDEN, "field.topologySpreadConstraints[0].matchLabelKeys", "")),
    C(T, "invalid MatchLabels set on LabelSelector when AllowInvalidTopologySpreadConstraintLabelSelector is false",
      f"topologySpreadConstraints: [{_DO}, labelSelector: {{matchLabels: {{NoUppercaseOrSpecialCharsLike=Equals: foo}}}}}}]",
      (INVALID, "field.topologySpreadConstraints[0].labelSelector.matchLabels", "")),
    C(T, "valid MatchLabels set on LabelSelector when AllowInvalidTopologySpreadConstraintLabelSelector is false",
      f"topologySpreadConstraints: [{_DO}, labelSelector: {{matchLabels: {{foo: foo}}}}}}]"),
    C(T, "invalid MatchLabelKeys when OldPodViolatesMatchLabelKeysValidation is false",
      f"topologySpreadConstraints: [{_DO}, matchLabelKeys: [foo], {_FOO_TWICE}}}]",
      (INVALID, "field.topologySpreadConstraints[0][0]", "exists in both matchLabelKeys and labelSelector")),
    C(T, "valid MatchLabelKeys when OldPodViolatesMatchLabelKeysValidation is false",
      f"topologySpreadConstraints: [{_DO}, matchLabelKeys: [foo], labelSelector: {{matchExpressions: "
      "[{key: foo, operator: NotIn, values: [value1]}]}}]"),
]


# --- TestValidateHostUsers (validateHostUsers) and TestValidatePodHostName (validatePodHostName) --------

T = "TestValidateHostUsers"
HOST_USERS = Place(POD_SPEC, root="spec")
_DEVICE = "[{name: test-container, image: image, volumeDevices: [{name: test-volume, devicePath: /dev/test-device}]}]"
_BLOCK = "volumes: [{name: test-volume, persistentVolumeClaim: {claimName: block}}]"
HOST_USERS_CASES = [
    C(T, "hostUsers unset", "securityContext: {}"),
    C(T, "hostUsers=false", "hostUsers: false"),
    C(T, "hostUsers=true", "hostUsers: true"),
    C(T, "hostUsers=false & volumes", """
hostUsers: false
volumes:
- {name: configmap, configMap: {name: configmap}}
- {name: secret, secret: {secretName: secret}}
- {name: downward-api, downwardAPI: {}}
- {name: proj, projected: {}}
- {name: empty-dir, emptyDir: {}}
"""),
    C(T, "hostUsers=false - stateful volume", "{hostUsers: false, volumes: [{name: host-path, hostPath: {path: /data}}]}"),
    C(T, "hostUsers=true - stateful volume", "{hostUsers: true, volumes: [{name: host-path, hostPath: {path: /data}}]}"),
    C(T, "hostUsers=false & HostNetwork", "{hostUsers: false, hostNetwork: true}",
      (FORBIDDEN, "spec.hostNetwork", "when `hostUsers` is false")),
    C(T, "hostUsers=false & HostPID", "{hostUsers: false, hostPID: true}", (FORBIDDEN, "spec.HostPID", "when `hostUsers` is false")),
    C(T, "hostUsers=false & HostIPC", "{hostUsers: false, hostIPC: true}", (FORBIDDEN, "spec.HostIPC", "when `hostUsers` is false")),
    C(T, "hostUsers=false & container volumeDevice", f"{{hostUsers: false, containers: {_DEVICE}, {_BLOCK}}}",
      (FORBIDDEN, "spec.containers[0].volumeDevices", "when `hostUsers` is false")),
    C(T, "hostUsers=false & initContainer volumeDevice", f"{{hostUsers: false, initContainers: {_DEVICE}, {_BLOCK}}}",
      (FORBIDDEN, "spec.initContainers[0].volumeDevices", "when `hostUsers` is false")),
]

T = "TestValidatePodHostName"
HOSTNAME_CASES = [
    C(T, "Set HostnameOverride, but empty string", "hostnameOverride: ''",
      (INVALID, "spec.hostnameOverride", "a lowercase RFC 1123 subdomain")),
    C(T, "Set HostnameOverride, less than 64 characters", "hostnameOverride: a"),
    C(T, "HostnameOverride is set should not error", "hostnameOverride: custom-host"),
    C(T, "Set HostnameOverride, equal 64 characters", "hostnameOverride: " + "a" * 64),
    C(T, "Set HostnameOverride, but longer than 64 characters", "hostnameOverride: " + "a" * 65,
      (TOO_LONG, "spec.hostnameOverride", "may not be more than 64 bytes")),
    C(T, "Set HostnameOverride, but not RFC 1123 DNS subdomain should error", "hostnameOverride: Not-RFC1123",
      (INVALID, "spec.hostnameOverride", "a lowercase RFC 1123 subdomain")),
    C(T, "SetHostnameAsFQDN=true and HostnameOverride is set should error", "{setHostnameAsFQDN: true, hostnameOverride: custom-host}",
      (FORBIDDEN, "spec.hostnameOverride", "setHostnameAsFQDN")),
    C(T, "SetHostnameAsFQDN=false and HostnameOverride is set should not error",
      "{setHostnameAsFQDN: false, hostnameOverride: custom-host}"),
    C(T, "HostNetwork=true and HostnameOverride is set should error", "{hostNetwork: true, hostnameOverride: custom-host}",
      (FORBIDDEN, "spec.hostnameOverride", "hostNetwork")),
    C(T, "HostNetwork=false and HostnameOverride is set should not error", "{hostNetwork: false, hostnameOverride: custom-host}"),
]


# --- TestValidateSecurityContext (a container's; the cluster allows privileged containers) and
# TestValidateLinuxSecurityContext ---------------------------------------------------------------------

T = "TestValidateSecurityContext"
# upstream passes the securityContext as `field`; written here from the pod spec
CONTAINER_SC = SPEC_FIELD
_FULL = "privileged: false, capabilities: {add: [foo], drop: [bar]}, " \
        "seLinuxOptions: {user: user, role: role, type: type, level: level}, runAsUser: 1"


def _sc(settings: str, host_users: bool = False) -> str:
    return f"{{hostUsers: {str(host_users).lower()}, containers: [{{name: ctr, image: image, securityContext: {{{settings}}}}}]}}"


CONTAINER_SC_CASES = [
    C(T, "success/all settings", _sc(_FULL)),
    C(T, "success/no capabilities", _sc(_FULL.replace("capabilities: {add: [foo], drop: [bar]}, ", ""))),
    C(T, "success/no selinux", _sc(_FULL.replace(", seLinuxOptions: {user: user, role: role, type: type, level: level}", ""))),
    C(T, "success/no priv request", _sc(_FULL.replace("privileged: false, ", ""))),
    C(T, "success/no run as user", _sc(_FULL.replace(", runAsUser: 1", ""))),
    C(T, "success/proc mount set", _sc(_FULL + ", procMount: Default", host_users=True)),
    C(T, "success/proc mount unmasked", _sc(_FULL + ", procMount: Unmasked")),
    C(T, "failure/negative RunAsUser", _sc(_FULL.replace("runAsUser: 1", "runAsUser: -1"), host_users=True),
      (INVALID, "field.containers[0].securityContext.runAsUser", "must be between")),
    C(T, "failure/with CAP_SYS_ADMIN and allowPrivilegeEscalation false",
      _sc(_FULL.replace("add: [foo]", "add: [CAP_SYS_ADMIN]") + ", allowPrivilegeEscalation: false", host_users=True),
      (INVALID, "field.containers[0].securityContext", "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN")),
    C(T, "failure/with privileged and allowPrivilegeEscalation false",
      _sc(_FULL.replace("privileged: false", "privileged: true") + ", allowPrivilegeEscalation: false", host_users=True),
      (INVALID, "field.containers[0].securityContext", "cannot set `allowPrivilegeEscalation` to false and `privileged` to true")),
    C(T, "failure/with unmasked proc mount type and no user namespace", _sc(_FULL + ", procMount: Unmasked", host_users=True),
      (INVALID, "field.containers[0].securityContext.procMount", "`hostUsers` must be false to use `Unmasked`")),
]

T = "TestValidateLinuxSecurityContext"
LINUX_CASES = [
    C(T, "valid SC, linux, no error", "{os: {name: linux}, containers: [{name: ctr, image: image, securityContext: {" + _FULL + "}}]}"),
    C(T, "invalid SC, linux, error", "{os: {name: linux}, containers: [{name: ctr, image: image, securityContext: "
                                     "{windowsOptions: {runAsUserName: myUser}}}]}",
      (FORBIDDEN, "field.containers[0].securityContext.windowsOptions", "windows options cannot be set for a linux pod")),
]


# --- TestValidateResourceRequirements: its validatePodResourceRequirements rows (pod-level resources;
# the container rows are the container-level tables'). Upstream passes `resources`; written from the pod spec.

T = "TestValidateResourceRequirements"
_H = "hugepages-2Mi"
POD_RESOURCES_CASES = [
    C(T, "pod resource hugepages with cpu or memory", f"resources: {{limits: {{{_H}: 2Mi}}, requests: {{memory: 2Mi, {_H}: 2Mi}}}}"),
    C(T, "pod resource hugepages limit without request", f"resources: {{limits: {{memory: 2Mi, {_H}: 2Mi}}}}"),
    C(T, "limits and requests of memory resource are equal (pod)", "resources: {limits: {memory: 2Mi}, requests: {memory: 2Mi}}"),
    C(T, "limits and requests of cpu resource are equal (pod)", "resources: {limits: {cpu: '10'}, requests: {cpu: '10'}}"),
    C(T, "pod resource hugepages without cpu or memory", f"resources: {{limits: {{{_H}: 2Mi}}, requests: {{{_H}: 2Mi}}}}",
      (FORBIDDEN, "field.resources", "HugePages require cpu or memory")),
    C(T, "pod resource hugepages request without limit", f"resources: {{requests: {{memory: 2Mi, {_H}: 2Mi}}}}",
      (REQUIRED, "field.resources.limits", "Limit must be set for non overcommitable resources")),
    C(T, "pod resource with ephemeral-storage", "resources: {limits: {ephemeral-storage: 2Mi}, requests: {ephemeral-storage2Mi: 2Mi}}",
      (UNSUPPORTED, "field.resources.limits[ephemeral-storage]", 'supported values: "cpu", "hugepages-", "memory"'),
      (INVALID, "field.resources.requests[ephemeral-storage2Mi]", "must be a standard resource type or fully qualified")),
    C(T, "pod resource with unsupported prefixed resources", "resources: {limits: {kubernetesio/cpu: '2'}, requests: {kubernetesio/memory: '2'}}",
      (UNSUPPORTED, "field.resources.limits[kubernetesio/cpu]", 'supported values: "cpu", "hugepages-", "memory"'),
      (UNSUPPORTED, "field.resources.requests[kubernetesio/memory]", 'supported values: "cpu", "hugepages-", "memory"'),
      # an extended resource's request needs its limit (the checks after the name's)
      (REQUIRED, "field.resources.limits", "Limit must be set for non overcommitable resources")),
    C(T, "pod resource with unsupported native resources",
      "resources: {limits: {kubernetes.io/" + "a" * 63 + ": '2'}, requests: {kubernetes.io/" + "a" * 63 + ": '2'}}",
      (UNSUPPORTED, "field.resources.limits[kubernetes.io/" + "a" * 63 + "]", ""),
      (UNSUPPORTED, "field.resources.requests[kubernetes.io/" + "a" * 63 + "]", "")),
    C(T, "pod resource with unsupported empty native resource name",
      "resources: {limits: {kubernetes.io/: '2'}, requests: {kubernetes.io: '2'}}",
      (INVALID, "field.resources.limits[kubernetes.io/]", "name part must be non-empty"),
      (INVALID, "field.resources.requests[kubernetes.io]", "must be a standard resource type or fully qualified")),
]


# --- TestValidateWindowsSecurityContextOptions (upstream's root is the windowsOptions; written here as a
# container's), TestValidateWindowsHostProcessPod, TestValidateSysctls ---------------------------------------

T = "TestValidateWindowsSecurityContextOptions"
_WO = "field.containers[0].securityContext.windowsOptions"


def _wo(options: str) -> str:
    return f"containers: [{{name: ctr, image: image, securityContext: {{windowsOptions: {options}}}}}]"


def _user(name: str) -> str:
    return _wo("{runAsUserName: " + __import__("json").dumps(name) + "}")


WINDOWS_OPTIONS_CASES = [
    C(T, "an empty struct", _wo("{}")),
    C(T, "a valid input", _wo("{gmsaCredentialSpecName: dummy-gmsa-crep-spec-name, gmsaCredentialSpec: dummy-gmsa-crep-spec-contents}")),
    C(T, "a GMSA cred spec name that is not a valid resource name", _wo("{gmsaCredentialSpecName: not_a-valid-gmsa-crep-spec-name}"),
      (INVALID, f"{_WO}.gmsaCredentialSpecName", "a lowercase RFC 1123 subdomain")),
    C(T, "empty GMSA cred spec contents", _wo("{gmsaCredentialSpec: ''}"),
      (INVALID, f"{_WO}.gmsaCredentialSpec", "gmsaCredentialSpec cannot be an empty string")),
    C(T, "GMSA cred spec contents that are too long", _wo("{gmsaCredentialSpec: " + "a" * (64 * 1024 + 1) + "}"),
      (INVALID, f"{_WO}.gmsaCredentialSpec", "gmsaCredentialSpec size must be under 64 KiB")),
    C(T, "a valid RunAsUserName", _user("Container. User")),
    C(T, "a valid RunAsUserName with NetBios Domain", _user("Network Service\\Container. User")),
    C(T, "a valid RunAsUserName with DNS Domain", _user("fOo" * 20 + ".liSH\\Container. User")),
    C(T, "a valid RunAsUserName with DNS Domain with a single character segment", _user("fOo" * 20 + ".l\\Container. User")),
    C(T, "a valid RunAsUserName with a long single segment DNS Domain", _user("a" * 42 + "\\Container. User")),
    C(T, "an empty RunAsUserName", _user(""), (INVALID, f"{_WO}.runAsUserName", "runAsUserName cannot be an empty string")),
    C(T, "RunAsUserName containing a control character", _user("Container\tUser"),
      (INVALID, f"{_WO}.runAsUserName", "runAsUserName cannot contain control characters")),
    C(T, "RunAsUserName containing too many backslashes", _user("Container\\Foo\\Lish"),
      (INVALID, f"{_WO}.runAsUserName", "runAsUserName cannot contain more than one backslash")),
    C(T, "RunAsUserName containing backslash but empty Domain", _user("\\User"),
      (INVALID, f"{_WO}.runAsUserName", "runAsUserName's Domain doesn't match the NetBios nor the DNS format")),
    C(T, "RunAsUserName containing backslash but empty User", _user("Container\\"),
      (INVALID, f"{_WO}.runAsUserName", "runAsUserName's User cannot be empty")),
    C(T, "RunAsUserName's NetBios Domain is too long", _user("NetBios " + "a" * 8 + "\\user"),
      (INVALID, f"{_WO}.runAsUserName", "runAsUserName's Domain doesn't match the NetBios")),
    C(T, "RunAsUserName's DNS Domain is too long", _user(((("a" * 63) + ".") * 4)[:253] + ".com\\user"),
      (INVALID, f"{_WO}.runAsUserName", "runAsUserName's Domain length must be under 256 characters")),
    C(T, "RunAsUserName's User is too long", _user("a" * 105),
      (INVALID, f"{_WO}.runAsUserName", "runAsUserName's User length must not be longer than 104 characters")),
    C(T, "RunAsUserName's User cannot contain only spaces or periods", _user("... ..."),
      (INVALID, f"{_WO}.runAsUserName", "runAsUserName's User cannot contain only periods or spaces")),
    C(T, "RunAsUserName's NetBios Domain cannot start with a dot", _user(".FooLish\\User"),
      (INVALID, f"{_WO}.runAsUserName", "runAsUserName's Domain doesn't match the NetBios")),
    C(T, "RunAsUserName's NetBios Domain cannot contain invalid characters", _user("Foo? Lish?\\User"),
      (INVALID, f"{_WO}.runAsUserName", "runAsUserName's Domain doesn't match the NetBios")),
    C(T, "RunAsUserName's DNS Domain cannot contain invalid characters", _user("a" * 32 + ".com-\\user"),
      (INVALID, f"{_WO}.runAsUserName", "runAsUserName's Domain doesn't match the NetBios nor the DNS format")),
    C(T, "RunAsUserName's User cannot contain invalid characters", _user("Container/User"),
      (INVALID, f"{_WO}.runAsUserName", "runAsUserName's User cannot contain the following characters")),
]

T = "TestValidateWindowsHostProcessPod"
_HP = "securityContext: {windowsOptions: {hostProcess: %s}}"
_CTR = "{name: container, image: image, " + _HP + "}"
# upstream names its init container `container` too (only this check runs there); a pod needs unique names
_INIT = _CTR.replace("name: container", "name: init-container")
HOST_PROCESS_CASES = [
    C(T, "Spec with feature enabled, pod-wide HostProcess=true, and HostNetwork unset should not validate",
      "{" + _HP % "true" + ", containers: [{name: container, image: image}]}",
      (INVALID, "field.hostNetwork", "hostNetwork must be true if pod contains any hostProcess containers")),
    C(T, "Spec with feature enabled, pod-wide HostProcess=ture, and HostNetwork set should validate",
      "{hostNetwork: true, " + _HP % "true" + ", containers: [{name: container, image: image}]}"),
    C(T, "Spec with feature enabled, pod-wide HostProcess=ture, HostNetwork set, and containers setting HostProcess=true should validate",
      "{hostNetwork: true, " + _HP % "true" + f", containers: [{_CTR % 'true'}], initContainers: [{_INIT % 'true'}]}}"),
    C(T, "Spec with feature enabled, pod-wide HostProcess=nil, HostNetwork set, and all containers setting HostProcess=true should validate",
      f"{{hostNetwork: true, containers: [{_CTR % 'true'}], initContainers: [{_INIT % 'true'}]}}"),
    C(T, "Pods with feature enabled, some containers setting HostProcess=true, and others setting HostProcess=false should not validate",
      f"{{hostNetwork: true, containers: [{_CTR % 'true'}], initContainers: [{_INIT % 'false'}]}}",
      (INVALID, "field", "If pod contains any hostProcess containers then all containers must be HostProcess containers")),
    C(T, "Spec with feature enabled, some containers setting HostProcess=true, and other leaving HostProcess unset should not validate",
      f"{{hostNetwork: true, containers: [{_CTR % 'true'}], initContainers: [{{name: init-container, image: image}}]}}",
      (INVALID, "field", "If pod contains any hostProcess containers then all containers must be HostProcess containers")),
    C(T, "Spec with feature enabled, pod-wide HostProcess=true, some containers setting HostProcess=true, and init containers "
         "setting HostProcess=false should not validate",
      "{hostNetwork: true, " + _HP % "true" + f", containers: [{_CTR % 'true'}], initContainers: [{_INIT % 'false'}]}}",
      (INVALID, "field.initContainers[0].securityContext.windowsOptions.hostProcess",
       "pod hostProcess value must be identical if both are specified, was true"),
      (INVALID, "field", "If pod contains any hostProcess containers then all containers must be HostProcess containers")),
]

T = "TestValidateSysctls"
_SYSCTL = "field.securityContext.sysctls[%d].name"


def _sysctls(*sysctl_names, **pod):
    listed = ", ".join(f"{{name: {n}, value: '1'}}" for n in sysctl_names)
    extra = "".join(f", {k}: {str(v).lower()}" for k, v in pod.items())
    return f"{{securityContext: {{sysctls: [{listed}]}}{extra}}}"


SYSCTL_CASES = [
    C(T, "valid", _sysctls("net.foo.bar", "kernel.shmmax", "net.ipv4.conf.enp3s0/200.forwarding", "net/ipv4/conf/enp3s0.200/forwarding")),
    C(T, "invalid", _sysctls("i..nvalid", "_invalid"), (INVALID, _SYSCTL % 0, ""), (INVALID, _SYSCTL % 1, "")),
    C(T, "duplicates", _sysctls("kernel.shmmax", "kernel.shmmax"), (DUPLICATE, _SYSCTL % 1, "")),
    C(T, "invalidWithHostNet", _sysctls("net.ipv4.conf.enp3s0/200.forwarding", "net/ipv4/conf/enp3s0.200/forwarding", hostNetwork=True),
      (INVALID, _SYSCTL % 0, "may not be specified when 'hostNetwork' is true"),
      (INVALID, _SYSCTL % 1, "may not be specified when 'hostNetwork' is true")),
    C(T, "invalidWithHostIPC", _sysctls("kernel.shmmax", "kernel.msgmax", hostIPC=True),
      (INVALID, _SYSCTL % 0, "may not be specified when 'hostIPC' is true"),
      (INVALID, _SYSCTL % 1, "may not be specified when 'hostIPC' is true")),
]


# --- the tests -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("case,where", params(POD_SPEC_CASES + DNS_CASES + READINESS_CASES, SPEC_FIELD)
                         + params(AFFINITY_CASES + TOLERATION_CASES + SECURITY_CASES, POD)
                         + params(ANNOTATION_CASES, POD_META) + params(RESTART_CASES, CONTAINERS)
                         + params(SPREAD_CASES, SPREAD) + params(HOST_USERS_CASES + HOSTNAME_CASES, HOST_USERS)
                         + params(CONTAINER_SC_CASES, CONTAINER_SC) + params(LINUX_CASES, SPEC_FIELD)
                         + params(POD_RESOURCES_CASES, SPEC_FIELD)
                         + params(WINDOWS_OPTIONS_CASES + HOST_PROCESS_CASES + SYSCTL_CASES, SPEC_FIELD))
def test_upstream_case(case, where):
    check(case, where)


@pytest.mark.parametrize("case,annotations", MIXED_CASES, ids=[c.id for c, _ in MIXED_CASES])
def test_upstream_case_with_annotations(case, annotations):
    """TestValidatePod cases that set both the Pod's annotations and its spec."""
    import yaml

    spec = yaml.safe_load(case.yaml)
    spec.setdefault("containers", [{"name": "ctr", "image": "image"}])
    where = Place(POD_SPEC, root="spec", pod=spec)
    meta = Place(POD_METADATA, root="metadata", pod=spec)
    from upstream.kubernetes import harness

    got = harness.run(Case(case.test, case.name, f"annotations: {annotations}"), meta)
    if not case.errors:
        assert got == [], got
        return
    want = [(t, (meta if f.startswith("metadata") else where).ours(f), d) for t, f, d in case.errors]
    assert all(any(harness.matches(g, w) for g in got) for w in want), (want, got)
    assert all(g.path in {w[1] for w in want} for g in got), got


# What these upstream tables check that a Job's pod template never meets here, with the reason.
NOT_PORTED = {
    "TestValidatePodSpec/failure/bad volume": "volumes family (k8s/volumes); a volume without a source is an emptyDir "
                                              "after v1 defaulting, so only its empty name remains",
    "TestValidatePodSpec/failure/with hostNetwork hostPort unspecified": "Pod only (opts.ResourceIsPod): in a template "
        "hostPort 0 is allowed and defaulted to containerPort when the Pod is created (validatePodHostNetworkDeps)",
    "TestValidatePodSpec/legacyValidationCases": "StrictIPCIDRValidation off: a test-only gate setting",
    "TestValidatePodDNSConfig/valid legacy IP nameserver with legacy IP validation": "StrictIPCIDRValidation off: a "
                                                                                   "test-only gate setting",
    "TestValidatePod/failure/bad name": "the Pod's own metadata.name: the Job controller names Pods",
    "TestValidatePod/failure/bad namespace": "the Pod's own namespace: the Job's namespace is the JobSet's",
    "TestValidatePod/failure/image whitespace": "Pod only (validateContainerOnlyForPod); a template keeps it",
    "TestValidatePod/failure/image leading and trailing whitespace": "Pod only (validateContainerOnlyForPod)",
    "TestValidatePod/failure/bad label": "label syntax is the names family (kpt_fn/validation/names.py)",
    "TestValidatePod/failure/must be a non-empty container name in seccomp annotation": "annotation key syntax is the "
                                                                                         "names family",
    "TestValidatePod/extended resources, projected volumes, ClusterTrustBundle, PodCertificate": "container-level "
        "families (k8s/resources, k8s/volumes), not this file's",
    "TestValidatePod/StopSignal": "lifecycle is the container-level probes family",
    "TestValidateTopologySpreadConstraints/... SelectorMerge is false, ... AllowMatchLabelKeysInPodTopologySpread is "
    "false, ... OldPodViolates...Validation is true, ... AllowInvalidTopologySpreadConstraintLabelSelector is true":
        "gate settings other than 1.36's, or options only an update of an existing Pod sets",
    "TestValidateHostUsers/empty, opts: Allow... (3 cases), ephemeralContainer volumeDevice": "no pod spec at all; an "
        "option only an update of an existing Pod sets; ephemeral containers are refused in a template anyway",
    "TestValidateWindowsSecurityContextOptions/a nil pointer, RunAsUserName is nil": "nothing written",
    "TestValidateWindowsHostProcessPod/(the cases after the seventh)": "not read from the snapshot",
    "TestValidateSysctls/... AllowNamespacedSysctlsForHostNetAndHostIPC true": "an option only an update of an existing "
                                                                               "Pod sets",
    "TestValidateSecurityContext/request privileged when capabilities forbids": "cluster policy (the API server's "
        "--allow-privileged); the default allows privileged containers",
    "TestValidateContainers/Forbidden RestartPolicy (gate off)": "ContainerRestartRules is beta and on since 1.35; "
        "ported with the gate on instead (RESTART_CASES)",
}


def test_not_ported_cases_say_why():
    assert all(reason.strip() for reason in NOT_PORTED.values())
