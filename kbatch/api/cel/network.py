"""Kubernetes' IP and CIDR CEL libraries (upstream ``k8s.io/apiserver/pkg/cel/library/ip.go`` and
``cidr.go``, in the base environment since 1.30): ``ip(s)``, ``isIP(s)``, ``ip.isCanonical(s)``,
``<ip>.family()``, ``isUnspecified()``, ``isLoopback()``, ``isLinkLocalMulticast()``,
``isLinkLocalUnicast()``, ``isGlobalUnicast()``; ``cidr(s)``, ``isCIDR(s)``, ``<cidr>.containsIP(ip |
string)``, ``containsCIDR(cidr | string)``, ``ip()``, ``masked()``, ``prefixLength()``.

Values are ``net.IP`` / ``net.CIDR`` messages holding the canonical text (Go's ``netip.Addr.String``
and ``netip.Prefix.String``). Parsing follows Go's ``netip.ParseAddr`` / ``ParsePrefix`` as upstream
uses them: an IPv4-mapped IPv6 address or a zone is refused, a prefix length is decimal without a
sign or leading zeros, the host bits of a CIDR are kept (``masked()`` clears them). Go's own parse
error detail (``ParseAddr("x"): ...``) is shortened to "unable to parse IP" / "bad prefix".
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from typing import Any

from kbatch.api.cel.values import net_classes

__all__ = ["declarations"]

_Addr = ipaddress.IPv4Address | ipaddress.IPv6Address
_BITS = re.compile(r"^(0|[1-9][0-9]{0,2})$")


def _parse_addr(raw: str) -> _Addr:
    """upstream ``parseIPAddr``: ``ValueError`` with upstream's message."""
    try:
        addr = ipaddress.ip_address(raw)
    except ValueError:
        raise ValueError(
            f'IP Address "{raw}" parse error during conversion from string: '
            f'ParseAddr("{raw}"): unable to parse IP'
        ) from None
    if isinstance(addr, ipaddress.IPv6Address) and addr.scope_id is not None:
        raise ValueError(f'IP address "{raw}" with zone value is not allowed')
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        raise ValueError(f'IPv4-mapped IPv6 address "{raw}" is not allowed')
    return addr


def _parse_prefix(raw: str) -> tuple[_Addr, int]:
    """upstream ``parseCIDR``: the address (host bits kept) and the prefix length."""
    addr_text, slash, bits_text = raw.rpartition("/")
    problem = f'network address parse error during conversion from string: netip.ParsePrefix("{raw}"): '
    if not slash or "%" in addr_text:
        raise ValueError(problem + "no '/'" if not slash else problem + "IPv6 zones cannot be present")
    try:
        addr = ipaddress.ip_address(addr_text)
    except ValueError:
        raise ValueError(problem + f'ParseAddr("{addr_text}"): unable to parse IP') from None
    # fullmatch: strconv.Atoi refuses "8\n" (Python's ``$`` would match before the newline)
    if not _BITS.fullmatch(bits_text) or int(bits_text) > addr.max_prefixlen:
        raise ValueError(problem + "bad bits after slash: " + repr(bits_text).replace("'", '"'))
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        raise ValueError(f'IPv4-mapped IPv6 address "{raw}" is not allowed')
    return addr, int(bits_text)


def _ip(addr: _Addr) -> Any:
    return net_classes()[0](value=str(addr))


def _cidr(addr: _Addr, bits: int) -> Any:
    return net_classes()[1](value=f"{addr}/{bits}")


def _addr_of(message: Any) -> _Addr:
    return ipaddress.ip_address(message.value)


def _prefix_of(message: Any) -> tuple[_Addr, int]:
    text, _, bits = message.value.rpartition("/")
    return ipaddress.ip_address(text), int(bits)


def _network(addr: _Addr, bits: int) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    return ipaddress.ip_network(f"{addr}/{bits}", strict=False)


def _is_ip(raw: str) -> bool:
    try:
        _parse_addr(raw)
    except ValueError:
        return False
    return True


def _is_cidr(raw: str) -> bool:
    try:
        _parse_prefix(raw)
    except ValueError:
        return False
    return True


def _string_to_cidr(raw: str) -> Any:
    try:
        return _cidr(*_parse_prefix(raw))
    except ValueError as err:
        raise ValueError(f"network address parse error during conversion from string: {err}") from None


def _contains_ip(cidr: Any, ip: Any) -> bool:
    addr = _parse_addr(ip) if isinstance(ip, str) else _addr_of(ip)
    prefix, bits = _prefix_of(cidr)
    return addr.version == prefix.version and addr in _network(prefix, bits)


