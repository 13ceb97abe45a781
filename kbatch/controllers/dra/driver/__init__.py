"""The ``dra-driver`` controller: the kubelet plugins of kbatch's simulated DRA drivers reporting device
status (KEP-4817, ``DRAResourceClaimDeviceStatus``, GA in 1.37). A node added with
``kbatch nodes add --gpu-driver D --device-status`` (``DeviceTemplate(device_status=True)``) publishes
slices annotated ``dra.kbatch.io/device-status: "true"``; this controller then writes, for each
claim allocated from such a pool and reserved, the pool's entries of ``status.devices``
(:mod:`.status` decides), through that node's own client (``system:node:<node>``), and takes them
out when the claim is no longer reserved. Nothing happens for pools of other drivers: with no
annotated slice, a claim event queues nothing.
"""

from __future__ import annotations

from kbatch.api.resource_v1 import ResourceClaim, ResourceSlice
from kbatch.controllers.dra.driver.controller import DriverStatus
from kbatch.runtime.context import ControllerContext

__all__ = ["DriverStatus", "setup"]


def setup(ctx: ControllerContext) -> DriverStatus:
    controller = DriverStatus(ctx)
    (
        ctx.build()
        .describe("simulated DRA drivers report the devices they prepared in ResourceClaim status.devices")
        .watches(ResourceSlice, controller.slice_claims)
        .watches(ResourceClaim, controller.claim_request)
        .complete(controller)
    )
    return controller
