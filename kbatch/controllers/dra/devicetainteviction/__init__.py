"""The ``device-taint-eviction`` controller: :mod:`.sync` and :mod:`.status` decide, :mod:`.view`
reads the cache, :mod:`.controller` evicts and :mod:`.rules` writes DeviceTaintRule status."""

from __future__ import annotations

from kbatch.api.core_v1 import Pod
from kbatch.api.resource_v1 import DeviceTaintRule, ResourceClaim, ResourceSlice
from kbatch.controllers.dra.devicetainteviction.controller import REASON, DeviceTaintEviction
from kbatch.controllers.dra.devicetainteviction.handlers import (
    CLAIM_ALLOCATED,
    POD_CLAIMS_CHANGED,
    SLICE_TAINTS_CHANGED,
)
from kbatch.controllers.dra.devicetainteviction.sync import eviction_time
from kbatch.runtime import GenerationChanged
from kbatch.runtime.context import ControllerContext

__all__ = ["REASON", "DeviceTaintEviction", "eviction_time", "setup"]


def setup(ctx: ControllerContext) -> DeviceTaintEviction:
    """Catalog factory for ``device-taint-eviction``; what each event queues: :mod:`.handlers`."""
    controller = DeviceTaintEviction(ctx)
    built = (
        ctx.build()
        .describe("evicts pods whose allocated devices have NoExecute taints; DeviceTaintRule status")
        .watches(Pod, controller.pod_request, POD_CLAIMS_CHANGED)
        .watches(ResourceClaim, controller.claim_pods, CLAIM_ALLOCATED)
        .watches(ResourceSlice, controller.pool_pods, SLICE_TAINTS_CHANGED)
        # its own status writes change nothing a decision reads: only spec changes (generation) count
        .watches(DeviceTaintRule, controller.rule_and_pods, GenerationChanged())
        .complete(controller)
    )
    controller.queue = built.queue
    return controller
