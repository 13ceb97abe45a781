"""The ``resourceclaim`` controller (upstream ``pkg/controller/resourceclaim``): :mod:`.sync` decides,
:mod:`.controller` writes."""

from __future__ import annotations

from kbatch.api.core_v1 import Pod
from kbatch.api.resource_v1 import ResourceClaim
from kbatch.controllers.dra.resourceclaim.controller import (
    BY_POD_CLAIM,
    ClaimRequests,
    ResourceClaimController,
    pod_claim_keys,
    pod_requests,
)
from kbatch.runtime.context import ControllerContext

__all__ = ["ResourceClaimController", "setup"]


def setup(ctx: ControllerContext) -> ResourceClaimController:
    controller = ResourceClaimController(ctx)
    ctx.cache.add_index(Pod, BY_POD_CLAIM, pod_claim_keys)
    (
        ctx.build()
        .describe(
            "creates ResourceClaims from templates for pods, reserves claims for pods bound without the "
            "scheduler, cleans up reservedFor, deallocates unused claims"
        )
        .watches(Pod, pod_requests)
        .watches(ResourceClaim, ClaimRequests(ctx.cache))
        .complete(controller)
    )
    return controller
