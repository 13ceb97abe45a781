"""Upstream's IP and CIDR CEL library cases, translated into DRA device selectors.

Sources (read 2026-11-29): ``k8s.io/apiserver`` ``pkg/cel/library/ip_test.go`` (``TestIP``) and
``cidr_test.go`` (``TestCIDR``), v0.37.0-beta.0 line; both libraries are in the base environment
since 1.30 (``pkg/cel/environment/base.go``), so a selector may use them. A row's value becomes a
comparison (``ip("192.168.0.1")`` is ``ip("192.168.0.1") == ip("192.168.0.1")``, the value upstream
compares with); each selector is created in a DeviceClass through kbatch's API, then evaluated.

Runtime errors: upstream's message up to Go's own parse detail (``ParseAddr("x"): IPv4 address too
long``), which kbatch words "unable to parse IP" (docs/dra.md). Not translated: ``string(ip(...))`` and
``string(cidr(...))`` (the runtime's ``string`` conversion cannot be given new overloads, docs/dra.md).
"""

from __future__ import annotations

import pytest

from kbatch import ControlPlane
from kbatch.api.cel import DeviceInput, SelectorRuntimeError, compile_selector
from kbatch.api.errors import Invalid
from kbatch.api.resource_v1 import DeviceClass

DEVICE = DeviceInput("dra.example.com", {}, {})


@pytest.fixture
def cp() -> ControlPlane:
    return ControlPlane(controllers=[])


def _create_class(cp: ControlPlane, expression: str) -> None:
    cp.client.create(
        DeviceClass.model_validate(
            {"metadata": {"name": "c"}, "spec": {"selectors": [{"cel": {"expression": expression}}]}}
        )
    )


def _matches(cp: ControlPlane, expression: str) -> bool:
    _create_class(cp, expression)
    return compile_selector(expression).matches(DEVICE)


