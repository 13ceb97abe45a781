"""Address and port checks shared by core/v1 Endpoints and discovery.k8s.io/v1 EndpointSlice (kubernetes
``pkg/apis/core/validation/validation.go`` ``ValidateNonSpecialIP``, ``validateEndpointPort``;
``pkg/apis/discovery/validation`` ``validatePorts``; k8s.io/apimachinery ``pkg/util/validation/ip.go``
``IsValidIPv4Address``/``IsValidIPv6Address``).

An endpoint may not be an address a node uses for itself: unspecified, loopback, link-local
unicast or link-local multicast (the metadata service lives there).
"""

from __future__ import annotations

import ipaddress

from kbatch.api.errors import FieldError
from kbatch.api.validation import child, is_qualified_name

__all__ = ["PROTOCOLS", "family_errors", "non_special_ip_errors", "protocol_errors"]

PROTOCOLS = ["SCTP", "TCP", "UDP"]


def _parse(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(value)
    except ValueError:
        return None


def _link_local_multicast(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(ip, ipaddress.IPv4Address):
        return ip in ipaddress.IPv4Network("224.0.0.0/24")
    return ip.is_multicast and (ip.packed[1] & 0x0F) == 0x02  # Go's IsLinkLocalMulticast: ff02::/16 scope


def non_special_ip_errors(value: str, path: str) -> list[FieldError]:
    """``ValidateNonSpecialIP``: each special range its own error, as upstream lists them."""
    ip = _parse(value)
    if ip is None:
        return [FieldError.invalid(path, value, "must be a valid IP address")]
    errs: list[FieldError] = []
    if ip.is_unspecified:
        errs.append(FieldError.invalid(path, value, f"may not be unspecified ({value})"))
    if ip.is_loopback:
        errs.append(FieldError.invalid(path, value,
                                       "may not be in the loopback range (127.0.0.0/8, ::1/128)"))
    if ip.is_link_local:
        errs.append(FieldError.invalid(path, value, "may not be in the link-local range (169.254.0.0/16, "
                                                    "fe80::/10)"))
    if _link_local_multicast(ip):
        errs.append(FieldError.invalid(path, value, "may not be in the link-local multicast range "
                                                    "(224.0.0.0/24, ff02::/10)"))
    return errs


def family_errors(value: str, path: str, family: int) -> list[FieldError]:
    """``IsValidIPv4Address`` / ``IsValidIPv6Address``: a valid address of that family."""
    ip = _parse(value)
    if ip is None or ip.version != family:
        return [FieldError.invalid(path, value, f"must be a valid IPv{family} address")]
    return []


def protocol_errors(protocol: str | None, app_protocol: str | None, path: str) -> list[FieldError]:
    """A port's ``protocol`` (required, one of :data:`PROTOCOLS`) and ``appProtocol`` (a qualified name)."""
    errs: list[FieldError] = []
    if not protocol:
        errs.append(FieldError.required(child(path, "protocol")))
    elif protocol not in PROTOCOLS:
        errs.append(FieldError.not_supported(child(path, "protocol"), protocol, PROTOCOLS))
    if app_protocol is not None:
        errs += [FieldError.invalid(child(path, "appProtocol"), app_protocol, m)
                 for m in is_qualified_name(app_protocol)]
    return errs