def _contains_cidr(cidr: Any, other: Any) -> bool:
    """upstream: the prefixes overlap and ``cidr`` is no longer than ``other``."""
    inner, inner_bits = _parse_prefix(other) if isinstance(other, str) else _prefix_of(other)
    outer, outer_bits = _prefix_of(cidr)
    if inner.version != outer.version or outer_bits > inner_bits:
        return False
    return _network(inner, inner_bits).subnet_of(_network(outer, outer_bits))  # type: ignore[arg-type]


def _is_global_unicast(addr: _Addr) -> bool:
    """Go's ``netip.Addr.IsGlobalUnicast``: not unspecified, loopback, multicast, link-local unicast
    nor the IPv4 broadcast address (private ranges count as global)."""
    if isinstance(addr, ipaddress.IPv4Address) and addr == ipaddress.IPv4Address("255.255.255.255"):
        return False
    return not (addr.is_unspecified or addr.is_loopback or addr.is_multicast or _link_local_unicast(addr))


def _link_local_unicast(addr: _Addr) -> bool:
    net = "169.254.0.0/16" if addr.version == 4 else "fe80::/10"
    return addr in ipaddress.ip_network(net)


def _link_local_multicast(addr: _Addr) -> bool:
    net = "224.0.0.0/24" if addr.version == 4 else "ff02::/16"
    return addr in ipaddress.ip_network(net)


def _is_canonical(raw: str) -> bool:
    """Go's ``Addr.String`` is the canonical form: equal to the text when the text is canonical."""
    return str(_parse_addr(raw)) == raw


_PREDICATES: tuple[tuple[str, str, Callable[[_Addr], bool]], ...] = (
    ("isUnspecified", "ip_is_unspecified", lambda a: a.is_unspecified),
    ("isLoopback", "ip_is_loopback", lambda a: a.is_loopback),
    ("isLinkLocalMulticast", "ip_is_link_local_multicast", _link_local_multicast),
    ("isLinkLocalUnicast", "ip_is_link_local_unicast", _link_local_unicast),
    ("isGlobalUnicast", "ip_is_global_unicast", _is_global_unicast),
)


def _on_ip(test: Callable[[_Addr], bool]) -> Callable[[Any], bool]:
    return lambda message: test(_addr_of(message))


def declarations(decl: Callable[..., Any], T: Any) -> list[Any]:
    """The libraries' function declarations, made with ``library``'s ``decl`` helper."""
    IP, CIDR = T("net.IP"), T("net.CIDR")
    return [
        decl(
            "ip",
            ("string_to_ip", IP, [T.STRING], False, lambda s: _ip(_parse_addr(s))),
            ("cidr_ip", IP, [CIDR], True, lambda m: _ip(_prefix_of(m)[0])),
        ),
        decl("isIP", ("is_ip", T.BOOL, [T.STRING], False, _is_ip)),
        decl("ip.isCanonical", ("ip_is_canonical", T.BOOL, [T.STRING], False, _is_canonical)),
        decl("family", ("ip_family", T.INT, [IP], True, lambda m: _addr_of(m).version)),
        *(decl(name, (oid, T.BOOL, [IP], True, _on_ip(test))) for name, oid, test in _PREDICATES),
        decl("cidr", ("string_to_cidr", CIDR, [T.STRING], False, _string_to_cidr)),
        decl("isCIDR", ("is_cidr", T.BOOL, [T.STRING], False, _is_cidr)),
        decl(
            "containsIP",
            ("cidr_contains_ip_string", T.BOOL, [CIDR, T.STRING], True, _contains_ip),
            ("cidr_contains_ip_ip", T.BOOL, [CIDR, IP], True, _contains_ip),
        ),
        decl(
            "containsCIDR",
            ("cidr_contains_cidr_string", T.BOOL, [CIDR, T.STRING], True, _contains_cidr),
            ("cidr_contains_cidr", T.BOOL, [CIDR, CIDR], True, _contains_cidr),
        ),
        decl("prefixLength", ("cidr_prefix_length", T.INT, [CIDR], True, lambda m: _prefix_of(m)[1])),
        decl("masked", ("cidr_masked", CIDR, [CIDR], True, lambda m: _masked(*_prefix_of(m)))),
    ]


def _masked(addr: _Addr, bits: int) -> Any:
    return _cidr(_network(addr, bits).network_address, bits)
