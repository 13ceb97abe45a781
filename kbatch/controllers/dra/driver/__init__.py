"""The ``dra-driver`` controller: the kubelet plugins of kbatch's simulated DRA drivers reporting device
status (KEP-4817, ``DRAResourceClaimDeviceStatus``, GA in 1.37). A node added with
``kbatch nodes add --gpu-driver D --device-status`` (``DeviceTemplate(device_status=True)``) publishes
slices annotated ``dra.kbatch.io/device-status: "true"``; this controller then writes, for each
claim allocated from such a pool and prepared by the node's kubelet for a pod (:mod:`.prepared`), the
pool's entries of ``status.devices`` (:mod:`.status` decides), through that node's own client
(``system:node:<node>``), and takes them out when the kubelet unprepares the claim. Nothing happens
for pools of other drivers: with no annotated slice, a claim or pod event queues nothing.

:func:`setup_attach` starts the ``dra-attach`` controller: for nodes added with
``--binding-conditions`` (KEP-5007) it plays the driver's attachment controller, setting each
allocated device's binding conditions (or a failure condition) after the attach delay
(:mod:`.attach`, :mod:`.attach_controller`).
"""

from __future__ import annotations

from kbatch.api.core_v1 import Pod
from kbatch.api.resource_v1 import ResourceClaim, ResourceSlice
from kbatch.controllers.dra.driver.attach_controller import DriverAttach
from kbatch.controllers.dra.driver.controller import DriverStatus
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.handler import new_object_only

__all__ = ["DriverAttach", "DriverStatus", "setup", "setup_attach"]


def setup(ctx: ControllerContext) -> DriverStatus:
    controller = DriverStatus(ctx)
    (
        ctx.build()
        .describe("simulated DRA drivers report the devices they prepared in ResourceClaim status.devices")
        .watches(ResourceSlice, controller.slice_claims)
        .watches(ResourceClaim, controller.claim_request)
        .watches(Pod, new_object_only(controller.pod_claims))  # a pod keeps its node: the new one says
        .complete(controller)
    )
    return controller


def setup_attach(ctx: ControllerContext) -> DriverAttach:
    """The ``dra-attach`` controller: simulated drivers attach devices with binding conditions
    (KEP-5007) and report the outcome in ``status.devices`` (:mod:`.attach`)."""
    controller = DriverAttach(ctx)
    (
        ctx.build()
        .describe("simulated DRA drivers attach devices with binding conditions and set them in "
                  "ResourceClaim status.devices")
        .watches(ResourceSlice, controller.slice_claims)
        .watches(ResourceClaim, controller.claim_request)
        .complete(controller)
    )
    return controller
