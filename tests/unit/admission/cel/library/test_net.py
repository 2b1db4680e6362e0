import pytest

from kpt_fn.admission.cel.library import net

from unit.admission.cel.library.evalcase import evaluate, failure


@pytest.mark.parametrize("text, expected", [
    ("ip('10.0.0.1').family()", 4), ("ip('::1').isLoopback()", True), ("ip('10.0.0.1').isGlobalUnicast()", True),
    ("ip('255.255.255.255').isGlobalUnicast()", False), ("ip('169.254.1.1').isLinkLocalUnicast()", True),
    ("ip('224.0.0.1').isLinkLocalMulticast()", True), ("ip('ff02::1').isLinkLocalMulticast()", True),
    ("ip('0.0.0.0').isUnspecified()", True), ("ip.isCanonical('2001:db8::1')", True),
    ("ip.isCanonical('2001:DB8::1')", False), ("isIP('1.2.3')", False), ("isCIDR('10.0.0.0/8')", True),
    ("cidr('10.0.0.0/8').containsIP('10.1.2.3')", True), ("cidr('10.0.0.0/8').containsIP(ip('::1'))", False),
    ("cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", True), ("cidr('10.1.0.0/16').containsCIDR('10.0.0.0/8')", False),
    ("cidr('10.1.2.3/8').masked() == cidr('10.0.0.0/8')", True), ("cidr('10.1.2.3/8').ip() == ip('10.1.2.3')", True),
    ("string(cidr('10.0.0.0/8'))", "10.0.0.0/8"), ("string(ip('::1'))", "::1"),
    ("cidr('10.0.0.0/8').prefixLength()", 8), ("type(ip('::1')) == net.IP", True),
])
def test_ip_and_cidr(text, expected):
    assert evaluate(text) == expected


@pytest.mark.parametrize("text, message", [
    ("::ffff:1.2.3.4", ""), ("1.2.3.04", 'ParseAddr("1.2.3.04"): IPv4 field has octet with leading zero'),
    ("1..2.3", 'ParseAddr("1..2.3"): IPv4 field must have at least one digit (at ".2.3")'),
    ("1.2.3.x", 'ParseAddr("1.2.3.x"): unexpected character (at "x")'),
    ("12345::", 'ParseAddr("12345::"): each group must have 4 or less digits (at "12345::")'),
    ("1:2", 'ParseAddr("1:2"): address string too short'), ("%x", 'ParseAddr("%x"): missing IPv6 address'),
    ("1:2:3:4:5:6:7:8:", 'ParseAddr("1:2:3:4:5:6:7:8:"): colon must be followed by more characters (at ":")'),
    ("1:2:3:4:5:6:1.2.3.4", ""), ("1:2:3:1.2.3.4", 'ParseAddr("1:2:3:1.2.3.4"): embedded IPv4 address must replace '
                                                  'the final 2 fields of the address (at "1.2.3.4")'),
    ("1:2:3:4x", 'ParseAddr("1:2:3:4x"): unexpected character, want colon (at "x")'), ("fe80::1%", 'ParseAddr("fe80::1%"): zone must be a non-empty string'),
])
def test_go_address_errors(text, message):
    assert net.go_addr_error(text) == message


def test_refusals():
    assert failure("ip('::ffff:1.2.3.4')") == 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed'
    assert failure("ip('fe80::1%eth0')") == 'IP address "fe80::1%eth0" with zone value is not allowed'
    assert failure("cidr('10.0.0.0/33')").endswith('netip.ParsePrefix("10.0.0.0/33"): prefix length out of range')
    assert failure("cidr('10.0.0.0')").endswith("""netip.ParsePrefix("10.0.0.0"): no '/'""")
