"""k8s.io/apiserver@v0.36.3 pkg/cel/library/cost_test.go ported as data: the runtime cost of each
expression, as cel-go's cost tracker with the Kubernetes CostEstimator counts it (testCost's
expectRuntimeCost). The estimated costs of the same tables (expectEsimatedCost, the checker's static
estimate) are not compared: no static estimate is made here, the runtime cost is counted and limited.

CASES is (test, name, expression, runtime cost); the tables the Go tests expand in loops (lists,
indexOf, urls, ip, cidr) are expanded below the same way.
"""

from __future__ import annotations

import pytest

from upstream.apiserver.harness import runtime_cost

CASES = [('TestStringLibrary', 'lowerAscii', "'ABCDEFGHIJ abcdefghij'.lowerAscii()", 3),
 ('TestStringLibrary',
  'lowerAsciiEquals',
  "'ABCDEFGHIJ abcdefghij'.lowerAscii() == 'abcdefghij ABCDEFGHIJ'.lowerAscii()",
  9),
 ('TestStringLibrary', 'upperAscii', "'ABCDEFGHIJ abcdefghij'.upperAscii()", 3),
 ('TestStringLibrary',
  'upperAsciiEquals',
  "'ABCDEFGHIJ abcdefghij'.upperAscii() == 'abcdefghij ABCDEFGHIJ'.upperAscii()",
  9),
 ('TestStringLibrary', 'quote', "strings.quote('ABCDEFGHIJ abcdefghij')", 3),
 ('TestStringLibrary',
  'quoteEquals',
  "strings.quote('ABCDEFGHIJ abcdefghij') == strings.quote('ABCDEFGHIJ abcdefghij')",
  9),
 ('TestStringLibrary', 'replace', "'abc 123 def 123'.replace('123', '456')", 3),
 ('TestStringLibrary', 'replace between all chars', "'abc 123 def 123'.replace('', 'x')", 3),
 ('TestStringLibrary', 'replace with empty', "'abc 123 def 123'.replace('123', '')", 3),
 ('TestStringLibrary', 'replace with limit', "'abc 123 def 123'.replace('123', '456', 1)", 3),
 ('TestStringLibrary', 'split', "'abc 123 def 123'.split(' ')", 3),
 ('TestStringLibrary', 'split with limit', "'abc 123 def 123'.split(' ', 1)", 3),
 ('TestStringLibrary', 'substring', "'abc 123 def 123'.substring(5)", 2),
 ('TestStringLibrary', 'substring with end', "'abc 123 def 123'.substring(5, 8)", 2),
 ('TestStringLibrary', 'trim', "'  abc 123 def 123  '.trim()", 2),
 ('TestStringLibrary',
  'join with separator',
  "['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(' ')",
  15),
 ('TestStringLibrary', 'join', "['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join()", 13),
 ('TestStringLibrary', 'find', "'abc 123 def 123'.find('123')", 2),
 ('TestStringLibrary', 'findAll', "'abc 123 def 123'.findAll('123')", 2),
 ('TestStringLibrary', 'findAll with limit', "'abc 123 def 123'.findAll('123', 1)", 2),
 ('TestStringLibrary', 'jsonpatch.escapeKey', "jsonpatch.escapeKey('abc/def~ abc/def~')", 2),
 ('TestAuthzLibrary', 'path', "authorizer.path('/healthz')", 2),
 ('TestAuthzLibrary',
  'resource',
  "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend')",
  6),
 ('TestAuthzLibrary',
  'fieldSelector',
  "authorizer.group('').resource('pods').fieldSelector('spec.nodeName=example-node-name.fully.qualified.domain.name.example.com')",
  1821),
 ('TestAuthzLibrary',
  'labelSelector',
  "authorizer.group('').resource('pods').labelSelector('spec.nodeName=example-node-name.fully.qualified.domain.name.example.com')",
  1821),
 ('TestAuthzLibrary', 'path check allowed', "authorizer.path('/healthz').check('get').allowed()", 350003),
 ('TestAuthzLibrary',
  'resource check allowed',
  "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').allowed()",
  350007),
 ('TestAuthzLibrary',
  'resource check reason',
  "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').allowed()",
  350007),
 ('TestAuthzLibrary',
  'resource check errored',
  "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').errored()",
  350007),
 ('TestAuthzLibrary',
  'resource check error',
  "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend').check('create').error()",
  350007),
 ('TestQuantityCost', 'path', 'quantity("12Mi")', 1),
 ('TestQuantityCost', 'isQuantity', 'isQuantity("20")', 1),
 ('TestQuantityCost', 'isQuantity_megabytes', 'isQuantity("20M")', 1),
 ('TestQuantityCost', 'equality_reflexivity', 'quantity("200M") == quantity("200M")', 3),
 ('TestQuantityCost',
  'equality_symmetry',
  'quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")',
  6),
 ('TestQuantityCost',
  'equality_transitivity',
  'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == '
  'quantity("2000k")',
  9),
 ('TestQuantityCost', 'quantity_less', 'quantity("50M").isLessThan(quantity("50Mi"))', 3),
 ('TestQuantityCost', 'quantity_greater', 'quantity("50Mi").isGreaterThan(quantity("50M"))', 3),
 ('TestQuantityCost', 'compare_equal', 'quantity("200M").compareTo(quantity("0.2G")) > 0', 4),
 ('TestQuantityCost', 'add_quantity', 'quantity("50k").add(quantity("20")) == quantity("50.02k")', 5),
 ('TestQuantityCost', 'sub_quantity', 'quantity("50k").sub(quantity("20")) == quantity("49.98k")', 5),
 ('TestQuantityCost', 'sub_int', 'quantity("50k").sub(20) == quantity("49980")', 4),
 ('TestQuantityCost', 'arith_chain_1', 'quantity("50k").add(20).sub(quantity("100k")).asInteger() > 0', 6),
 ('TestQuantityCost',
  'arith_chain',
  'quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() > 0',
  7),
 ('TestQuantityCost', 'as_integer', 'quantity("50k").asInteger() > 0', 3),
 ('TestQuantityCost', 'is_integer', 'quantity("50").isInteger()', 2),
 ('TestQuantityCost', 'as_float', 'quantity("50.703k").asApproximateFloat() > 0.0', 3),
 ('TestNameFormatCost', 'format.named', 'format.named("dns1123subdomain")', 1),
 ('TestNameFormatCost',
  'format.dns1123label.validate',
  'format.named("dns1123Label").value().validate("my-name")',
  10),
 ('TestNameFormatCost',
  'format.dns1123label.validate',
  'format.named("dns1123Label").value().validate("my-name")',
  10),
 ('TestNameFormatCost',
  'format.dns1123label.validate',
  'format.named("dns1123Label").value() == format.named("dns1123Label").value()',
  5),
 ('TestSetsCost', 'sets', 'sets.contains([], [])', 21),
 ('TestSetsCost', 'sets.contains([1], [])', 'sets.contains([1], [])', 21),
 ('TestSetsCost', 'sets.contains([1], [1])', 'sets.contains([1], [1])', 22),
 ('TestSetsCost', 'sets.contains([1], [1, 1])', 'sets.contains([1], [1, 1])', 23),
 ('TestSetsCost', 'sets.contains([1, 1], [1])', 'sets.contains([1, 1], [1])', 23),
 ('TestSetsCost', 'sets.contains([2, 1], [1])', 'sets.contains([2, 1], [1])', 23),
 ('TestSetsCost', 'sets.contains([1, 2, 3, 4], [2, 3])', 'sets.contains([1, 2, 3, 4], [2, 3])', 29),
 ('TestSetsCost', 'sets.contains([1], [1.0, 1])', 'sets.contains([1], [1.0, 1])', 23),
 ('TestSetsCost', 'sets.contains([1, 2], [2u, 2.0])', 'sets.contains([1, 2], [2u, 2.0])', 25),
 ('TestSetsCost', 'sets.contains([1, 2u], [2, 2.0])', 'sets.contains([1, 2u], [2, 2.0])', 25),
 ('TestSetsCost', 'sets.contains([1, 2.0, 3u], [1.0, 2u, 3])', 'sets.contains([1, 2.0, 3u], [1.0, 2u, 3])', 30),
 ('TestSetsCost', '!sets.contains([1], [2])', '!sets.contains([1], [2])', 23),
 ('TestSetsCost', '!sets.contains([1], [1, 2])', '!sets.contains([1], [1, 2])', 24),
 ('TestSetsCost', '!sets.contains([1], ["1", 1])', '!sets.contains([1], ["1", 1])', 24),
 ('TestSetsCost', '!sets.contains([1], [1.1, 1u])', '!sets.contains([1], [1.1, 1u])', 24),
 ('TestSetsCost', 'sets.equivalent([], [])', 'sets.equivalent([], [])', 21),
 ('TestSetsCost', 'sets.equivalent([1], [1])', 'sets.equivalent([1], [1])', 23),
 ('TestSetsCost', 'sets.equivalent([1], [1, 1])', 'sets.equivalent([1], [1, 1])', 25),
 ('TestSetsCost', 'sets.equivalent([1, 1], [1])', 'sets.equivalent([1, 1], [1])', 25),
 ('TestSetsCost', 'sets.equivalent([1], [1u, 1.0])', 'sets.equivalent([1], [1u, 1.0])', 25),
 ('TestSetsCost', 'sets.equivalent([1], [1u, 1.0])', 'sets.equivalent([1], [1u, 1.0])', 25),
 ('TestSetsCost', 'sets.equivalent([1, 2, 3], [3u, 2.0, 1])', 'sets.equivalent([1, 2, 3], [3u, 2.0, 1])', 39),
 ('TestSetsCost',
  'sets.equivalent([[1.0], [2, 3]], [[1], [2, 3.0]])',
  'sets.equivalent([[1.0], [2, 3]], [[1], [2, 3.0]])',
  69),
 ('TestSetsCost', '!sets.equivalent([2, 1], [1])', '!sets.equivalent([2, 1], [1])', 26),
 ('TestSetsCost', '!sets.equivalent([1], [1, 2])', '!sets.equivalent([1], [1, 2])', 26),
 ('TestSetsCost', '!sets.equivalent([1, 2], [2u, 2, 2.0])', '!sets.equivalent([1, 2], [2u, 2, 2.0])', 34),
 ('TestSetsCost', '!sets.equivalent([1, 2], [1u, 2, 2.3])', '!sets.equivalent([1, 2], [1u, 2, 2.3])', 34),
 ('TestSetsCost', 'sets.intersects([1], [1])', 'sets.intersects([1], [1])', 22),
 ('TestSetsCost', 'sets.intersects([1], [1, 1])', 'sets.intersects([1], [1, 1])', 23),
 ('TestSetsCost', 'sets.intersects([1, 1], [1])', 'sets.intersects([1, 1], [1])', 23),
 ('TestSetsCost', 'sets.intersects([2, 1], [1])', 'sets.intersects([2, 1], [1])', 23),
 ('TestSetsCost', 'sets.intersects([1], [1, 2])', 'sets.intersects([1], [1, 2])', 23),
 ('TestSetsCost', 'sets.intersects([1], [1.0, 2])', 'sets.intersects([1], [1.0, 2])', 23),
 ('TestSetsCost', 'sets.intersects([1, 2], [2u, 2, 2.0])', 'sets.intersects([1, 2], [2u, 2, 2.0])', 27),
 ('TestSetsCost', 'sets.intersects([1, 2], [1u, 2, 2.3])', 'sets.intersects([1, 2], [1u, 2, 2.3])', 27),
 ('TestSetsCost',
  'sets.intersects([[1], [2, 3]], [[1, 2], [2, 3.0]])',
  'sets.intersects([[1], [2, 3]], [[1, 2], [2, 3.0]])',
  65),
 ('TestSetsCost', '!sets.intersects([], [])', '!sets.intersects([], [])', 22),
 ('TestSetsCost', '!sets.intersects([1], [])', '!sets.intersects([1], [])', 22),
 ('TestSetsCost', '!sets.intersects([1], [2])', '!sets.intersects([1], [2])', 23),
 ('TestSetsCost', '!sets.intersects([1], ["1", 2])', '!sets.intersects([1], ["1", 2])', 24),
 ('TestSetsCost', '!sets.intersects([1], [1.1, 2u])', '!sets.intersects([1], [1.1, 2u])', 24),
 ('TestSemverCost', 'semver', 'semver("1.0.0")', 1),
 ('TestSemverCost', 'semver long input', 'semver("1234.56789012345.67890123456789")', 4),
 ('TestSemverCost', 'isSemver', 'isSemver("1.0.0")', 1),
 ('TestSemverCost', 'isSemver long input', 'isSemver("1234.56789012345.67890123456789")', 4),
 ('TestSemverCost', 'major', 'semver("1.2.3").major()', 2),
 ('TestSemverCost', 'minor', 'semver("1.2.3").minor()', 2),
 ('TestSemverCost', 'patch', 'semver("1.2.3").patch()', 2),
 ('TestSemverCost', 'isLessThan', 'semver("1.0.0").isLessThan(semver("1.1.0"))', 3),
 ('TestSemverCost', 'isGreaterThan', 'semver("1.1.0").isGreaterThan(semver("1.0.0"))', 3),
 ('TestSemverCost', 'compareTo', 'semver("1.0.0").compareTo(semver("1.2.3"))', 3),
 ('TestTwoVariableComprehensionCost', 'map all', "{'a': 1, 'b': 2}.all(k, v, v > 0)", 41),
 ('TestTwoVariableComprehensionCost', 'map exists', "{'a': 1, 'b': 2}.exists(k, v, v > 0)", 40),
 ('TestTwoVariableComprehensionCost', 'map existsOne', "{'a': 1, 'b': 2}.existsOne(k, v, v > 0)", 40),
 ('TestTwoVariableComprehensionCost', 'map transformMap', "{'a': 1, 'b': 2}.transformMap(k, v, v + 1)", 71),
 ('TestTwoVariableComprehensionCost',
  'map transformMap with filter',
  "{'a': 1, 'b': 2}.transformMap(k, v, v < 5, v + 1)",
  75),
 ('TestTwoVariableComprehensionCost',
  'map transformMapEntry',
  "{'a': 1, 'b': 2}.transformMapEntry(k, v, {k: v + 1})",
  131),
 ('TestTwoVariableComprehensionCost',
  'map transformMapEntry with filter',
  "{'a': 1, 'b': 2}.transformMapEntry(k, v, v < 5, {k: v + 1})",
  135),
 ('TestTwoVariableComprehensionCost', 'list all', '[1, 2].all(i, v, v > 0)', 21),
 ('TestTwoVariableComprehensionCost', 'list exists', '[1, 2].exists(i, v, v > 0)', 20),
 ('TestTwoVariableComprehensionCost', 'list existsOne', '[1, 2].existsOne(i, v, v > 0)', 20),
 ('TestTwoVariableComprehensionCost', 'list transformList', '[1, 2].transformList(i, v, v + 1)', 49),
 ('TestTwoVariableComprehensionCost',
  'list transformList with filter',
  '[1, 2].transformList(i, v, v < 5, v + 1)',
  53)]

