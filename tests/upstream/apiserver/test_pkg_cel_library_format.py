"""k8s.io/apiserver@v0.36.3 pkg/cel/library/format_test.go (TestFormat) ported as data: each case's expression
and what the test expects of it (upstream.apiserver.harness describes the forms)."""

from __future__ import annotations

from upstream.apiserver.harness import table_tests

CASES = [('example_usage_dns1123Label', 'format.dns1123Label().validate("my-label-name")', ('optional_none',)),
 ('example_usage_dns1123Subdomain',
  'format.dns1123Subdomain().validate("apiextensions.k8s.io")',
  ('optional_none',)),
 ('example_usage_qualifiedName',
  'format.qualifiedName().validate("apiextensions.k8s.io/v1beta1")',
  ('optional_none',)),
 ('example_usage_dns1123LabelPrefix',
  'format.dns1123LabelPrefix().validate("my-label-prefix-")',
  ('optional_none',)),
 ('example_usage_dns1123SubdomainPrefix',
  'format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-")',
  ('optional_none',)),
 ('example_usage_dns1035LabelPrefix',
  'format.dns1035LabelPrefix().validate("my-label-prefix-")',
  ('optional_none',)),
 ('example_usage_uri', 'format.uri().validate("http://example.com")', ('optional_none',)),
 ('example_usage_uuid', 'format.uuid().validate("123e4567-e89b-12d3-a456-426614174000")', ('optional_none',)),
 ('example_usage_byte', 'format.byte().validate("aGVsbG8=")', ('optional_none',)),
 ('example_usage_date', 'format.date().validate("2021-01-01")', ('optional_none',)),
 ('example_usage_datetime', 'format.datetime().validate("2021-01-01T00:00:00Z")', ('optional_none',)),
 ('dns1123Label',
  'format.dns1123Label().validate("contains a space")',
  ('optional_of',
   ["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"])),
 ('dns1123Subdomain',
  'format.dns1123Subdomain().validate("contains a space")',
  ('optional_of',
   ["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"])),
 ('dns1035Label',
  'format.dns1035Label().validate("contains a space")',
  ('optional_of',
   ["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation "
    "is '[a-z]([-a-z0-9]*[a-z0-9])?')"])),
 ('qualifiedName',
  'format.qualifiedName().validate("contains a space")',
  ('optional_of',
   ["name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"])),
 ('dns1123LabelPrefix',
  'format.dns1123LabelPrefix().validate("contains a space-")',
  ('optional_of',
   ["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"])),
 ('dns1123SubdomainPrefix',
  'format.dns1123SubdomainPrefix().validate("contains a space-")',
  ('optional_of',
   ["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"])),
 ('dns1035LabelPrefix',
  'format.dns1035LabelPrefix().validate("contains a space-")',
  ('optional_of',
   ["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation "
    "is '[a-z]([-a-z0-9]*[a-z0-9])?')"])),
 ('dns1123Label_Success', 'format.dns1123Label().validate("my-label-name")', ('optional_none',)),
 ('dns1123Subdomain_Success', 'format.dns1123Subdomain().validate("example.com")', ('optional_none',)),
 ('dns1035Label_Success', 'format.dns1035Label().validate("my-label-name")', ('optional_none',)),
 ('qualifiedName_Success', 'format.qualifiedName().validate("my.name")', ('optional_none',)),
 ('byte_success', 'format.byte().validate("aGVsbG8=")', ('optional_none',)),
 ('byte_failure', 'format.byte().validate("aGVsbG8")', ('optional_of', ['invalid base64'])),
 ('date_success', 'format.date().validate("2020-01-01")', ('optional_none',)),
 ('date_failure', 'format.date().validate("2020-01-32")', ('optional_of', ['invalid date'])),
 ('datetime_success', 'format.datetime().validate("2020-01-01T00:00:00Z")', ('optional_none',)),
 ('datetime_failure', 'format.datetime().validate("2020-01-32T00:00:00Z")', ('optional_of', ['invalid datetime'])),
 ('unknown_format', 'format.named("unknown").hasValue()', ('value', False)),
 ('labelValue_success', 'format.labelValue().validate("my-cool-label-Value")', ('optional_none',)),
 ('labelValue_failure',
  'format.labelValue().validate("my-cool-label-Value!!\\n\\n!!!")',
  ('optional_of',
   ["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
    "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"]))]

# The cases the test adds in a loop over library.ConstantFormats (format_test.go TestFormat): every named
# format is found by name and equals itself, and no two formats are equal.
_NAMES = ["dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName", "dns1123LabelPrefix",
          "dns1123SubdomainPrefix", "dns1035LabelPrefix", "labelValue", "uri", "uuid", "byte", "date", "datetime"]
for _lhs in _NAMES:
    CASES.append(("lookup and comparison", f'format.named("{_lhs}").hasValue()', ("value", True)))
    CASES.append(("comparison with lookup succeeds", f'format.named("{_lhs}").value() == format.{_lhs}()', ("value", True)))
    CASES.extend((f"compare_{_lhs}_{_rhs}", f"format.{_lhs}() == format.{_rhs}()", ("value", False))
                 for _rhs in _NAMES if _rhs != _lhs)


# name -> why the case is not run here
NOT_PORTED: dict[str, str] = {}


test_case, test_not_ported_names_cases = table_tests(CASES, NOT_PORTED)
