"""The ``resourcequota`` controller: ResourceQuota ``status.hard`` and ``status.used``. docs/quota.md."""

from __future__ import annotations

from kbatch.controllers.resourcequota.controller import (
    HARD_CHANGED,
    OBJECT_GONE,
    POD_RELEASED,
    ResourceQuotaController,
    replenished_kinds,
)
from kbatch.controllers.resourcequota.sync import RESYNC_PERIOD, quota_status
from kbatch.runtime.context import ControllerContext

__all__ = ["RESYNC_PERIOD", "ResourceQuotaController", "quota_status", "setup"]


def setup(ctx: ControllerContext) -> ResourceQuotaController:
    """Catalog factory for ``resourcequota``."""
    from kbatch.api.core_v1 import Pod, ResourceQuota

    controller = ResourceQuotaController(ctx)
    builder = (ctx.build()
               .describe("keeps ResourceQuota status.hard and status.used current (core/v1)")
               .for_(ResourceQuota, HARD_CHANGED)
               .watches(Pod, controller.quotas_for, POD_RELEASED))
    for model in replenished_kinds(ctx.registry):  # the QuotaMonitor: a delete of any of them replenishes
        builder = builder.watches(model, controller.quotas_for, OBJECT_GONE)
    builder.periodic().complete(controller)
    return controller