# TestListsCost / TestIndexOfCost: each list literal with each operation
_INT = "[1, 2, 3, 4, 5]"
_UINT = "[uint(1), uint(2), uint(3), uint(4), uint(5)]"
_DOUBLE = "[1.0, 2.0, 3.0, 4.0, 5.0]"
_BOOL = "[false, true, false, true, false]"
_STRING = "['012345678901', '012345678901', '012345678901', '012345678901', '012345678901']"
_BYTES = "[bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), bytes('012345678901'), " \
    "bytes('012345678901')]"
_DURATION = "[duration('1s'), duration('2s'), duration('3s'), duration('4s'), duration('5s')]"
_TIMESTAMP = "[timestamp('2011-01-01T00:00:00.000+01:00'), timestamp('2011-01-02T00:00:00.000+01:00'), " \
    "timestamp('2011-01-03T00:00:00.000+01:00'), timestamp('2011-01-04T00:00:00.000+01:00'), " \
    "timestamp('2011-01-05T00:00:00.000+01:00')]"
_LONG_STRING = "'01234567890123456789012345678901234567890123456789'"

for _op, _costs in [
    ([".sum()"], [(_INT, 15), (_UINT, 20), (_DOUBLE, 15), (_DURATION, 20)]),
    ([".isSorted()", ".max()", ".min()"], [(_INT, 15), (_UINT, 20), (_DOUBLE, 15), (_BOOL, 15), (_STRING, 15),
                                           (_BYTES, 25), (_DURATION, 20), (_TIMESTAMP, 20)]),
]:
    for _o in _op:
        CASES.extend(("TestListsCost", _lit + _o, _lit + _o, _cost) for _lit, _cost in _costs)
