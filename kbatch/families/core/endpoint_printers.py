"""The ``kubectl get`` columns of core/v1 Endpoints and discovery.k8s.io/v1 EndpointSlice (k8s.io/kubernetes
``pkg/printers/internalversion/printers.go``: ``printEndpoints`` with ``formatEndpoints``,
``printEndpointSlice`` with ``formatDiscoveryPorts`` and ``formatDiscoveryEndpoints``).

At most three entries are shown, then `` + N more...``. An Endpoints object without subsets shows
``<none>``, one whose addresses are all not ready an empty cell; an EndpointSlice without ports or
endpoints shows ``<unset>``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbatch.api.printing import AGE, NAME, Column, Obj, Printer, creation_age, name_of

__all__ = ["ENDPOINTS", "ENDPOINT_SLICE", "format_endpoints"]

_MAX = 3


def _host_port(ip: str, port: int) -> str:
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"  # net.JoinHostPort


def format_endpoints(ep: Obj) -> str:
    subsets = ep.get("subsets") or []
    if not subsets:
        return "<none>"
    shown: list[str] = []
    count, more = 0, False
    for subset in subsets:
        addresses = subset.get("addresses") or []
        entries = ([[a.get("ip") or "" for a in addresses]] if not subset.get("ports") else
                   [[_host_port(a.get("ip") or "", p.get("port", 0)) for a in addresses]
                    for p in subset["ports"]])
        for group in entries:
            count += len(group)
            for entry in group:
                if len(shown) == _MAX:
                    more = True
                    break
                shown.append(entry)
    text = ",".join(shown)
    return f"{text} + {count - _MAX} more..." if more else text


def _list_with_more(values: list[str]) -> str:
    text = ",".join(values[:_MAX])
    if len(values) > _MAX:
        return f"{text} + {len(values) - _MAX} more..."
    return text or "<unset>"


def _port_text(port: Obj) -> str:
    if port.get("port") is not None:
        return str(port["port"])
    return str(port["name"]) if port.get("name") is not None else "*"


def _endpoints_cells(ep: Obj, now: datetime) -> list[Any]:
    return [name_of(ep), format_endpoints(ep), creation_age(ep, now)]


def _slice_cells(eps: Obj, now: datetime) -> list[Any]:
    ports = [_port_text(p) for p in eps.get("ports") or ()]
    addresses = [a for e in eps.get("endpoints") or () for a in e.get("addresses") or ()]
    return [name_of(eps), eps.get("addressType") or "", _list_with_more(ports), _list_with_more(addresses),
            creation_age(eps, now)]


ENDPOINTS = Printer((NAME, Column("Endpoints"), AGE), _endpoints_cells)
ENDPOINT_SLICE = Printer((NAME, Column("AddressType"), Column("Ports"), Column("Endpoints"), AGE),
                         _slice_cells)
