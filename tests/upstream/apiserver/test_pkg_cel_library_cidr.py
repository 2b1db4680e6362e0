"""k8s.io/apiserver@v0.36.3 pkg/cel/library/cidr_test.go (TestCIDR) ported as data: each case's expression
and what the test expects of it (upstream.apiserver.harness describes the forms)."""

from __future__ import annotations

from upstream.apiserver.harness import table_tests

CASES = [('parse ipv4', 'cidr("192.168.0.0/24")', ('cel', 'cidr("192.168.0.0/24")')),
 ('parse invalid ipv4',
  'cidr("192.168.0.0/")',
  ('runtime',
   'network address parse error during conversion from string: network address parse error during conversion from '
   'string: netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""')),
 ('contains IP ipv4 (IP)', 'cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))', ('value', True)),
 ('does not contain IP ipv4 (IP)', 'cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))', ('value', False)),
 ('contains IP ipv4 (string)', 'cidr("192.168.0.0/24").containsIP("192.168.0.1")', ('value', True)),
 ('does not contain IP ipv4 (string)', 'cidr("192.168.0.0/24").containsIP("192.168.1.1")', ('value', False)),
 ('contains CIDR ipv4 (CIDR)', 'cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))', ('value', True)),
 ('contains CIDR ipv4 (CIDR) (/32)',
  'cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.1/32"))',
  ('value', True)),
 ('does not contain IP ipv4 (CIDR)',
  'cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23"))',
  ('value', False)),
 ('does not contain IP ipv4 (CIDR) (/32)',
  'cidr("192.168.0.0/24").containsCIDR(cidr("192.169.0.1/32"))',
  ('value', False)),
 ('contains CIDR ipv4 (string)', 'cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25")', ('value', True)),
 ('does not contain CIDR ipv4 (string)', 'cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23")', ('value', False)),
 ('returns IP ipv4', 'cidr("192.168.0.0/24").ip()', ('cel', 'ip("192.168.0.0")')),
 ('masks masked ipv4', 'cidr("192.168.0.0/24").masked()', ('cel', 'cidr("192.168.0.0/24")')),
 ('masks unmasked ipv4', 'cidr("192.168.0.1/24").masked()', ('cel', 'cidr("192.168.0.0/24")')),
 ('returns prefix length ipv4', 'cidr("192.168.0.0/24").prefixLength()', ('value', 24)),
 ('parse ipv6', 'cidr("2001:db8::/32")', ('cel', 'cidr("2001:db8::/32")')),
 ('parse invalid ipv6',
  'cidr("2001:db8::/")',
  ('runtime',
   'network address parse error during conversion from string: network address parse error during conversion from '
   'string: netip.ParsePrefix("2001:db8::/"): bad bits after slash: ""')),
 ('contains IP ipv6 (IP)', 'cidr("2001:db8::/32").containsIP(ip("2001:db8::1"))', ('value', True)),
 ('does not contain IP ipv6 (IP)', 'cidr("2001:db8::/32").containsIP(ip("2001:dc8::1"))', ('value', False)),
 ('contains IP ipv6 (string)', 'cidr("2001:db8::/32").containsIP("2001:db8::1")', ('value', True)),
 ('does not contain IP ipv6 (string)', 'cidr("2001:db8::/32").containsIP("2001:dc8::1")', ('value', False)),
 ('contains CIDR ipv6 (CIDR)', 'cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33"))', ('value', True)),
 ('does not contain IP ipv6 (CIDR)', 'cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/31"))', ('value', False)),
 ('contains CIDR ipv6 (string)', 'cidr("2001:db8::/32").containsCIDR("2001:db8::/33")', ('value', True)),
 ('does not contain CIDR ipv6 (string)', 'cidr("2001:db8::/32").containsCIDR("2001:db8::/31")', ('value', False)),
 ('returns IP ipv6', 'cidr("2001:db8::/32").ip()', ('cel', 'ip("2001:db8::")')),
 ('masks masked ipv6', 'cidr("2001:db8::/32").masked()', ('cel', 'cidr("2001:db8::/32")')),
 ('masks unmasked ipv6', 'cidr("2001:db8:1::/32").masked()', ('cel', 'cidr("2001:db8::/32")')),
 ('returns prefix length ipv6', 'cidr("2001:db8::/32").prefixLength()', ('value', 32)),
 ('converting a CIDR to a string', 'string(cidr("192.168.0.0/24"))', ('value', '192.168.0.0/24')),
 ('type of CIDR is net.CIDR', 'type(cidr("192.168.0.0/24")) == net.CIDR', ('value', True))]

# name -> why the case is not run here
NOT_PORTED: dict[str, str] = {}


test_case, test_not_ported_names_cases = table_tests(CASES, NOT_PORTED, exact_errors=True)