for _o in [".indexOf(%s)", ".lastIndexOf(%s)"]:
    for _lit, _param, _cost in [(_INT, "3", 15), (_UINT, "uint(3)", 21), (_DOUBLE, "3.0", 15), (_BOOL, "true", 15),
                                (_STRING, "'x'", 15), (_BYTES, "bytes('x')", 26), (_DURATION, "duration('3s')", 21),
                                (_TIMESTAMP, "timestamp('2011-01-03T00:00:00.000+01:00')", 21),
                                (_LONG_STRING, "'123'", 5)]:
        CASES.append(("TestIndexOfCost", _lit + _o % _param, _lit + _o % _param, _cost))

# TestURLsCost
_URL = "url('https:://kubernetes.io/')"
for _ops, _cost in [([".getScheme()", ".getHostname()", ".getHost()", ".getPort()", ".getEscapedPath()", ".getQuery()"], 4),
                    ([" == url('https:://kubernetes.io/')"], 7), ([" == url('http://x.b')"], 5)]:
    CASES.extend(("TestURLsCost", "url." + _o, _URL + _o, _cost) for _o in _ops)

# TestIPCost: a base cost per address, and what each operation adds
for _ip, _base in [("ip('192.168.0.1')", 2), ("ip('2001:db8:3333:4444:5555:6666:7777:8888')", 4)]:
    CASES.append(("TestIPCost", _ip, _ip, _base))
    for _o in [".family()", ".isUnspecified()", ".isLoopback()", ".isLinkLocalMulticast()", ".isLinkLocalUnicast()",
               ".isGlobalUnicast()"]:
        CASES.append(("TestIPCost", _ip + _o, _ip + _o, _base + 1))
    CASES.append(("TestIPCost", _ip + " == ip('192.168.0.1')", _ip + " == ip('192.168.0.1')", _base + 2 + 1))