TRUE_ROWS = [
    # ip_test.go TestIP (row name, selector that upstream's expected result makes true)
    ("ip: parse ipv4", 'ip("192.168.0.1") == ip("192.168.0.1")'),
    ("ip: isIP valid ipv4", 'isIP("192.168.0.1") == true'),
    ("ip: isIP invalid ipv4", 'isIP("192.168.0.1.0") == false'),
    ("ip: ip.isCanonical valid ipv4", 'ip.isCanonical("127.0.0.1") == true'),
    ("ip: ipv4 family", 'ip("192.168.0.1").family() == 4'),
    ("ip: ipv4 isUnspecified true", 'ip("0.0.0.0").isUnspecified() == true'),
    ("ip: ipv4 isUnspecified false", 'ip("127.0.0.1").isUnspecified() == false'),
    ("ip: ipv4 isLoopback true", 'ip("127.0.0.1").isLoopback() == true'),
    ("ip: ipv4 isLoopback false", 'ip("1.2.3.4").isLoopback() == false'),
    ("ip: ipv4 isLinkLocalMulticast true", 'ip("224.0.0.1").isLinkLocalMulticast() == true'),
    ("ip: ipv4 isLinkLocalMulticast false", 'ip("224.0.1.1").isLinkLocalMulticast() == false'),
    ("ip: ipv4 isLinkLocalUnicast true", 'ip("169.254.169.254").isLinkLocalUnicast() == true'),
    ("ip: ipv4 isLinkLocalUnicast false", 'ip("192.168.0.1").isLinkLocalUnicast() == false'),
    ("ip: ipv4 isGlobalUnicast true", 'ip("192.168.0.1").isGlobalUnicast() == true'),
    ("ip: ipv4 isGlobalUnicast false", 'ip("255.255.255.255").isGlobalUnicast() == false'),
    ("ip: parse ipv6", 'ip("2001:db8::68") == ip("2001:db8::68")'),
    ("ip: isIP valid ipv6", 'isIP("2001:db8::68") == true'),
    ("ip: isIP invalid ipv6", 'isIP("2001:db8:::68") == false'),
    ("ip: ip.isCanonical valid ipv6", 'ip.isCanonical("2001:db8::68") == true'),
    ("ip: ip.isCanonical non-canonical ipv6", 'ip.isCanonical("2001:DB8::68") == false'),
    ("ip: ipv6 family", 'ip("2001:db8::68").family() == 6'),
    ("ip: ipv6 isUnspecified true", 'ip("::").isUnspecified() == true'),
    ("ip: ipv6 isUnspecified false", 'ip("::1").isUnspecified() == false'),
    ("ip: ipv6 isLoopback true", 'ip("::1").isLoopback() == true'),
    ("ip: ipv6 isLoopback false", 'ip("2001:db8::abcd").isLoopback() == false'),
    ("ip: ipv6 isLinkLocalMulticast true", 'ip("ff02::1").isLinkLocalMulticast() == true'),
    ("ip: ipv6 isLinkLocalMulticast false", 'ip("fd00::1").isLinkLocalMulticast() == false'),
    ("ip: ipv6 isLinkLocalUnicast true", 'ip("fe80::1").isLinkLocalUnicast() == true'),
    ("ip: ipv6 isLinkLocalUnicast false", 'ip("fd80::1").isLinkLocalUnicast() == false'),
    ("ip: ipv6 isGlobalUnicast true", 'ip("2001:db8::abcd").isGlobalUnicast() == true'),
    ("ip: ipv6 isGlobalUnicast false", 'ip("ff00::1").isGlobalUnicast() == false'),
    ("ip: type of IP is net.IP", 'type(ip("192.168.0.1")) == net.IP'),
    # cidr_test.go TestCIDR
    ("cidr: parse ipv4", 'cidr("192.168.0.0/24") == cidr("192.168.0.0/24")'),
    ("cidr: contains IP ipv4 (IP)", 'cidr("192.168.0.0/24").containsIP(ip("192.168.0.1")) == true'),
    ("cidr: does not contain IP ipv4 (IP)", 'cidr("192.168.0.0/24").containsIP(ip("192.168.1.1")) == false'),
    ("cidr: contains IP ipv4 (string)", 'cidr("192.168.0.0/24").containsIP("192.168.0.1") == true'),
    ("cidr: does not contain IP ipv4 (string)", 'cidr("192.168.0.0/24").containsIP("192.168.1.1") == false'),
    (
        "cidr: contains CIDR ipv4 (CIDR)",
        'cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25")) == true',
    ),
    (
        "cidr: contains CIDR ipv4 (CIDR) (/32)",
        'cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.1/32")) == true',
    ),
    (
        "cidr: does not contain IP ipv4 (CIDR)",
        'cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23")) == false',
    ),
    (
        "cidr: does not contain IP ipv4 (CIDR) (/32)",
        'cidr("192.168.0.0/24").containsCIDR(cidr("192.169.0.1/32")) == false',
    ),
    ("cidr: contains CIDR ipv4 (string)", 'cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25") == true'),
    (
        "cidr: does not contain CIDR ipv4 (string)",
        'cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23") == false',
    ),
    ("cidr: returns IP ipv4", 'cidr("192.168.0.0/24").ip() == ip("192.168.0.0")'),
    ("cidr: masks masked ipv4", 'cidr("192.168.0.0/24").masked() == cidr("192.168.0.0/24")'),
    ("cidr: masks unmasked ipv4", 'cidr("192.168.0.1/24").masked() == cidr("192.168.0.0/24")'),
    ("cidr: returns prefix length ipv4", 'cidr("192.168.0.0/24").prefixLength() == 24'),
    ("cidr: parse ipv6", 'cidr("2001:db8::/32") == cidr("2001:db8::/32")'),
    ("cidr: contains IP ipv6 (IP)", 'cidr("2001:db8::/32").containsIP(ip("2001:db8::1")) == true'),
    ("cidr: does not contain IP ipv6 (IP)", 'cidr("2001:db8::/32").containsIP(ip("2001:dc8::1")) == false'),
    ("cidr: contains IP ipv6 (string)", 'cidr("2001:db8::/32").containsIP("2001:db8::1") == true'),
    ("cidr: does not contain IP ipv6 (string)", 'cidr("2001:db8::/32").containsIP("2001:dc8::1") == false'),
    ("cidr: contains CIDR ipv6 (CIDR)", 'cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33")) == true'),
    (
        "cidr: does not contain IP ipv6 (CIDR)",
        'cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/31")) == false',
    ),
    ("cidr: contains CIDR ipv6 (string)", 'cidr("2001:db8::/32").containsCIDR("2001:db8::/33") == true'),
    (
        "cidr: does not contain CIDR ipv6 (string)",
        'cidr("2001:db8::/32").containsCIDR("2001:db8::/31") == false',
    ),
    ("cidr: returns IP ipv6", 'cidr("2001:db8::/32").ip() == ip("2001:db8::")'),
    ("cidr: masks masked ipv6", 'cidr("2001:db8::/32").masked() == cidr("2001:db8::/32")'),
    ("cidr: masks unmasked ipv6", 'cidr("2001:db8:1::/32").masked() == cidr("2001:db8::/32")'),
    ("cidr: returns prefix length ipv6", 'cidr("2001:db8::/32").prefixLength() == 32'),
    ("cidr: type of CIDR is net.CIDR", 'type(cidr("192.168.0.0/24")) == net.CIDR'),
]


