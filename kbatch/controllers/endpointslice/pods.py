"""Which pods a Service's endpoints hold, and as what: the decisions the endpointslice and endpoints
controllers share (k8s.io/endpointslice ``util/controller_utils.go``: ``ShouldPodBeInEndpoints``,
``ShouldSetHostname``, ``podEndpointsChanged``, ``getServicesForPod``; ``utils.go`` ``FindPort``).

* a pod is in a Service's endpoints when it is not terminal (Succeeded or Failed), has an address
  (``status.podIP(s)``: kbatch's kubelet writes one only with the ``node-ipam-controller`` on,
  docs/simulation.md "Pod and node addresses") and, unless terminating pods are asked for, is not
  being deleted;
* a Service port's ``targetPort`` is a number, used as is, or a name looked up among the containers'
  ports (then the restartable init containers', sidecars) with the Service port's protocol; a pod
  without it is left out of that port's endpoints;
* an endpoint carries the pod's ``spec.hostname`` when its ``spec.subdomain`` is the Service's name;
* a pod update matters when its labels, hostname or subdomain changed (the Services selecting it may
  change) or its deletion, readiness or addresses did.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["find_port", "is_pod_ready", "pod_endpoints_changed", "pod_ips", "selects",
           "should_be_in_endpoints",
           "should_set_hostname"]


def is_pod_ready(pod: Any) -> bool:
    """``IsPodReady``: the ``Ready`` condition is True."""
    status = pod.status
    for cond in (status.conditions if status is not None else None) or ():
        if cond.type == "Ready":
            return bool(cond.status == "True")
    return False


def pod_ips(pod: Any) -> list[str]:
    status = pod.status
    if status is None:
        return []
    if status.pod_ips:
        return [ip.ip for ip in status.pod_ips if ip.ip]
    return [status.pod_ip] if status.pod_ip else []


def should_be_in_endpoints(pod: Any, include_terminating: bool) -> bool:
    status = pod.status
    if status is not None and status.phase in ("Succeeded", "Failed"):
        return False
    if not pod_ips(pod):
        return False
    return include_terminating or pod.metadata.deletion_timestamp is None


def should_set_hostname(pod: Any, service: Any) -> bool:
    return bool(pod.spec.hostname) and pod.spec.subdomain == service.metadata.name \
        and pod.metadata.namespace == service.metadata.namespace


def _named_port(containers: Iterable[Any], name: str, protocol: str | None) -> int | None:
    for container in containers:
        for port in container.ports or ():
            if port.name == name and (port.protocol or "TCP") == (protocol or "TCP"):
                return int(port.container_port)
    return None


def find_port(pod: Any, service_port: Any) -> int | None:
    """``FindPort``: the pod's port for a Service port, or None."""
    target = service_port.target_port
    if isinstance(target, int):
        return target
    if not target:
        return None
    found = _named_port(pod.spec.containers or (), target, service_port.protocol)
    if found is None:
        sidecars = [c for c in pod.spec.init_containers or () if c.restart_policy == "Always"]
        found = _named_port(sidecars, target, service_port.protocol)
    return found


def selects(selector: Mapping[str, str] | None, labels: Mapping[str, str] | None) -> bool:
    """A Service selector (a set selector; ``None`` selects nothing, ``{}`` everything)."""
    if selector is None:
        return False
    have = labels or {}
    return all(have.get(k) == v for k, v in selector.items())


def pod_endpoints_changed(old: Any, new: Any) -> bool:
    """``podEndpointsChanged``, both halves: membership (labels, hostname, subdomain) or endpoint."""
    if old.metadata.resource_version == new.metadata.resource_version:
        return False
    if (old.metadata.labels or {}) != (new.metadata.labels or {}) or old.spec.hostname != new.spec.hostname \
            or old.spec.subdomain != new.spec.subdomain:
        return True
    if old.metadata.deletion_timestamp != new.metadata.deletion_timestamp:
        return True
    return is_pod_ready(old) != is_pod_ready(new) or pod_ips(old) != pod_ips(new)