# TestIPIsCanonicalCost
CASES.extend(("TestIPIsCanonicalCost", _e, _e, _c) for _e, _c in [
    ("ip.isCanonical('192.168.0.1')", 3), ("ip.isCanonical('2001:db8:3333:4444:5555:6666:7777:8888')", 8),
    ("ip.isCanonical('2001:db8::abcd')", 3)])

# TestCIDRCost
_CIDR_COMMON = [("", 0), (".ip()", 1), (".prefixLength()", 1), (".masked()", 1), (" == cidr('2001:db8::/32')", 3)]
for _cidr, _extra in [
    ("cidr('192.168.0.0/16')", [(".containsCIDR(cidr('192.0.0.0/30'))", 5), (".containsCIDR(cidr('192.168.0.0/16'))", 5),
                                (".containsCIDR('192.0.0.0/30')", 5), (".containsCIDR('192.168.0.0/16')", 5),
                                (".containsIP(ip('192.0.0.1'))", 2), (".containsIP(ip('192.169.0.1'))", 3),
                                (".containsIP(ip('192.169.169.250'))", 3), (".containsIP('192.0.0.1')", 2),
                                (".containsIP('192.169.0.1')", 3)]),
    ("cidr('2001:db8::/32')", [(".containsCIDR(cidr('2001:db8::/126'))", 5), (".containsCIDR(cidr('2001:db8::/32'))", 5),
                               (".containsCIDR('2001:db8::/126')", 5), (".containsCIDR('2001:db8::/32')", 5),
                               (".containsIP(ip('2001:db8:3333:4444:5555:6666:7777:8888'))", 5),
                               (".containsIP(ip('2001:db8::1'))", 3),
                               (".containsIP('2001:db8:3333:4444:5555:6666:7777:8888')", 5),
                               (".containsIP('2001:db8::1')", 3)]),
]:
    CASES.extend(("TestCIDRCost", _cidr + _o, _cidr + _o, 2 + _c) for _o, _c in _CIDR_COMMON + _extra)

