"""The ``resourcequota`` controller (kube-controller-manager's ``resourcequota-controller``,
``pkg/controller/resourcequota``): keeps each ResourceQuota's ``status.hard`` and ``status.used``.

A quota is synced when :mod:`.handlers` queue it (its create, delete or ``spec.hard`` change; the
QuotaMonitor's replenishment by a tracked object's delete or usage-relevant update) and by the sweep
that queues every quota at start and every 5 minutes of virtual time (``--resource-quota-sync-period``,
upstream ``enqueueAll``): a pod stuck terminating past its grace period stops counting then, as no
event marks that instant. Objects are read from the informer cache for pods and Jobs and listed
through the client for the rest. The status is written only when it changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod, ResourceQuota
from kbatch.api.errors import Conflict, NotFound
from kbatch.api.frozen import edit
from kbatch.api.meta import Resource
from kbatch.api.quota_usage import IGNORED, group_resources
from kbatch.controllers.resourcequota.handlers import SWEEP
from kbatch.controllers.resourcequota.sync import RESYNC_PERIOD, quota_status
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Request

__all__ = ["ResourceQuotaController", "replenished_kinds"]

_CACHED: tuple[type[Resource], ...] = (Pod, Job)


def _key(rq: ResourceQuota) -> tuple[str, str]:
    return (rq.metadata.namespace or "", rq.metadata.name or "")


def replenished_kinds(registry: Iterable[Any]) -> list[type[Resource]]:
    """The kinds whose deletion replenishes quota, in a fixed order: every namespaced kind served but
    pods (watched for more than deletes), ResourceQuota itself (the controller's own kind) and the
    kinds quota never charges (``IGNORED``: events; upstream ``install/update_mode.go``)."""
    specs = sorted((s for s in registry if s.info.namespaced), key=lambda s: s.info.group_resource)
    return [s.model for s in specs
            if s.model not in (Pod, ResourceQuota) and s.info.group_resource not in IGNORED]


class ResourceQuotaController:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx
        self.controller: Any = None  # set by ``setup``: the sweep enqueues every quota on it

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

        if request == SWEEP:  # enqueueAll, then again after the sync period
            for rq in sorted(self.ctx.cache.list(ResourceQuota), key=_key):
                self.controller.enqueue(Request(rq.metadata.namespace or "", rq.metadata.name or ""))
            return Result(requeue_after=RESYNC_PERIOD)
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
        return None
