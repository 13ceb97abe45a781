"""EndpointSlice validation (kubernetes ``pkg/apis/discovery/validation/validation.go``):
``addressType`` required and one of FQDN, IPv4, IPv6 (the deprecated ``IP`` accepted on update
only, and immutable); at most 1000 endpoints, each with 1 to 100 addresses valid for the address
type and not special (:mod:`..endpoint_common`), at most 16 ``deprecatedTopology`` labels, a DNS-1123
label ``hostname``, a node name that is a subdomain, at most 8 zone and 8 node hints; at most 100 ports
with unique names that are DNS-1123 labels, a protocol among SCTP, TCP, UDP, a qualified-name
``appProtocol``.
"""

from __future__ import annotations

from kbatch.api.discovery_v1 import ADDRESS_TYPES, Endpoint, EndpointPort, EndpointSlice
from kbatch.api.errors import FieldError
from kbatch.api.strategies.core.pod_dns_validation import ip_errors
from kbatch.api.strategies.endpoint_common import family_errors, non_special_ip_errors, protocol_errors
from kbatch.api.validation import (
    child,
    index,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    validate_immutable,
    validate_labels,
)

__all__ = ["validate_endpoint_slice", "validate_endpoint_slice_update"]

MAX_TOPOLOGY_LABELS = 16
MAX_ADDRESSES = 100
MAX_PORTS = 100
MAX_ENDPOINTS = 1000
MAX_HINTS = 8


def _address_errors(address: str, address_type: str, path: str) -> list[FieldError]:
    if address_type in ("IPv4", "IPv6"):
        errs = family_errors(address, path, 4 if address_type == "IPv4" else 6)
        return errs + non_special_ip_errors(address, path)
    if address_type == "IP":
        return ip_errors(address, path)
    if address_type == "FQDN":  # IsFullyQualifiedDomainName
        if "." not in address.rstrip("."):
            return [FieldError.invalid(path, address, "should be a domain with at least two segments "
                                                      "separated by dots")]
        return [FieldError.invalid(path, address, m) for m in is_dns1123_subdomain(address.rstrip("."))]
    return []  # an unknown type is refused on its own field


def _endpoint_errors(endpoint: Endpoint, address_type: str, path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    at = child(path, "addresses")
    if not endpoint.addresses:
        errs.append(FieldError.required(at, "must contain at least 1 address"))
    elif len(endpoint.addresses) > MAX_ADDRESSES:
        errs.append(FieldError.too_many(at, len(endpoint.addresses), MAX_ADDRESSES))
    for i, address in enumerate(endpoint.addresses):
        errs += _address_errors(address, address_type, index(at, i))
    topology = endpoint.deprecated_topology or {}
    if len(topology) > MAX_TOPOLOGY_LABELS:
        errs.append(FieldError.too_many(child(path, "deprecatedTopology"), len(topology),
                                        MAX_TOPOLOGY_LABELS))
    errs += validate_labels(topology, child(path, "deprecatedTopology"))
    if endpoint.hostname is not None:
        errs += [FieldError.invalid(child(path, "hostname"), endpoint.hostname, m)
                 for m in is_dns1123_label(endpoint.hostname)]
    if endpoint.node_name is not None:
        errs += [FieldError.invalid(child(path, "nodeName"), endpoint.node_name, m)
                 for m in is_dns1123_subdomain(endpoint.node_name)]
    errs += _hint_errors(endpoint, child(path, "hints"))
    return errs


def _hint_errors(endpoint: Endpoint, path: str) -> list[FieldError]:
    """``validateHints``: at most 8 zones and 8 nodes, each named once, names valid label values."""
    if endpoint.hints is None:
        return []
    errs: list[FieldError] = []
    zones = [z.name for z in endpoint.hints.for_zones or ()]
    nodes = [n.name for n in endpoint.hints.for_nodes or ()]
    for field, names in (("forZones", zones), ("forNodes", nodes)):
        at = child(path, field)
        if len(names) > MAX_HINTS:
            errs.append(FieldError.too_many(at, len(names), MAX_HINTS))
            continue
        seen: set[str] = set()
        for i, name in enumerate(names):
            name_at = child(index(at, i), "name")
            if name in seen:
                errs.append(FieldError.duplicate(name_at, name))
            seen.add(name)
            check = is_dns1123_subdomain if field == "forNodes" else is_qualified_name
            errs += [FieldError.invalid(name_at, name, m) for m in check(name)]
    return errs


def _port_errors(ports: list[EndpointPort]) -> list[FieldError]:
    if len(ports) > MAX_PORTS:
        return [FieldError.too_many("ports", len(ports), MAX_PORTS)]
    errs: list[FieldError] = []
    names: set[str] = set()
    for i, port in enumerate(ports):
        at, name = index("ports", i), port.name or ""
        if name:
            errs += [FieldError.invalid(child(at, "name"), name, m) for m in is_dns1123_label(name)]
        if name in names:
            errs.append(FieldError.duplicate(child(at, "name"), name))
        names.add(name)
        errs += protocol_errors(port.protocol, port.app_protocol, at)
    return errs


def validate_endpoint_slice(obj: EndpointSlice, *, update: bool) -> list[FieldError]:
    """``ValidateEndpointSlice`` with the address types of a create (or, ``update``, of an update)."""
    valid = [*ADDRESS_TYPES, "IP"] if update else list(ADDRESS_TYPES)
    errs: list[FieldError] = []
    if not obj.address_type:
        errs.append(FieldError.required("addressType"))
    elif obj.address_type not in valid:
        errs.append(FieldError.not_supported("addressType", obj.address_type, sorted(valid)))
    endpoints = obj.endpoints or []
    if len(endpoints) > MAX_ENDPOINTS:
        errs.append(FieldError.too_many("endpoints", len(endpoints), MAX_ENDPOINTS))
    else:
        for i, endpoint in enumerate(endpoints):
            errs += _endpoint_errors(endpoint, obj.address_type, index("endpoints", i))
    return errs + _port_errors(obj.ports or [])


def validate_endpoint_slice_update(new: EndpointSlice, old: EndpointSlice) -> list[FieldError]:
    return (validate_endpoint_slice(new, update=True)
            + validate_immutable(new.address_type, old.address_type, "addressType"))
