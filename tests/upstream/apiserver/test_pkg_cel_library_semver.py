"""k8s.io/apiserver@v0.36.3 pkg/cel/library/semver_test.go (TestSemver) ported as data: each case's expression
and what the test expects of it (upstream.apiserver.harness describes the forms)."""

from __future__ import annotations

from upstream.apiserver.harness import table_tests

CASES = [('parse', 'semver("1.2.3")', ('cel', 'semver("1.2.3")')),
 ('parseInvalidVersion', 'semver("v1.0")', ('runtime', 'No Major.Minor.Patch elements found')),
 ('isSemver', 'isSemver("1.2.3-beta.1+build.1")', ('value', True)),
 ('isSemver_empty_false', 'isSemver("")', ('value', False)),
 ('isSemver_v_prefix_false', 'isSemver("v1.0.0")', ('value', False)),
 ('isSemver_v_leading_whitespace_false', 'isSemver(" 1.0.0")', ('value', False)),
 ('isSemver_v_contains_whitespace_false', 'isSemver("1. 0.0")', ('value', False)),
 ('isSemver_v_trailing_whitespace_false', 'isSemver("1.0.0 ")', ('value', False)),
 ('isSemver_leading_zeros_false', 'isSemver("01.01.01")', ('value', False)),
 ('isSemver_major_only_false', 'isSemver("1")', ('value', False)),
 ('isSemver_major_minor_only_false', 'isSemver("1.1")', ('value', False)),
 ('isSemver_empty_normalize_false', 'isSemver("", true)', ('value', False)),
 ('isSemver_v_leading_whitespace_normalize_false', 'isSemver(" 1.0.0", true)', ('value', False)),
 ('isSemver_v_contains_whitespace_normalize_false', 'isSemver("1. 0.0", true)', ('value', False)),
 ('isSemver_v_trailing_whitespace_normalize_false', 'isSemver("1.0.0 ", true)', ('value', False)),
 ('isSemver_v_prefix_normalize_true', 'isSemver("v1.0.0", true)', ('value', True)),
 ('isSemver_leading_zeros_normalize_true', 'isSemver("01.01.01", true)', ('value', True)),
 ('isSemver_major_only_normalize_true', 'isSemver("1", true)', ('value', True)),
 ('isSemver_major_minor_only_normalize_true', 'isSemver("1.1", true)', ('value', True)),
 ('isSemver_noOverload',
  'isSemver([1, 2, 3])',
  ('compile', ["found no matching overload for 'isSemver' applied to.*"])),
 ('equality_normalize', 'semver("v01.01", true) == semver("1.1.0")', ('value', True)),
 ('equality_reflexivity', 'semver("1.2.3") == semver("1.2.3")', ('value', True)),
 ('inequality', 'semver("1.2.3") == semver("1.0.0")', ('value', False)),
 ('semver_less', 'semver("1.0.0").isLessThan(semver("1.2.3"))', ('value', True)),
 ('semver_less_false', 'semver("1.0.0").isLessThan(semver("1.0.0"))', ('value', False)),
 ('semver_greater', 'semver("1.2.3").isGreaterThan(semver("1.0.0"))', ('value', True)),
 ('semver_greater_false', 'semver("1.0.0").isGreaterThan(semver("1.0.0"))', ('value', False)),
 ('compare_equal', 'semver("1.2.3").compareTo(semver("1.2.3"))', ('value', 0)),
 ('compare_less', 'semver("1.0.0").compareTo(semver("1.2.3"))', ('value', -1)),
 ('compare_greater', 'semver("1.2.3").compareTo(semver("1.0.0"))', ('value', 1)),
 ('major', 'semver("1.2.3").major()', ('value', 1)),
 ('minor', 'semver("1.2.3").minor()', ('value', 2)),
 ('patch', 'semver("1.2.3").patch()', ('value', 3))]

# name -> why the case is not run here
NOT_PORTED: dict[str, str] = {}


test_case, test_not_ported_names_cases = table_tests(CASES, NOT_PORTED)
