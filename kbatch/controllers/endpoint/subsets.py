"""The Endpoints object a Service should have: pure (kubernetes ``pkg/controller/endpoint/
endpoints_controller.go`` ``syncService``, ``podToEndpointAddressForService``, ``addEndpointSubset``,
``truncateEndpoints``, ``capacityAnnotationSetCorrectly``).

* each selected pod that should be in endpoints (terminating ones only with
  ``publishNotReadyAddresses``) gives an address: its first IP of the Service's family, its node, the
  pod as target, ``hostname`` when its subdomain is the Service's name;
* it is ready when the pod is Ready or the Service publishes not-ready addresses, else not ready;
  once per Service port the pod has (a headless Service without ports: once, with no port);
* subsets are repacked (:func:`kbatch.api.strategies.core.endpoints_repack.repack_subsets`);
* past 1000 addresses the subsets are truncated, ready ones kept first, each subset keeping its
  proportional share (rounded up), and ``endpoints.kubernetes.io/over-capacity: truncated`` is set.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from kbatch.api.core_v1 import EndpointAddress, EndpointsPort, EndpointSubset, ObjectReference
from kbatch.api.strategies.core.endpoints_repack import repack_subsets
from kbatch.controllers.endpointslice.pods import (
    find_port,
    is_pod_ready,
    pod_ips,
    should_be_in_endpoints,
    should_set_hostname,
)

__all__ = ["MAX_CAPACITY", "capacity_annotation_correct", "desired_subsets", "truncate"]

MAX_CAPACITY = 1000


def _family(service: Any, pod: Any) -> int:
    families = service.spec.ip_families or []
    if families:
        return 6 if families[0] == "IPv6" else 4
    ip = service.spec.cluster_ip
    if ip and ip != "None":
        return 6 if ":" in ip else 4
    first = pod_ips(pod)
    return 6 if first and ":" in first[0] else 4


def _address(service: Any, pod: Any) -> EndpointAddress | None:
    family = _family(service, pod)
    ip = next((ip for ip in pod_ips(pod) if (6 if ":" in ip else 4) == family), None)
    if ip is None:
        return None
    ref = ObjectReference(kind="Pod", namespace=pod.metadata.namespace, name=pod.metadata.name,
                          uid=pod.metadata.uid)
    hostname = pod.spec.hostname if should_set_hostname(pod, service) else None
    return EndpointAddress(ip=ip, node_name=pod.spec.node_name or "", target_ref=ref, hostname=hostname)


def desired_subsets(service: Any, pods: Sequence[Any]) -> list[EndpointSubset]:
    """The repacked subsets of a Service with a selector (module docstring)."""
    tolerate = bool(service.spec.publish_not_ready_addresses)
    subsets: list[EndpointSubset] = []
    for pod in pods:
        if not should_be_in_endpoints(pod, tolerate):
            continue
        address = _address(service, pod)
        if address is None:
            continue
        ready = tolerate or is_pod_ready(pod)
        port_lists: list[list[EndpointsPort]] = []
        if not service.spec.ports and service.spec.cluster_ip == "None":
            port_lists.append([])
        for port in service.spec.ports or ():
            number = find_port(pod, port)
            if number is not None:
                port_lists.append([EndpointsPort(name=port.name or None, port=number, protocol=port.protocol,
                                                 app_protocol=port.app_protocol)])
        for ports in port_lists:
            subsets.append(EndpointSubset(addresses=[address] if ready else None,
                                          not_ready_addresses=None if ready else [address],
                                          ports=ports or None))
    return repack_subsets(subsets)


def _count(subsets: Sequence[EndpointSubset]) -> tuple[int, int]:
    return (sum(len(s.addresses or ()) for s in subsets),
            sum(len(s.not_ready_addresses or ()) for s in subsets))


def capacity_annotation_correct(annotations: dict[str, str] | None,
                                subsets: Sequence[EndpointSubset]) -> bool:
    from kbatch.api.core_v1 import ENDPOINTS_OVER_CAPACITY

    ready, not_ready = _count(subsets)
    if ready + not_ready > MAX_CAPACITY:
        return False
    return ENDPOINTS_OVER_CAPACITY not in (annotations or {})


def truncate(subsets: list[EndpointSubset]) -> bool:
    """``truncateEndpoints``, in place: whether the subsets were over capacity."""
    ready, not_ready = _count(subsets)
    if ready + not_ready <= MAX_CAPACITY:
        return False
    truncate_ready = ready > MAX_CAPACITY
    most, total = (MAX_CAPACITY, ready) if truncate_ready else (MAX_CAPACITY - ready, not_ready)
    room = most
    for i, subset in enumerate(subsets):
        count = len(subset.addresses or ()) if truncate_ready else len(subset.not_ready_addresses or ())
        share = min(math.ceil(count / total * most), room)
        if truncate_ready:
            kept = (subset.addresses or [])[:share]
            subsets[i] = EndpointSubset(addresses=kept or None, not_ready_addresses=None, ports=subset.ports)
            room -= len(kept)
        else:
            kept = (subset.not_ready_addresses or [])[:share]
            subsets[i] = EndpointSubset(addresses=subset.addresses, not_ready_addresses=kept or None,
                                        ports=subset.ports)
            room -= len(kept)
    return True
