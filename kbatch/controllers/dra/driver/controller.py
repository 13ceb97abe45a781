"""The ``dra-driver`` controller's reads and writes: which pools report device status (annotated
slices, :data:`kbatch.sim.devices.DEVICE_STATUS_ANNOTATION`), what a claim or slice event queues,
and the status update each node's driver makes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbatch.api.base import format_time
from kbatch.api.core_v1 import Node, Pod
from kbatch.api.errors import NotFound
from kbatch.api.resource_v1 import ResourceClaim, ResourceSlice
from kbatch.apiserver.client import Client
from kbatch.controllers.dra.driver.prepared import pod_claim_names, prepared_nodes
from kbatch.controllers.dra.driver.queueing import claims_of_pool, results
from kbatch.controllers.dra.driver.status import DriverPool, entry_key, merged, wanted_entries
from kbatch.controllers.kubelet.identity import NodeClients
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Request
from kbatch.sim.devices import DEVICE_STATUS_ANNOTATION, NETWORK_ANNOTATION

__all__ = ["DriverStatus"]


class DriverStatus:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx
        self.clients = NodeClients(ctx)
        self.pools: dict[tuple[str, str], DriverPool] = {}
        self.nodes: frozenset[str] = frozenset()  # the nodes of the reporting pools

    # -- what an event queues ------------------------------------------------------------------------
    def claim_request(self, claim: ResourceClaim) -> list[Request]:
        """A claim that holds, or held, devices of a reporting pool (none while no pool reports)."""
        if not self.pools:
            return []
        entries = (claim.status.devices or ()) if claim.status is not None else ()
        if any((r.driver, r.pool) in self.pools for r in (*results(claim), *entries)):
            return [Request(claim.metadata.namespace or "", claim.metadata.name or "")]
        return []

    def pod_claims(self, pod: Pod) -> list[Request]:
        """A pod bound to a node whose driver reports: its claims (the kubelet prepares or
        unprepares them as the pod starts or ends). Nothing for other pods."""
        node = pod.spec.node_name
        if not node or node not in self.nodes:
            return []
        namespace = pod.metadata.namespace or ""
        return [Request(namespace, name) for name in pod_claim_names(pod)]

    def slice_claims(self, slice_: ResourceSlice) -> list[Request]:
        """When the slice is (or was) a reporting pool's: re-read the reporting pools, and queue the
        claims allocated from the slice's pool, in key order. Other slices queue nothing."""
        key = (slice_.spec.driver, slice_.spec.pool.name)
        reporting = (slice_.metadata.annotations or {}).get(DEVICE_STATUS_ANNOTATION) == "true"
        if not reporting and key not in self.pools:
            return []
        self.pools = self._reporting_pools()
        self.nodes = frozenset(pool.node for pool in self.pools.values())
        return claims_of_pool(self.ctx.cache, key)

    def _reporting_pools(self) -> dict[tuple[str, str], DriverPool]:
        pools: dict[tuple[str, str], DriverPool] = {}
        for slice_ in sorted(self.ctx.cache.list(ResourceSlice), key=lambda s: s.metadata.name or ""):
            annotations = slice_.metadata.annotations or {}
            node = slice_.spec.node_name
            if annotations.get(DEVICE_STATUS_ANNOTATION) != "true" or not node:
                continue
            key = (slice_.spec.driver, slice_.spec.pool.name)
            devices = slice_.spec.devices or ()
            attributes: dict[str, Mapping[str, Any]] = {d.name: _attributes(d) for d in devices}
            known = pools.get(key)
            if known is not None:
                attributes = {**known.attributes, **attributes}
            pools[key] = DriverPool(node, annotations.get(NETWORK_ANNOTATION) == "true", self._host(node),
                                    attributes)
        return pools

    def _host(self, node: str) -> int:
        """The node's host number: the last part of its InternalIP (1 when it has none)."""
        try:
            found = self.ctx.cache.get(Node, node)
        except NotFound:
            return 1
        for address in (found.status.addresses if found.status else None) or ():
            if address.type == "InternalIP" and address.address.count(".") == 3:
                return int(address.address.rsplit(".", 1)[1])
        return 1

    # -- the write -------------------------------------------------------------------------------------
    def reconcile(self, request: Request) -> None:
        try:
            claim = self.ctx.cache.get(ResourceClaim, request.name, request.namespace)
        except NotFound:
            return
        now = format_time(self.ctx.clock.now_datetime())
        prepared = prepared_nodes(self.ctx.cache, claim, self.nodes)
        wanted = wanted_entries(claim, self.pools, now, prepared)
        for node in sorted({p.node for p in self.pools.values()}):
            ours = {key for key, pool in self.pools.items() if pool.node == node}
            mine = {k: v for k, v in wanted.items() if (k[0], k[1]) in ours}
            current = [d.to_dict() for d in (claim.status.devices or ())] if claim.status else []
            if not mine and not any((entry_key(e)[0], entry_key(e)[1]) in ours for e in current):
                continue
            devices = merged(current, mine, ours)
            if devices is not None:
                claim = self._write(self.clients(node), claim, devices)

    @staticmethod
    def _write(client: Client, claim: ResourceClaim, devices: list[dict[str, Any]]) -> ResourceClaim:
        """The driver's status update (optimistic concurrency: a conflict is retried by the queue)."""
        body = claim.to_dict()
        body.setdefault("status", {})["devices"] = devices or None
        stored: ResourceClaim = client.update_status(ResourceClaim.model_validate(body))
        return stored


def _attributes(device: Any) -> dict[str, Any]:
    """A device's attributes as plain values (``model``, ``index``, ``driverVersion``, …)."""
    out: dict[str, Any] = {}
    for name, value in (device.attributes or {}).items():
        for kind in ("string", "int_", "bool_", "version"):
            found = getattr(value, kind, None)
            if found is not None:
                out[name] = found
                break
    return out
