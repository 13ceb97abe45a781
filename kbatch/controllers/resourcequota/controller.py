"""The ``resourcequota`` controller (kube-controller-manager's ``resourcequota-controller``,
``pkg/controller/resourcequota``): keeps each ResourceQuota's ``status.hard`` and ``status.used``.

A quota is synced when it changes, when a pod or Job of its namespace changes or goes away
(upstream's replenishment: pods and any monitored kind; kbatch watches pods and Jobs) and every
5 minutes of virtual time (``--resource-quota-sync-period``), which is how counts of other kinds
(``count/<resource>.<group>``) return. Objects are read from the informer cache for pods and Jobs
and listed through the client for the rest. The status is written only when it changed.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod, ResourceQuota
from kbatch.api.errors import Conflict, NotFound
from kbatch.api.frozen import edit
from kbatch.api.meta import Resource
from kbatch.api.quota_usage import IGNORED, group_resources
from kbatch.controllers.resourcequota.sync import RESYNC_PERIOD, quota_status
from kbatch.runtime.context import ControllerContext

__all__ = ["ResourceQuotaController"]

_CACHED: tuple[type[Resource], ...] = (Pod, Job)


class ResourceQuotaController:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx

    def quotas_for(self, obj: Any) -> list[Any]:
        """Replenishment: every quota of the object's namespace."""
        from kbatch.runtime.reconcile import Request

        namespace = obj.metadata.namespace or ""
        return [Request(namespace, rq.name) for rq in self.ctx.cache.list(ResourceQuota, namespace)]

    def _model(self, resource: str) -> type[Resource] | None:
        for spec in self.ctx.registry:
            if spec.info.group_resource == resource and spec.info.namespaced:
                return spec.model
        return None

    def _objects(self, rq: ResourceQuota) -> dict[str, list[Resource]]:
        namespace = rq.metadata.namespace or ""
        out: dict[str, list[Resource]] = {}
        for resource in group_resources((rq.spec.hard if rq.spec else None) or {}):
            model = self._model(resource)
            if model is None or resource in IGNORED:
                continue
            if model in _CACHED:
                out[resource] = list(self.ctx.cache.list(model, namespace))
            else:
                out[resource] = list(self.ctx.client.list(model, namespace).items)
        return out

    def reconcile(self, request: Any) -> Any:
        from kbatch.runtime.reconcile import Result

        try:
            rq = self.ctx.cache.get(ResourceQuota, request.name, request.namespace)
        except NotFound:
            return None
        status = quota_status(rq, self._objects(rq), self.ctx.clock.now_datetime())
        if status != rq.status:
            updated = edit(rq)
            updated.status = status
            try:
                self.ctx.client.update_status(updated)
            except (Conflict, NotFound):
                return Result(requeue_after=0)
        return Result(requeue_after=RESYNC_PERIOD)
