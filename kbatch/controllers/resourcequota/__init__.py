"""The ``resourcequota`` controller: ResourceQuota ``status.hard`` and ``status.used``. docs/quota.md."""

from __future__ import annotations

from typing import Any

from kbatch.api.meta import Resource
from kbatch.controllers.resourcequota.controller import ResourceQuotaController, replenished_kinds
from kbatch.controllers.resourcequota.handlers import (
    HARD_CHANGED,
    OBJECT_GONE,
    SWEEP,
    ClaimAllocationChanged,
    PodStopsCounting,
    Replenish,
    ServiceTypeChanged,
)
from kbatch.controllers.resourcequota.sync import RESYNC_PERIOD, quota_status
from kbatch.runtime.context import ControllerContext

__all__ = ["RESYNC_PERIOD", "ResourceQuotaController", "quota_status", "setup"]


def _update_filter(controller: ResourceQuotaController, group_resource: str) -> Any:
    """The monitor's update filter for a kind (deletes pass for every kind): ``controllerFor``."""
    if group_resource == "pods":
        return PodStopsCounting(controller)
    if group_resource == "services":
        return ServiceTypeChanged()
    if group_resource == "persistentvolumeclaims":
        return ClaimAllocationChanged()
    return OBJECT_GONE


def setup(ctx: ControllerContext) -> ResourceQuotaController:
    """Catalog factory for ``resourcequota`` (:mod:`.handlers`)."""
    from kbatch.api.core_v1 import Pod, ResourceQuota

    controller = ResourceQuotaController(ctx)
    builder = (ctx.build()
               .describe("keeps ResourceQuota status.hard and status.used current (core/v1)")
               .for_(ResourceQuota, HARD_CHANGED))
    models: list[type[Resource]] = [Pod, *replenished_kinds(ctx.registry)]
    for model in models:  # the QuotaMonitor's informers
        group_resource = model.api_info.group_resource
        builder = builder.watches(model, Replenish(controller, group_resource),
                                  _update_filter(controller, group_resource))
    controller.controller = builder.periodic().complete(controller)
    controller.controller.queue.add(SWEEP)  # enqueueAll at start, then every sync period
    return controller
