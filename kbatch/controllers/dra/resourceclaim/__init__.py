"""The ``resourceclaim`` controller (upstream ``pkg/controller/resourceclaim``): :mod:`.sync` decides,
:mod:`.controller` writes."""

from __future__ import annotations

from kbatch.api.core_v1 import Pod
from kbatch.api.resource_v1 import ResourceClaim
from kbatch.controllers.dra.resourceclaim.controller import (
    ResourceClaimController,
    claim_requests,
    pod_requests,
)
from kbatch.runtime.context import ControllerContext

__all__ = ["ResourceClaimController", "setup"]


def setup(ctx: ControllerContext) -> ResourceClaimController:
    controller = ResourceClaimController(ctx)
    (
        ctx.build()
        .describe(
            "creates ResourceClaims from templates for pods, cleans up reservedFor, deallocates unused claims"
        )
        .watches(Pod, pod_requests)
        .watches(ResourceClaim, claim_requests)
        .complete(controller)
    )
    return controller