@pytest.mark.parametrize(("row", "expression"), TRUE_ROWS, ids=[r[0] for r in TRUE_ROWS])
def test_library_rows(cp: ControlPlane, row: str, expression: str) -> None:
    assert _matches(cp, expression) is True


ERROR_ROWS = [
    (
        "ip: parse invalid ipv4",
        'ip("192.168.0.1.0") == ip("192.168.0.1")',
        'IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): ',
    ),
    (
        "ip: ip.isCanonical invalid ipv4",
        'ip.isCanonical("127.0.0.1.0")',
        'IP Address "127.0.0.1.0" parse error during conversion from string: ParseAddr("127.0.0.1.0"): ',
    ),
    (
        "ip: parse invalid ipv6",
        'ip("2001:db8:::68") == ip("2001:db8::68")',
        'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): ',
    ),
    (
        "ip: ip.isCanonical invalid ipv6",
        'ip.isCanonical("2001:db8:::68")',
        'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): ',
    ),
    (
        "cidr: parse invalid ipv4",
        'cidr("192.168.0.0/") == cidr("192.168.0.0/24")',
        "network address parse error during conversion from string: network address parse error during "
        'conversion from string: netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""',
    ),
    (
        "cidr: parse invalid ipv6",
        'cidr("2001:db8::/") == cidr("2001:db8::/32")',
        "network address parse error during conversion from string: network address parse error during "
        'conversion from string: netip.ParsePrefix("2001:db8::/"): bad bits after slash: ""',
    ),
    # parseIPAddr's own refusals (ip.go): a zone, an IPv4-mapped IPv6 address
    (
        "ip.go: zone",
        'ip("fe80::1%eth0").family() == 6',
        'IP address "fe80::1%eth0" with zone value is not allowed',
    ),
    (
        "ip.go: IPv4-mapped",
        'ip("::ffff:1.2.3.4").family() == 6',
        'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed',
    ),
]


@pytest.mark.parametrize(("row", "expression", "message"), ERROR_ROWS, ids=[r[0] for r in ERROR_ROWS])
def test_library_runtime_errors(cp: ControlPlane, row: str, expression: str, message: str) -> None:
    with pytest.raises(SelectorRuntimeError) as info:
        _matches(cp, expression)
    assert str(info.value).startswith(message)


def test_cidr_passed_to_is_ip_is_refused_at_create(cp: ControlPlane) -> None:
    # ip_test.go "passing cidr into isIP returns compile error"
    with pytest.raises(Invalid) as info:
        _create_class(cp, 'isIP(cidr("192.168.0.0/24"))')
    assert "found no matching overload for 'isIP' applied to '(net.CIDR)'" in str(info.value)


@pytest.mark.parametrize(("text", "bits"), [("192.168.0.0/24", "24"), ("2001:db8::/32", "32")])
def test_a_prefix_length_ending_in_a_newline_is_refused(cp: ControlPlane, text: str, bits: str) -> None:
    # netip.ParsePrefix reads the length with strconv.Atoi, which refuses "24\n" (a Python ``$``
    # anchor matched before the final newline, so kbatch took it)
    assert _matches(cp, f'isCIDR("{text}") && !isCIDR("{text}\\n")') is True
    with pytest.raises(SelectorRuntimeError) as info:
        compile_selector(f'cidr("{text}\\n").prefixLength() > 0').matches(DEVICE)
    assert str(info.value).endswith(f'netip.ParsePrefix("{text}\n"): bad bits after slash: "{bits}\\n"')
