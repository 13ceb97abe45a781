"""The structured allocator of DRA, as a pure computation (upstream
``k8s.io/dynamic-resource-allocation/structured``): pools gathered for a node, a depth-first search
for devices that satisfy a pod's claims, the allocation results. No I/O: the scheduler plugin
(:mod:`kbatch.controllers.dra.dynamicresources`) feeds it and applies what it decides."""

from __future__ import annotations

from kbatch.controllers.dra.structured.allocator import (
    AllocationError,
    Allocator,
    Candidate,
    FailedOnNode,
    MatchFn,
)
from kbatch.controllers.dra.structured.capacity import consumed_from_request, fits
from kbatch.controllers.dra.structured.nodes import NodeView, node_matches, selector_matches
from kbatch.controllers.dra.structured.pools import Pool, gather_pools
from kbatch.controllers.dra.structured.requests import RequestData, tolerates
from kbatch.controllers.dra.structured.state import AllocatedState, DeviceID, Features, claim_devices
from kbatch.controllers.dra.structured.verify import results_fit

__all__ = [
    "AllocatedState",
    "AllocationError",
    "Allocator",
    "Candidate",
    "DeviceID",
    "FailedOnNode",
    "Features",
    "MatchFn",
    "NodeView",
    "Pool",
    "RequestData",
    "claim_devices",
    "consumed_from_request",
    "fits",
    "gather_pools",
    "node_matches",
    "results_fit",
    "selector_matches",
    "tolerates",
]
