"""k8s.io/apiserver@v0.36.3 pkg/cel/library/ip_test.go (TestIP) ported as data: each case's expression
and what the test expects of it (upstream.apiserver.harness describes the forms)."""

from __future__ import annotations

from upstream.apiserver.harness import table_tests

CASES = [('parse ipv4', 'ip("192.168.0.1")', ('cel', 'ip("192.168.0.1")')),
 ('parse invalid ipv4',
  'ip("192.168.0.1.0")',
  ('runtime',
   'IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address '
   'too long')),
 ('isIP valid ipv4', 'isIP("192.168.0.1")', ('value', True)),
 ('isIP invalid ipv4', 'isIP("192.168.0.1.0")', ('value', False)),
 ('ip.isCanonical valid ipv4', 'ip.isCanonical("127.0.0.1")', ('value', True)),
 ('ip.isCanonical invalid ipv4',
  'ip.isCanonical("127.0.0.1.0")',
  ('runtime',
   'IP Address "127.0.0.1.0" parse error during conversion from string: ParseAddr("127.0.0.1.0"): IPv4 address too '
   'long')),
 ('ipv4 family', 'ip("192.168.0.1").family()', ('value', 4)),
 ('ipv4 isUnspecified true', 'ip("0.0.0.0").isUnspecified()', ('value', True)),
 ('ipv4 isUnspecified false', 'ip("127.0.0.1").isUnspecified()', ('value', False)),
 ('ipv4 isLoopback true', 'ip("127.0.0.1").isLoopback()', ('value', True)),
 ('ipv4 isLoopback false', 'ip("1.2.3.4").isLoopback()', ('value', False)),
 ('ipv4 isLinkLocalMulticast true', 'ip("224.0.0.1").isLinkLocalMulticast()', ('value', True)),
 ('ipv4 isLinkLocalMulticast false', 'ip("224.0.1.1").isLinkLocalMulticast()', ('value', False)),
 ('ipv4 isLinkLocalUnicast true', 'ip("169.254.169.254").isLinkLocalUnicast()', ('value', True)),
 ('ipv4 isLinkLocalUnicast false', 'ip("192.168.0.1").isLinkLocalUnicast()', ('value', False)),
 ('ipv4 isGlobalUnicast true', 'ip("192.168.0.1").isGlobalUnicast()', ('value', True)),
 ('ipv4 isGlobalUnicast false', 'ip("255.255.255.255").isGlobalUnicast()', ('value', False)),
 ('parse ipv6', 'ip("2001:db8::68")', ('cel', 'ip("2001:db8::68")')),
 ('parse invalid ipv6',
  'ip("2001:db8:::68")',
  ('runtime',
   'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each '
   'colon-separated field must have at least one digit (at ":68")')),
 ('isIP valid ipv6', 'isIP("2001:db8::68")', ('value', True)),
 ('isIP invalid ipv4', 'isIP("2001:db8:::68")', ('value', False)),
 ('ip.isCanonical valid ipv6', 'ip.isCanonical("2001:db8::68")', ('value', True)),
 ('ip.isCanonical non-canonical ipv6', 'ip.isCanonical("2001:DB8::68")', ('value', False)),
 ('ip.isCanonical invalid ipv6',
  'ip.isCanonical("2001:db8:::68")',
  ('runtime',
   'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each '
   'colon-separated field must have at least one digit (at ":68")')),
 ('ipv6 family', 'ip("2001:db8::68").family()', ('value', 6)),
 ('ipv6 isUnspecified true', 'ip("::").isUnspecified()', ('value', True)),
 ('ipv6 isUnspecified false', 'ip("::1").isUnspecified()', ('value', False)),
 ('ipv6 isLoopback true', 'ip("::1").isLoopback()', ('value', True)),
 ('ipv6 isLoopback false', 'ip("2001:db8::abcd").isLoopback()', ('value', False)),
 ('ipv6 isLinkLocalMulticast true', 'ip("ff02::1").isLinkLocalMulticast()', ('value', True)),
 ('ipv6 isLinkLocalMulticast false', 'ip("fd00::1").isLinkLocalMulticast()', ('value', False)),
 ('ipv6 isLinkLocalUnicast true', 'ip("fe80::1").isLinkLocalUnicast()', ('value', True)),
 ('ipv6 isLinkLocalUnicast false', 'ip("fd80::1").isLinkLocalUnicast()', ('value', False)),
 ('ipv6 isGlobalUnicast true', 'ip("2001:db8::abcd").isGlobalUnicast()', ('value', True)),
 ('ipv6 isGlobalUnicast false', 'ip("ff00::1").isGlobalUnicast()', ('value', False)),
 ('passing cidr into isIP returns compile error',
  'isIP(cidr("192.168.0.0/24"))',
  ('compile', ["found no matching overload for 'isIP' applied to '\\(net.CIDR\\)'"])),
 ('converting an IP address to a string', 'string(ip("192.168.0.1"))', ('value', '192.168.0.1')),
 ('type of IP is net.IP', 'type(ip("192.168.0.1")) == net.IP', ('value', True))]

# name -> why the case is not run here
NOT_PORTED: dict[str, str] = {}


test_case, test_not_ported_names_cases = table_tests(CASES, NOT_PORTED, exact_errors=True)
