"""core/v1 Endpoints subsets in their canonical layout (kubernetes ``pkg/api/v1/endpoints/util.go``
``RepackSubsets``, which the Endpoints strategy runs as ``Canonicalize`` and the endpoints controller
before comparing).

Every (address, port) pair is expanded, then addresses offering the same ports are packed into one
subset: an address listed both ready and not ready is ready; an address is its IP and its target's
uid. Subsets with no port keep their addresses (upstream's sentinel port). Order: addresses by IP
then uid, as upstream; ports and subsets upstream sort by a hash of their Go dump, kbatch by
(name, port, protocol) and by the subset's first address (a deterministic order of its own).
"""

from __future__ import annotations

from collections.abc import Iterable

from kbatch.api.core_v1 import EndpointAddress, EndpointsPort, EndpointSubset

__all__ = ["repack_subsets"]

_Key = tuple[str, str]  # (ip, target uid)
_PortKey = tuple[str, int, str, str]  # (name, port, protocol, appProtocol)
_NO_PORT: _PortKey = ("", -1, "", "")


def _address_key(address: EndpointAddress) -> _Key:
    return address.ip, (address.target_ref.uid or "") if address.target_ref else ""


def _port_key(port: EndpointsPort) -> _PortKey:
    return port.name or "", port.port, port.protocol or "", port.app_protocol or ""


def _expand(subsets: Iterable[EndpointSubset]) -> tuple[dict[_Key, EndpointAddress],
                                                         dict[_PortKey, dict[_Key, bool]],
                                                         dict[_PortKey, EndpointsPort]]:
    """(every address by key, each port's addresses with their readiness, each port by key)."""
    addresses: dict[_Key, EndpointAddress] = {}
    by_port: dict[_PortKey, dict[_Key, bool]] = {}
    ports: dict[_PortKey, EndpointsPort] = {}
    for subset in subsets:
        keys = [_port_key(p) for p in subset.ports or ()] or [_NO_PORT]
        ports.update({_port_key(p): p for p in subset.ports or ()})
        for pk in keys:
            ready = by_port.setdefault(pk, {})
            for address in subset.addresses or ():
                addresses.setdefault(_address_key(address), address)
                ready[_address_key(address)] = True
            for address in subset.not_ready_addresses or ():
                addresses.setdefault(_address_key(address), address)
                ready.setdefault(_address_key(address), False)
    return addresses, by_port, ports


def repack_subsets(subsets: Iterable[EndpointSubset] | None) -> list[EndpointSubset]:
    """``RepackSubsets``: a new list in the canonical layout (module docstring)."""
    addresses, by_port, ports = _expand(subsets or ())
    groups: dict[tuple[tuple[_Key, bool], ...], list[_PortKey]] = {}
    for pk in sorted(by_port):
        group = groups.setdefault(tuple(sorted(by_port[pk].items())), [])
        if pk != _NO_PORT:
            group.append(pk)
    out: list[EndpointSubset] = []
    for members, port_keys in groups.items():
        ready = [addresses[k] for k, is_ready in members if is_ready]
        not_ready = [addresses[k] for k, is_ready in members if not is_ready]
        out.append(EndpointSubset(addresses=ready or None, not_ready_addresses=not_ready or None,
                                  ports=[ports[pk] for pk in port_keys] or None))
    return sorted(out, key=_subset_order)


def _subset_order(subset: EndpointSubset) -> tuple[_Key, tuple[_PortKey, ...]]:
    first = (subset.addresses or subset.not_ready_addresses or [EndpointAddress()])[0]
    return _address_key(first), tuple(_port_key(p) for p in subset.ports or ())
