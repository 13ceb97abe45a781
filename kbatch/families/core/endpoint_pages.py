"""``kubectl describe endpoints`` and ``kubectl describe endpointslice``: k8s.io/kubectl
``pkg/describe/describe.go`` ``describeEndpoints`` and ``describeEndpointSliceV1``, line for line
(a level is two spaces of ``PrefixWriter``), then the object's events.
"""

from __future__ import annotations

from kbatch.api.printing import DescribeReader, Obj
from kbatch.families.core.describe_text import annotation_lines, events_about, map_lines, page_and_events

__all__ = ["describe_endpoint_slice_page", "describe_endpoints_page", "endpoint_slice_lines",
           "endpoints_lines"]


def _header(obj: Obj) -> list[str]:
    meta = obj.get("metadata") or {}
    return [f"Name:\t{meta.get('name') or ''}", f"Namespace:\t{meta.get('namespace') or ''}",
            *map_lines("Labels", meta.get("labels") or {}), *annotation_lines(meta.get("annotations") or {})]


def _ips(addresses: list[Obj] | None) -> str:
    return ",".join(a.get("ip") or "" for a in addresses or ()) or "<none>"


def endpoints_lines(ep: Obj) -> list[str]:
    lines = [*_header(ep), "Subsets:"]
    for subset in ep.get("subsets") or ():
        lines += [f"  Addresses:\t{_ips(subset.get('addresses'))}",
                  f"  NotReadyAddresses:\t{_ips(subset.get('notReadyAddresses'))}"]
        if subset.get("ports"):
            lines += ["  Ports:", "    Name\tPort\tProtocol", "    ----\t----\t--------"]
            lines += [f"    {p.get('name') or '<unset>'}\t{p.get('port', 0)}\t{p.get('protocol') or ''}"
                      for p in subset["ports"]]
        lines.append("")
    return lines


def _unset(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "<unset>" if value is None else str(value)


def _endpoint_lines(endpoint: Obj) -> list[str]:
    conditions = endpoint.get("conditions") or {}
    lines = [f"  - Addresses:\t{', '.join(endpoint.get('addresses') or ()) or '<none>'}",
             "    Conditions:", f"      Ready:\t{_unset(conditions.get('ready'))}",
             f"    Hostname:\t{_unset(endpoint.get('hostname'))}"]
    ref = endpoint.get("targetRef")
    if ref is not None:
        lines.append(f"    TargetRef:\t{ref.get('kind') or ''}/{ref.get('name') or ''}")
    return [*lines, f"    NodeName:\t{_unset(endpoint.get('nodeName'))}",
            f"    Zone:\t{_unset(endpoint.get('zone'))}"]


def endpoint_slice_lines(eps: Obj) -> list[str]:
    lines = [*_header(eps), f"AddressType:\t{eps.get('addressType') or ''}"]
    ports = eps.get("ports") or []
    if not ports:
        lines.append("Ports: <unset>")
    else:
        lines += ["Ports:", "  Name\tPort\tProtocol", "  ----\t----\t--------"]
        lines += [f"  {p.get('name') or '<unset>'}\t{_unset(p.get('port'))}\t{p.get('protocol') or ''}"
                  for p in ports]
    endpoints = eps.get("endpoints") or []
    if not endpoints:
        return [*lines, "Endpoints: <none>"]
    lines.append("Endpoints:")
    for endpoint in endpoints:
        lines += _endpoint_lines(endpoint)
    return lines


def describe_endpoints_page(reader: DescribeReader, ep: Obj) -> str:
    events = events_about(reader.list("events"), ep.get("metadata") or {})
    return page_and_events(endpoints_lines(ep), events, reader.now())


def describe_endpoint_slice_page(reader: DescribeReader, eps: Obj) -> str:
    events = events_about(reader.list("events"), eps.get("metadata") or {})
    return page_and_events(endpoint_slice_lines(eps), events, reader.now())
