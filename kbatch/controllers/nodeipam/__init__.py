"""``node-ipam-controller`` (upstream ``pkg/controller/nodeipam``, the range allocator): one pod
range (``spec.podCIDR`` / ``spec.podCIDRs``) per Node out of the cluster CIDR, as kind sets it up
(``10.244.0.0/16``, a ``/24`` per node). The simulated kubelet hands out pod addresses from it."""

from __future__ import annotations

from kbatch.controllers.nodeipam.cidrset import CidrSet, CidrSetError, RangeExhausted
from kbatch.controllers.nodeipam.controller import CLUSTER_CIDR, NODE_CIDR_MASK_SIZE, RangeAllocator
from kbatch.runtime.context import ControllerContext

__all__ = ["CLUSTER_CIDR", "NODE_CIDR_MASK_SIZE", "CidrSet", "CidrSetError", "RangeAllocator",
           "RangeExhausted", "setup"]


def setup(ctx: ControllerContext) -> RangeAllocator:
    """Catalog factory for ``node-ipam-controller``: reconciles Nodes."""
    from kbatch.api.core_v1 import Node

    allocator = RangeAllocator(ctx)
    ctx.build().describe("allocates each node's pod CIDR (range allocator)").for_(Node).complete(allocator)
    return allocator
