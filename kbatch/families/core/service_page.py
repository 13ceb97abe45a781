"""``kubectl describe service``: k8s.io/kubectl ``pkg/describe/describe.go`` ``ServiceDescriber`` and
``describeService``, line for line, with ``formatEndpointSlices``.

Name, Namespace, Labels, Annotations, Selector (``labels.FormatLabels``: sorted ``k=v`` joined by
commas, ``<none>``), Type, IP Family Policy, IP Families, IP, IPs, External IPs, Desired LoadBalancer
IP, External Name, LoadBalancer Ingress; per port: Port, TargetPort, AppProtocol (kubectl's source at
1.37; kubectl 1.32 prints none), NodePort and
Endpoints (the ready addresses of the Service's EndpointSlices, those labelled
``kubernetes.io/service-name``, that carry this port's name; ``<none>`` without slices; three then
`` + N more...``, counted as kubectl counts them); Session Affinity, the traffic policies, HealthCheck
NodePort, LoadBalancer Source Ranges, Traffic Distribution; then the events. A headless Service
without ports has no Endpoints line, as in kubectl.
"""

from __future__ import annotations

from kbatch.api.printing import DescribeReader, Obj
from kbatch.families.core.describe_text import annotation_lines, events_about, map_lines, page_and_events

__all__ = ["describe_service_page", "format_endpoint_slices", "service_lines"]

_MAX = 3


def _host_port(ip: str, port: object) -> str:
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"  # net.JoinHostPort


def _ready(endpoint: Obj) -> bool:
    ready = (endpoint.get("conditions") or {}).get("ready")
    return ready is None or bool(ready)  # unknown counts as ready


def format_endpoint_slices(slices: list[Obj], port_name: str) -> str:
    """``formatEndpointSlices`` for one Service port's name (its quirks kept: ``more`` is set by the
    next endpoint once three are listed, ready or not)."""
    if not slices:
        return "<none>"
    shown: list[str] = []
    count, more = 0, False
    for eps in slices:
        ports = eps.get("ports") or []
        groups = ([(None, eps)] if not ports else
                  [(p.get("port"), eps) for p in ports if (p.get("name") or "") == port_name])
        for number, _ in groups:
            for endpoint in eps.get("endpoints") or ():
                if len(shown) == _MAX:
                    more = True
                if not _ready(endpoint):
                    continue
                if not more:
                    address = (endpoint.get("addresses") or [""])[0]
                    shown.append(address if number is None else _host_port(address, number))
                count += 1
    text = ",".join(shown)
    return f"{text} + {count - _MAX} more..." if more else text


def _ingress(status: Obj) -> str:
    """``buildIngressString``."""
    parts = []
    for ingress in ((status.get("loadBalancer") or {}).get("ingress") or ()):
        if ingress.get("ip"):
            mode = f" ({ingress['ipMode']})" if ingress.get("ipMode") else ""
            parts.append(ingress["ip"] + mode)
        else:
            parts.append(ingress.get("hostname") or "")
    return ", ".join(parts)


def _port_lines(port: Obj, slices: list[Obj]) -> list[str]:
    name, protocol = port.get("name") or "<unset>", port.get("protocol") or ""
    lines = [f"Port:\t{name}\t{port.get('port', 0)}/{protocol}",
             f"TargetPort:\t{port.get('targetPort', 0)}/{protocol}"]
    if port.get("appProtocol") is not None:
        lines.append(f"AppProtocol:\t{port['appProtocol']}")
    if port.get("nodePort"):
        lines.append(f"NodePort:\t{name}\t{port['nodePort']}/{protocol}")
    return [*lines, f"Endpoints:\t{format_endpoint_slices(slices, port.get('name') or '')}"]


def _address_lines(spec: Obj, status: Obj) -> list[str]:
    lines = []
    if spec.get("ipFamilyPolicy") is not None:
        lines.append(f"IP Family Policy:\t{spec['ipFamilyPolicy']}")
    lines += [f"IP Families:\t{','.join(spec.get('ipFamilies') or ()) or '<none>'}",
              f"IP:\t{spec.get('clusterIP') or ''}",
              f"IPs:\t{','.join(spec.get('clusterIPs') or ()) or '<none>'}"]
    optional = (("External IPs", ",".join(spec.get("externalIPs") or ())),
                ("Desired LoadBalancer IP", spec.get("loadBalancerIP") or ""),
                ("External Name", spec.get("externalName") or ""), ("LoadBalancer Ingress", _ingress(status)))
    return lines + [f"{label}:\t{value}" for label, value in optional if value]


def _policy_lines(spec: Obj) -> list[str]:
    optional = (("External Traffic Policy", spec.get("externalTrafficPolicy") or ""),
                ("Internal Traffic Policy", spec.get("internalTrafficPolicy") or ""),
                ("HealthCheck NodePort", str(spec.get("healthCheckNodePort") or "")),
                ("LoadBalancer Source Ranges", ",".join(spec.get("loadBalancerSourceRanges") or ())),
                ("Traffic Distribution", spec.get("trafficDistribution") or ""))
    return [f"Session Affinity:\t{spec.get('sessionAffinity') or ''}",
            *(f"{label}:\t{value}" for label, value in optional if value)]


def service_lines(svc: Obj, slices: list[Obj]) -> list[str]:
    """The page above its events; ``slices`` are the Service's EndpointSlices."""
    meta, spec, status = svc.get("metadata") or {}, svc.get("spec") or {}, svc.get("status") or {}
    selector = ",".join(f"{k}={v}" for k, v in sorted((spec.get("selector") or {}).items())) or "<none>"
    lines = [f"Name:\t{meta.get('name') or ''}", f"Namespace:\t{meta.get('namespace') or ''}",
             *map_lines("Labels", meta.get("labels") or {}), *annotation_lines(meta.get("annotations") or {}),
             f"Selector:\t{selector}", f"Type:\t{spec.get('type') or ''}", *_address_lines(spec, status)]
    for port in spec.get("ports") or ():
        lines += _port_lines(port, slices)
    return lines + _policy_lines(spec)


def _of_service(eps: Obj, meta: Obj) -> bool:
    """The ServiceDescriber's list: the namespace's slices labelled with the Service's name."""
    eps_meta = eps.get("metadata") or {}
    return bool(eps_meta.get("namespace") == meta.get("namespace")
                and (eps_meta.get("labels") or {}).get("kubernetes.io/service-name") == meta.get("name"))


def describe_service_page(reader: DescribeReader, svc: Obj) -> str:
    meta = svc.get("metadata") or {}
    slices = [s for s in reader.list("endpointslices.discovery.k8s.io") if _of_service(s, meta)]
    events = events_about(reader.list("events"), meta)
    return page_and_events(service_lines(svc, slices), events, reader.now())
