"""Builders for the endpointslice tests: Services, pods and slices as upstream's reconciler tests build
them (k8s.io/endpointslice ``reconciler_test.go`` ``newServiceAndEndpointMeta``, ``newPod``)."""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import Pod, Service

__all__ = ["T0", "make_pod", "make_service", "nodes_all", "nodes_none"]

T0 = "2025-01-01T00:00:00Z"


def make_service(name: str = "foo", *, namespace: str = "default", headless: bool = False,
                 selector: dict[str, str] | None = None, ports: list[dict[str, Any]] | None = None,
                 publish_not_ready: bool = False, labels: dict[str, str] | None = None) -> Service:
    spec: dict[str, Any] = {
        "selector": {"foo": "bar"} if selector is None else selector,
        "ports": ports if ports is not None else [{"name": "http", "port": 80, "protocol": "TCP",
                                                   "targetPort": 80}],
        "clusterIP": "None" if headless else "10.0.0.10", "ipFamilies": ["IPv4"],
        "publishNotReadyAddresses": publish_not_ready}
    return Service.model_validate({"metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}",
                                                "creationTimestamp": T0, "labels": labels},
                                   "spec": spec})


def make_pod(n: int, *, ready: bool = True, ip: str | None = "", terminating: bool = False,
             phase: str = "Running", node: str = "node-1", labels: dict[str, str] | None = None,
             hostname: str | None = None, subdomain: str | None = None,
             container_ports: list[dict[str, Any]] | None = None, namespace: str = "default") -> Pod:
    """``newPod``: pod ``pod<n>`` at ``1.2.3.<4+n>`` (``ip`` given: that one; None: no address)."""
    address = f"1.2.{(4 + n) // 250}.{(4 + n) % 250 + 1}" if ip == "" else ip
    status: dict[str, Any] = {"phase": phase, "conditions": [
        {"type": "Ready", "status": "True" if ready else "False", "lastTransitionTime": T0}]}
    if address:
        status |= {"podIP": address, "podIPs": [{"ip": address}]}
    meta: dict[str, Any] = {"name": f"pod{n}", "namespace": namespace, "uid": f"uid-pod{n}",
                            "labels": {"foo": "bar"} if labels is None else labels, "resourceVersion": "1"}
    if terminating:
        meta["deletionTimestamp"] = T0
    spec = {"nodeName": node, "hostname": hostname, "subdomain": subdomain,
            "containers": [{"name": "c", "image": "busybox", "ports": container_ports}]}
    return Pod.model_validate({"metadata": meta, "spec": spec, "status": status})


def nodes_all(name: str) -> tuple[bool, str | None]:
    """Every node exists, in zone ``zone-<name>``."""
    return True, f"zone-{name}"


def nodes_none(name: str) -> tuple[bool, str | None]:
    return False, None
