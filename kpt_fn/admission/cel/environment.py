"""The CEL environment the API server compiles admission expressions in, for the 1.36 compatibility
version (k8s.io/apiserver@v0.36.3 pkg/cel/environment/base.go baseOpts, each library with the version
it came in): the standard library and optional types (1.28), cross-type numeric comparisons (1.28),
homogeneous aggregate literals, Kubernetes' urls, regex and lists (1.0), authz (1.27) and its
selectors (1.31, behind the AuthorizeWithSelectors gate, on by default since 1.34), quantity (1.28),
ext.Strings v2 and ext.Sets (1.29), ip and cidr (1.30), format (1.31), two-variable comprehensions
(1.32), semver v1 (1.33), ext.Lists v3 (1.34). Neither cel-go's math nor its encoders (base64) are
among them at 1.36: an expression calling `math.greatest` or `base64.encode` does not compile in the
API server, and does not compile here ("undeclared reference").
"""

from __future__ import annotations

import functools

from kpt_fn.admission.cel import runtime, stdlib
from kpt_fn.admission.cel.stdlib import Function


def _object(**fields) -> dict:
    return fields


_GVK = _object(group="string", version="string", kind="string")
_GVR = _object(group="string", version="string", resource="string")

# The object types the admission environment declares (pkg/admission/plugin/cel/compile.go
# BuildRequestType, BuildNamespaceType), field -> type text.
OBJECT_TYPES: dict[str, dict] = {
    "kubernetes.AdmissionRequest": _object(
        kind="kubernetes.GroupVersionKind", resource="kubernetes.GroupVersionResource",
        subResource="string", requestKind="kubernetes.GroupVersionKind",
        requestResource="kubernetes.GroupVersionResource", requestSubResource="string",
        name="string", namespace="string", operation="string", userInfo="kubernetes.UserInfo",
        dryRun="bool", options="dyn"),
    "kubernetes.GroupVersionKind": _GVK,
    "kubernetes.GroupVersionResource": _GVR,
    "kubernetes.UserInfo": _object(username="string", uid="string", groups="list(string)",
                                   extra="map(string, list(string))"),
    "kubernetes.Namespace": _object(metadata="kubernetes.NamespaceMetadata", spec="kubernetes.NamespaceSpec",
                                    status="kubernetes.NamespaceStatus"),
    "kubernetes.NamespaceMetadata": _object(
        name="string", generateName="string", namespace="string", labels="map(string, string)",
        annotations="map(string, string)", UID="string", creationTimestamp="google.protobuf.Timestamp",
        deletionGracePeriodSeconds="int", deletionTimestamp="google.protobuf.Timestamp", generation="int",
        resourceVersion="string", finalizers="list(string)"),
    "kubernetes.NamespaceSpec": _object(finalizers="list(string)"),
    "kubernetes.NamespaceStatus": _object(conditions="list(kubernetes.NamespaceCondition)", phase="string"),
    "kubernetes.NamespaceCondition": _object(status="string", type="string",
                                             lastTransitionTime="google.protobuf.Timestamp",
                                             message="string", reason="string"),
}


def object_types() -> dict:
    return OBJECT_TYPES


def _libraries():
    from kpt_fn.admission.cel.library import (authz, formats, lists, net, quantity, regex, semver, sets, strings,
                                              timestamps, urls)

    return (stdlib.FUNCTIONS, timestamps.FUNCTIONS, regex.FUNCTIONS, urls.FUNCTIONS, lists.FUNCTIONS,
            authz.FUNCTIONS, quantity.FUNCTIONS, strings.FUNCTIONS, sets.FUNCTIONS, net.FUNCTIONS,
            formats.FUNCTIONS, semver.FUNCTIONS)


def _kind(v) -> str:
    name = runtime.type_name(v)
    return "list" if name == "list" else name


def _receiver_kind(signature: str) -> str:
    from kpt_fn.admission.cel.checker import parse_signature

    receiver, params, _ = parse_signature(signature)
    first = receiver if receiver is not None else (params[0] if params else None)
    if first is None:
        return ""
    return first[1] if first[0] == "obj" else first[0]


def _merge(first: Function, second: Function) -> Function:
    """One function of two libraries' overloads (`indexOf` of strings and of lists), each called for
    the receivers its signatures name."""
    table = {}
    for fn in (first, second):
        for signature in fn.signatures:
            table.setdefault(_receiver_kind(signature), fn)

    def pick(values):
        fn = table.get(_kind(values[0])) if values else None
        if fn is None:
            raise runtime.no_overload(first.name)
        return fn

    def impl(*values):
        return pick(values).impl(*values)

    def cost(values, result):
        fn = pick(values)
        return 1 if fn.cost is None else fn.cost(values, result)

    return Function(first.name, first.signatures + second.signatures, impl, cost)


@functools.lru_cache(maxsize=1)
def functions() -> dict:
    """Every function of the environment by name (built once per process)."""
    table: dict = {}
    for library in _libraries():
        for fn in library:
            table[fn.name] = _merge(table[fn.name], fn) if fn.name in table else fn
    return table


def validate_literals(tree, positions) -> list:
    """The API server's AST validators (base.go, 1.29: cel.ValidateDurationLiterals,
    ValidateTimestampLiterals, ValidateRegexLiterals): a literal argument of duration(), timestamp(),
    matches(), find() and findAll() that could never evaluate is a compile error,
    "invalid <function> argument" (cel-go v0.26.0 cel/validator.go)."""
    from kpt_fn.admission.cel.library import regex, timestamps

    checks = {"matches": (1, regex.regex_error), "find": (1, regex.regex_error), "findAll": (1, regex.regex_error),
              "duration": (0, timestamps.duration_error), "timestamp": (0, timestamps.timestamp_error)}
    errors = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if not isinstance(node, tuple) or not node:
            continue
        if node[0] == "call" and node[1] in checks:
            index, check = checks[node[1]]
            args = ([node[2]] if node[2] is not None else []) + list(node[3])
            if index < len(args) and args[index][0] == "lit" and type(args[index][1]) is str:
                if node[1] != "duration" and node[1] != "timestamp" or len(args) == 1:
                    if check(args[index][1]):
                        errors.append((positions.get(id(args[index]), 0), f"invalid {node[1]} argument"))
        for child in node[1:]:
            if isinstance(child, tuple):
                stack.append(child)
            elif isinstance(child, list):
                for item in child:
                    if isinstance(item, tuple):
                        stack.append(item)
    return errors
