"""The ``node-ipam-controller``'s range allocator (upstream ``pkg/controller/nodeipam``,
``ipam/range_allocator.go``), as kind / kubeadm run it: ``--allocate-node-cidrs=true``,
``--cluster-cidr=10.244.0.0/16``, ``--node-cidr-mask-size=24``.

Per Node (requests are nodes):

1. on its first reconcile the allocator marks every range the cached nodes already hold as used
   (upstream's ``NewCIDRRangeAllocator`` occupies the listed nodes' ``podCIDRs`` before it starts),
   so an existing assignment is never handed out twice;
2. a node that has ``spec.podCIDRs`` keeps them (``Occupy``); one without gets the next free range
   (``AllocateNext``) in ``spec.podCIDR`` and ``spec.podCIDRs`` by one patch
   (``updateCIDRsAllocation``; both fields are immutable once set, API validation);
3. when no range is left the node gets a ``CIDRNotAvailable`` event (``RecordNodeStatusChange``:
   Normal, "Node <name> status is now: CIDRNotAvailable") and waits for a range to be released;
4. a deleted node's range is released (``ReleaseCIDR``) and nodes still waiting are served.

Options (``options={"node-ipam-controller": {...}}``): ``cluster_cidr`` (``10.244.0.0/16``),
``node_cidr_mask_size`` (24), ``allocate_node_cidrs`` (True; False: the controller does nothing, as
upstream without the flag). IPv4 single-stack only (docs/simulation.md, "Pod and node addresses").
"""

from __future__ import annotations

from typing import Any

from kbatch.api.errors import NotFound
from kbatch.controllers.nodeipam.cidrset import CidrSet, CidrSetError, RangeExhausted
from kbatch.runtime.context import ControllerContext

__all__ = ["CLUSTER_CIDR", "NODE_CIDR_MASK_SIZE", "RangeAllocator"]

CLUSTER_CIDR = "10.244.0.0/16"  # kind's default podSubnet (kubeadm's --cluster-cidr)
NODE_CIDR_MASK_SIZE = 24  # kube-controller-manager's default --node-cidr-mask-size for IPv4


class RangeAllocator:
    def __init__(self, ctx: ControllerContext) -> None:
        from kbatch.api.core_v1 import Node

        self.ctx, self.Node = ctx, Node
        options = ctx.options
        self.enabled = bool(options.get("allocate_node_cidrs", True))
        self.cidrs = CidrSet.parse(str(options.get("cluster_cidr", CLUSTER_CIDR)),
                                   int(options.get("node_cidr_mask_size", NODE_CIDR_MASK_SIZE)))
        self.assigned: dict[str, str] = {}  # node name -> the range it holds (released on delete)
        self.waiting: set[str] = set()  # nodes told CIDRNotAvailable, served when a range frees up
        self._synced = False

    def reconcile(self, request: Any) -> None:
        if not self.enabled:
            return
        if not self._synced:
            self._occupy_existing()
        try:
            node = self.ctx.cache.get(self.Node, request.name)
        except NotFound:
            self._release(request.name)
            return
        self._sync(node)

    def _occupy_existing(self) -> None:
        self._synced = True
        for node in sorted(self.ctx.cache.list(self.Node), key=lambda n: n.metadata.name or ""):
            if node.spec.pod_cidrs:
                self._occupy(node)

    def _occupy(self, node: Any) -> None:
        name = node.metadata.name or ""
        for cidr in node.spec.pod_cidrs or ():
            try:
                self.cidrs.occupy(cidr)
            except CidrSetError:
                continue  # outside the cluster CIDR: upstream logs it and leaves the node alone
            self.assigned.setdefault(name, cidr)

    def _sync(self, node: Any) -> None:
        name = node.metadata.name or ""
        if node.spec.pod_cidrs:
            if name not in self.assigned:
                self._occupy(node)
            self.waiting.discard(name)
            return
        try:
            cidr = str(self.cidrs.allocate_next())
        except RangeExhausted:
            if name not in self.waiting:
                self.waiting.add(name)
                self.ctx.recorder.event(node, "Normal", "CIDRNotAvailable",
                                        f"Node {name} status is now: CIDRNotAvailable")
            return
        try:
            self.ctx.client.patch(self.Node, name, {"spec": {"podCIDR": cidr, "podCIDRs": [cidr]}})
        except NotFound:
            self.cidrs.release(cidr)
            return
        self.assigned[name] = cidr
        self.waiting.discard(name)

    def _release(self, name: str) -> None:
        self.waiting.discard(name)
        cidr = self.assigned.pop(name, None)
        if cidr is None:
            return
        self.cidrs.release(cidr)
        for waiting in sorted(self.waiting):
            try:
                node = self.ctx.cache.get(self.Node, waiting)
            except NotFound:
                self.waiting.discard(waiting)
                continue
            self._sync(node)
