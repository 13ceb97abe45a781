"""Builders for the endpointslice-mirroring tests, in the shape of upstream's
``pkg/controller/endpointslicemirroring/reconciler_test.go`` rows (``subsets``, ``existingEndpointSlices``),
and the checks of its ``expectEndpointSlices`` / ``expectMatchingAddresses``."""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import Endpoints
from kbatch.api.discovery_v1 import EndpointSlice
from kbatch.api.strategies.core.endpoints_repack import repack_subsets
from kbatch.controllers.endpointslicemirroring import CONTROLLER_NAME, MirrorPlan
from kbatch.controllers.endpointslicemirroring.desired import address_type
from kbatch.controllers.endpointslicemirroring.reconciler import LAST_APPLIED

__all__ = ["HTTP", "HTTPS", "SELECTORLESS", "addr", "apply_plan", "check_slices", "make_endpoints",
           "make_slice", "ports"]

HTTP = {"name": "http", "port": 80, "protocol": "TCP"}
HTTPS = {"name": "https", "port": 443, "protocol": "UDP"}
TRIGGER = "endpoints.kubernetes.io/last-change-trigger-time"
# a Service without a selector and its Endpoints written by hand, as a user applies them
SELECTORLESS = """\
apiVersion: v1
kind: Service
metadata: {name: ext}
spec:
  ports: [{name: http, port: 80}]
---
apiVersion: v1
kind: Endpoints
metadata: {name: ext, labels: {team: a}}
subsets:
- addresses: [{ip: 192.0.2.10}]
  notReadyAddresses: [{ip: 192.0.2.11}]
  ports: [{name: http, port: 8080, protocol: TCP}]
"""


def ports(*numbers: int) -> list[dict[str, Any]]:
    """``http``/TCP then ``https``/UDP on the given numbers (upstream's port pairs)."""
    names = [("http", "TCP"), ("https", "UDP")]
    return [{"name": n, "port": p, "protocol": proto} for (n, proto), p in zip(names, numbers, strict=False)]


def addr(ip: str, host: str | None = None, node: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"ip": ip}
    if host:
        out["hostname"] = host
    if node:
        out["nodeName"] = node
    return out


def make_endpoints(subsets: list[dict[str, Any]], *, labels: dict[str, str] | None = None,
                   annotations: dict[str, str] | None = None, uid: str = "",
                   deleting: bool = False) -> Endpoints:
    meta: dict[str, Any] = {"name": "test-ep", "namespace": "test", "labels": labels,
                            "annotations": annotations, "uid": uid or None}
    if deleting:
        meta["deletionTimestamp"] = "2025-01-01T00:00:00Z"
    return Endpoints.model_validate({"metadata": meta, "subsets": subsets})


def make_slice(name: str, slice_ports: list[dict[str, Any]], endpoints: list[dict[str, Any]] | None = None, *,
               annotations: dict[str, str] | None = None, owner_uid: str | None = None,
               family: str = "IPv4") -> EndpointSlice:
    """An existing slice as the upstream harness stores it: labelled with the service name and as
    managed by the mirroring controller."""
    labels = {"kubernetes.io/service-name": "test-ep",
              "endpointslice.kubernetes.io/managed-by": CONTROLLER_NAME}
    meta: dict[str, Any] = {"name": name, "namespace": "test", "annotations": annotations,
                            "resourceVersion": "7", "labels": labels}
    if owner_uid is not None:
        owner = {"apiVersion": "v1", "kind": "Endpoints", "name": "test-ep", "uid": owner_uid}
        meta["ownerReferences"] = [owner]
    return EndpointSlice.model_validate({"metadata": meta, "addressType": family, "ports": slice_ports,
                                         "endpoints": endpoints})


def apply_plan(existing: list[EndpointSlice], plan: MirrorPlan) -> tuple[list[EndpointSlice], int]:
    """The slices after the plan's writes (a create gets ``<generateName>n``, n unused), and the write
    count."""
    by_name = {s.metadata.name: s for s in existing}
    for eps in plan.delete:
        del by_name[eps.metadata.name]
    for eps in plan.update:
        assert eps.metadata.name in by_name, eps.metadata.name
        by_name[eps.metadata.name] = eps
    for eps in plan.create:
        names = (f"{eps.metadata.generate_name}{i}" for i in range(len(by_name) + 1))
        name = next(n for n in names if n not in by_name)
        by_name[name] = eps.model_copy(update={"metadata": eps.metadata.model_copy(update={"name": name})})
    return list(by_name.values()), len(plan.create) + len(plan.update) + len(plan.delete)


def _port_tuples(items: Any) -> list[tuple[Any, ...]]:
    return sorted((p.name or "", p.port, p.protocol, p.app_protocol) for p in items or ())


def check_slices(endpoints: Endpoints, slices: list[EndpointSlice], most: int) -> None:
    """``expectEndpointSlices``: names, labels and annotations; each repacked subset's addresses (up
    to ``most``, ready ones first) in the slices of its ports, per address type, ready as listed. No
    slices: nothing to check (as upstream's)."""
    if not slices:
        return
    for eps in slices:
        assert (eps.metadata.name or "").startswith("test-ep")
        assert (eps.metadata.labels or {})["kubernetes.io/service-name"] == "test-ep"
        annotations = eps.metadata.annotations or {}
        assert LAST_APPLIED not in annotations and TRIGGER not in annotations
        for k, v in (endpoints.metadata.annotations or {}).items():
            if k not in (LAST_APPLIED, TRIGGER):
                assert annotations.get(k) == v
    for subset in repack_subsets(endpoints.subsets):
        listed = [(a, True) for a in subset.addresses or ()]
        listed += [(a, False) for a in subset.not_ready_addresses or ()]
        if not listed:
            continue
        mine = [s for s in slices if _port_tuples(s.ports) == _port_tuples(subset.ports)]
        assert mine, f"no slice for the ports {subset.ports}"
        for family in ("IPv4", "IPv6"):
            want: dict[str, tuple[bool, Any]] = {}
            for address, ready in listed:
                if address_type(address.ip) == family and len(want) < most:
                    want[address.ip] = (ready, address)
            got = [e for s in mine if s.address_type == family for e in s.endpoints or ()]
            assert len(got) == len(want)
            for endpoint in got:
                [ip] = endpoint.addresses
                ready, address = want[ip]
                assert endpoint.conditions.ready is ready
                assert endpoint.hostname == (address.hostname or None)
                assert endpoint.node_name == address.node_name