_MIXED = ("a list literal of mixed types: the API server's admission environment refuses it "
          "(cel.HomogeneousAggregateLiterals, environment/base.go), cost_test.go's environment does not")
# (test, name) -> why the case is not run here
NOT_PORTED = {
    ("TestStringLibrary", "jsonpatch.escapeKey"): "jsonpatch.escapeKey is in the environment of mutating policies only "
                                        "(compile.go adds library.JSONPatch with HasPatchTypes)",
    **{("TestSetsCost", _e): _MIXED for _e in [
        "sets.contains([1], [1.0, 1])", "sets.contains([1, 2], [2u, 2.0])", "sets.contains([1, 2u], [2, 2.0])",
        "sets.contains([1, 2.0, 3u], [1.0, 2u, 3])", "!sets.contains([1], [\"1\", 1])", "!sets.contains([1], [1.1, 1u])",
        "sets.equivalent([1], [1u, 1.0])", "sets.equivalent([1, 2, 3], [3u, 2.0, 1])",
        "sets.equivalent([[1.0], [2, 3]], [[1], [2, 3.0]])", "!sets.equivalent([1, 2], [2u, 2, 2.0])",
        "!sets.equivalent([1, 2], [1u, 2, 2.3])", "sets.intersects([1], [1.0, 2])", "sets.intersects([1, 2], [2u, 2, 2.0])",
        "sets.intersects([1, 2], [1u, 2, 2.3])", "sets.intersects([[1], [2, 3]], [[1, 2], [2, 3.0]])",
        "!sets.intersects([1], [\"1\", 2])", "!sets.intersects([1], [1.1, 2u])"]},
    ("TestSize", "*"): "the estimator's static result sizes (EstimateCallCost): no static estimate is made here",
    ("TestTypeEquality", "*"): "the estimator's coverage of the library types (an internal of the Go estimator)",
}


@pytest.mark.parametrize("test, name, expression, cost", [c for c in CASES if c[:2] not in NOT_PORTED])
def test_runtime_cost(test, name, expression, cost):
    assert runtime_cost(expression) == cost


def test_not_ported_names_cases():
    named = {c[:2] for c in CASES}
    assert {k for k in NOT_PORTED if k[1] != "*"} <= named
