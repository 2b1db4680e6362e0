"""k8s.io/apiserver@v0.36.3 pkg/cel/library/library_compatibility_test.go ported: every function the
Kubernetes CEL libraries declare (TestLibraryCompatibility's knownFunctions) is in the environment
kpt_fn.admission.cel evaluates admission expressions in."""

from __future__ import annotations

import pytest

from kpt_fn.admission.cel import environment

KNOWN_FUNCTIONS = [
    "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "find", "findAll", "url", "getScheme", "getHost",
    "getHostname", "getPort", "getEscapedPath", "getQuery", "isURL",
    "path", "group", "serviceAccount", "resource", "subresource", "namespace", "name", "check", "allowed", "reason",
    "errored", "error",
    "add", "asApproximateFloat", "asInteger", "compareTo", "isGreaterThan", "isInteger", "isLessThan", "isQuantity",
    "quantity", "sign", "sub",
    "ip", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast",
    "ip.isCanonical", "isIP", "cidr", "containsIP", "containsCIDR", "masked", "prefixLength", "isCIDR", "string",
    "fieldSelector", "labelSelector", "validate", "format.named", "isSemver", "major", "minor", "patch", "semver",
    "jsonpatch.escapeKey",
]

# function -> why it is not in the environment here
NOT_PORTED = {
    "jsonpatch.escapeKey": "library.JSONPatch is in the environment of mutating policies only (compile.go adds "
                           "it with HasPatchTypes); validating policies cannot call it",
}
# TestTypeRegistration is not ported: it checks that the Go libraries register the types their
# declarations use (a property of the Go declarations, not of what an expression evaluates to).


@pytest.mark.parametrize("name", [n for n in KNOWN_FUNCTIONS if n not in NOT_PORTED])
def test_known_function_is_declared(name):
    assert name in environment.functions()


def test_not_ported_are_absent():
    assert not set(NOT_PORTED) & set(environment.functions())
