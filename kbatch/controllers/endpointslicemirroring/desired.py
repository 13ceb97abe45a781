"""What the mirrored EndpointSlices of one Endpoints should hold: pure (kubernetes
``pkg/controller/endpointslicemirroring``: ``reconciler.go`` ``reconcile``'s first half,
``reconciler_helpers.go`` ``desiredCalc``, ``utils.go`` ``addressToEndpoint``, ``getAddressType``,
``epPortsToEpsPorts``, ``newEndpointSlice``).

* The subsets are repacked first (``RepackSubsets``), so a subset is one port set.
* Each address becomes one endpoint: its IP as written, ``conditions.ready`` (true for
  ``addresses``, false for ``notReadyAddresses``), ``nodeName``, ``hostname`` and ``targetRef`` as
  given. Its address type is the IP's family; an address that is not an IP is skipped (counted
  ``invalid``: upstream's ``InvalidIPAddress`` Warning).
* At most ``most`` addresses of a subset are mirrored (``--mirroring-max-endpoints-per-subset``,
  1000), ready ones first; the rest are skipped (``TooManyAddressesToMirror``).
* Endpoints are grouped by (address type, port set): one group is one slice.

Where upstream keeps a group's endpoints in a set and pops any, kbatch keeps them in the order the
repacked subsets list them, so the same Endpoints gives the same slices.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from kbatch.api.core_v1 import EndpointAddress, Endpoints, EndpointsPort, EndpointSubset
from kbatch.api.discovery_v1 import Endpoint, EndpointConditions, EndpointPort
from kbatch.api.strategies.core.endpoints_repack import repack_subsets

__all__ = ["MAX_ENDPOINTS_PER_SUBSET", "Desired", "Group", "GroupKey", "address_type", "desired_groups",
           "endpoint_key", "port_key"]

MAX_ENDPOINTS_PER_SUBSET = 1000  # --mirroring-max-endpoints-per-subset (config/v1alpha1/defaults.go)

PortKey = tuple[tuple[str, str, int, str], ...]
GroupKey = tuple[str, PortKey]  # (address type, port set): upstream's addrTypePortMapKey
EndpointKey = tuple[tuple[str, ...], str, str, str]


@dataclass
class Group:
    """One slice's worth: its ports and its endpoints by :func:`endpoint_key` (insertion ordered)."""

    address_type: str
    ports: list[EndpointPort]
    endpoints: dict[EndpointKey, Endpoint] = field(default_factory=dict)


@dataclass
class Desired:
    groups: dict[GroupKey, Group] = field(default_factory=dict)
    invalid: int = 0  # addresses that are not IPs
    skipped: int = 0  # addresses not mirrored: invalid or past the per-subset maximum


def address_type(ip: str) -> str | None:
    """``getAddressType``: ``IPv4``/``IPv6`` as Go's ``ParseIPSloppy`` reads it (IPv4 octets may have
    leading zeros), None for anything else."""
    try:
        return "IPv6" if ipaddress.ip_address(ip).version == 6 else "IPv4"
    except ValueError:
        pass
    parts = ip.split(".")
    if len(parts) == 4 and all(p.isdigit() and p.isascii() and int(p) <= 255 for p in parts):
        return "IPv4"
    return None


def port_key(ports: list[EndpointPort] | None) -> PortKey:
    """``NewPortMapKey``: the port set, order aside."""
    return tuple(sorted((p.name or "", p.protocol or "", p.port or 0, p.app_protocol or "")
                        for p in ports or ()))


def endpoint_key(endpoint: Endpoint) -> EndpointKey:
    """``hashEndpoint`` (k8s.io/endpointslice ``util/endpointset.go``): addresses, hostname, target."""
    ref = endpoint.target_ref
    return (tuple(sorted(endpoint.addresses)), endpoint.hostname or "",
            (ref.namespace or "") if ref else "", (ref.name or "") if ref else "")


def _ports(ports: list[EndpointsPort] | None) -> list[EndpointPort]:
    """``epPortsToEpsPorts``."""
    return [EndpointPort(name=p.name or "", port=p.port, protocol=p.protocol, app_protocol=p.app_protocol)
            for p in ports or ()]


def _endpoint(address: EndpointAddress, ready: bool) -> Endpoint:
    """``addressToEndpoint``."""
    return Endpoint(addresses=[address.ip], conditions=EndpointConditions(ready=ready),
                    target_ref=address.target_ref, node_name=address.node_name,
                    hostname=address.hostname or None)


def _add_subset(desired: Desired, subset: EndpointSubset, most: int) -> None:
    ports = _ports(subset.ports)
    pkey = port_key(ports)
    listed = [(a, True) for a in subset.addresses or ()]
    listed += [(a, False) for a in subset.not_ready_addresses or ()]
    added = 0
    for address, ready in listed:
        if added >= most:
            break
        family = address_type(address.ip)
        if family is None:
            desired.invalid += 1
            continue
        group = desired.groups.setdefault((family, pkey), Group(family, ports))
        endpoint = _endpoint(address, ready)
        group.endpoints[endpoint_key(endpoint)] = endpoint
        added += 1
    desired.skipped += len(listed) - added


def desired_groups(endpoints: Endpoints, most: int = MAX_ENDPOINTS_PER_SUBSET) -> Desired:
    """The groups of ``endpoints`` (module docstring)."""
    desired = Desired()
    for subset in repack_subsets(endpoints.subsets):
        _add_subset(desired, subset, most)
    return desired
