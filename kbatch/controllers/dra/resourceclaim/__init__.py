"""The ``resourceclaim`` controller (upstream ``pkg/controller/resourceclaim``): :mod:`.sync` decides,
:mod:`.controller` writes, :mod:`.handlers` says what an event enqueues."""

from __future__ import annotations

from kbatch.api.core_v1 import Pod
from kbatch.api.resource_v1 import ResourceClaim, ResourceClaimTemplate
from kbatch.api.scheduling_v1beta1 import PodGroup
from kbatch.controllers.dra import podgroupclaims
from kbatch.controllers.dra.resourceclaim.controller import ResourceClaimController
from kbatch.controllers.dra.resourceclaim.handlers import (
    BY_POD_CLAIM,
    BY_POD_GROUP,
    BY_POD_TEMPLATE,
    ClaimEvents,
    PodEvents,
    PodGroupEvents,
    TemplateEvents,
    pod_claim_keys,
    pod_group_keys,
    pod_template_keys,
)
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.predicate import Funcs

__all__ = ["ResourceClaimController", "setup"]

# upstream registers AddFunc, UpdateFunc and DeleteFunc, telling enqueuePod/enqueueResourceClaim
# whether the object was deleted: one watch for add and update, one for delete
_LIVE = Funcs(create=True, update=True, delete=False)
_DELETED = Funcs(create=False, update=False, delete=True)


def setup(ctx: ControllerContext) -> ResourceClaimController:
    controller = ResourceClaimController(ctx)
    ctx.cache.add_index(Pod, BY_POD_CLAIM, pod_claim_keys)
    ctx.cache.add_index(Pod, BY_POD_TEMPLATE, pod_template_keys)
    builder = ctx.build()
    if podgroupclaims.enabled(ctx.features):  # KEP-5729: PodGroups' claims (upstream enqueuePodGroup)
        ctx.cache.add_index(Pod, BY_POD_GROUP, pod_group_keys)
        builder = builder.watches(PodGroup, PodGroupEvents(ctx.cache), _LIVE).watches(
            PodGroup, PodGroupEvents(ctx.cache, deleted=True), _DELETED)
    (
        builder
        .describe(
            "creates ResourceClaims from templates for pods, reserves claims for pods bound without the "
            "scheduler, cleans up reservedFor, deallocates unused claims"
        )
        .watches(Pod, PodEvents(ctx.cache, deleted=False), _LIVE)
        .watches(Pod, PodEvents(ctx.cache, deleted=True), _DELETED)
        .watches(ResourceClaim, ClaimEvents(ctx.cache, deleted=False), _LIVE)
        .watches(ResourceClaim, ClaimEvents(ctx.cache, deleted=True), _DELETED)
        .watches(ResourceClaimTemplate, TemplateEvents(ctx.cache), _LIVE)
        .complete(controller)
    )
    return controller
