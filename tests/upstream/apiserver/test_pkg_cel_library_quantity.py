"""k8s.io/apiserver@v0.36.3 pkg/cel/library/quantity_test.go (TestQuantity) ported as data: each case's expression
and what the test expects of it (upstream.apiserver.harness describes the forms)."""

from __future__ import annotations

from upstream.apiserver.harness import table_tests

CASES = [('parse', 'quantity("12Mi")', ('cel', 'quantity("12Mi")')),
 ('parseInvalidSuffix', 'quantity("10Mo")', ('runtime', 'quantities must match the regular expression.*')),
 ('parseInvalidSuffixPassesRegex', 'quantity("10Mm")', ('runtime', "unable to parse quantity's suffix")),
 ('isQuantity', 'isQuantity("20")', ('value', True)),
 ('isQuantity_megabytes', 'isQuantity("20M")', ('value', True)),
 ('isQuantity_mebibytes', 'isQuantity("20Mi")', ('value', True)),
 ('isQuantity_invalidSuffix', 'isQuantity("20Mo")', ('value', False)),
 ('isQuantity_passingRegex', 'isQuantity("10Mm")', ('value', False)),
 ('isQuantity_noOverload',
  'isQuantity([1, 2, 3])',
  ('compile', ["found no matching overload for 'isQuantity' applied to.*"])),
 ('equality_reflexivity', 'quantity("200M") == quantity("200M")', ('value', True)),
 ('equality_symmetry',
  'quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")',
  ('value', True)),
 ('equality_transitivity',
  'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == '
  'quantity("2000k")',
  ('value', True)),
 ('inequality', 'quantity("200M") == quantity("0.3G")', ('value', False)),
 ('quantity_less', 'quantity("50M").isLessThan(quantity("50Mi"))', ('value', True)),
 ('quantity_less_obvious', 'quantity("50M").isLessThan(quantity("100M"))', ('value', True)),
 ('quantity_less_false', 'quantity("100M").isLessThan(quantity("50M"))', ('value', False)),
 ('quantity_greater', 'quantity("50Mi").isGreaterThan(quantity("50M"))', ('value', True)),
 ('quantity_greater_obvious', 'quantity("150Mi").isGreaterThan(quantity("100Mi"))', ('value', True)),
 ('quantity_greater_false', 'quantity("50M").isGreaterThan(quantity("100M"))', ('value', False)),
 ('compare_equal', 'quantity("200M").compareTo(quantity("0.2G"))', ('value', 0)),
 ('compare_less', 'quantity("50M").compareTo(quantity("50Mi"))', ('value', -1)),
 ('compare_greater', 'quantity("50Mi").compareTo(quantity("50M"))', ('value', 1)),
 ('add_quantity', 'quantity("50k").add(quantity("20")) == quantity("50.02k")', ('value', True)),
 ('add_int', 'quantity("50k").add(20).isLessThan(quantity("50020"))', ('value', False)),
 ('sub_quantity', 'quantity("50k").sub(quantity("20")) == quantity("49.98k")', ('value', True)),
 ('sub_int', 'quantity("50k").sub(20) == quantity("49980")', ('value', True)),
 ('arith_chain_1', 'quantity("50k").add(20).sub(quantity("100k")).asInteger()', ('value', -49980)),
 ('arith_chain', 'quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()', ('value', 20)),
 ('as_integer', 'quantity("50k").asInteger()', ('value', 50000)),
 ('as_integer_error',
  'quantity("9999999999999999999999999999999999999G").asInteger()',
  ('runtime', 'cannot convert value to integer')),
 ('is_integer', 'quantity("9999999999999999999999999999999999999G").isInteger()', ('value', False)),
 ('is_integer', 'quantity("50").isInteger()', ('value', True)),
 ('as_float', 'quantity("50.703k").asApproximateFloat()', ('value', 50703.0))]

# name -> why the case is not run here
NOT_PORTED: dict[str, str] = {}


test_case, test_not_ported_names_cases = table_tests(CASES, NOT_PORTED)
