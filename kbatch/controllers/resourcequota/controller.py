"""The ``resourcequota`` controller (kube-controller-manager's ``resourcequota-controller``,
``pkg/controller/resourcequota``): keeps each ResourceQuota's ``status.hard`` and ``status.used``.

A quota is synced when it is created or its ``spec.hard`` changes (its status writes, the
admission plugin's charges included, do not trigger a recount, as upstream's ``updateQuota``), when
a pod of its namespace is deleted or stops counting (terminal; upstream's replenishment,
``QuotaV1Pod`` old and not new), when an object of any other kind quota can count is deleted in its
namespace (:func:`replenished_kinds`: upstream's QuotaMonitor, ``resource_quota_monitor.go``, runs an
informer per quotable resource whose delete replenishes), and every 5 minutes of virtual time
(``--resource-quota-sync-period``). Objects are read from the informer cache for pods and Jobs and
listed through the client for the rest. The status is written only when it changed.
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
from kbatch.controllers.resourcequota.sync import RESYNC_PERIOD, quota_status
from kbatch.runtime.context import ControllerContext

__all__ = ["HARD_CHANGED", "OBJECT_GONE", "POD_RELEASED", "ResourceQuotaController", "replenished_kinds"]

_CACHED: tuple[type[Resource], ...] = (Pod, Job)
_TERMINAL = ("Succeeded", "Failed")


def _hard(rq: Any) -> Any:
    return rq.spec.hard if rq.spec else None


def _released(pod: Any) -> bool:
    terminal = pod.status is not None and pod.status.phase in _TERMINAL
    return terminal or pod.metadata.deletion_timestamp is not None


class _ObjectGone:
    """Deletes only (module-level classes: the CLI's state image pickles the predicates)."""

    def create(self, obj: Any) -> bool:
        return False

    def update(self, old: Any, new: Any) -> bool:
        return False

    def delete(self, obj: Any) -> bool:
        return True


class _HardChanged(_ObjectGone):
    """Creates, deletes and ``spec.hard`` changes (upstream ``updateQuota`` ignores status writes)."""

    def create(self, obj: Any) -> bool:
        return True

    def update(self, old: Any, new: Any) -> bool:
        return bool(_hard(old) != _hard(new))


class _PodReleased(_ObjectGone):
    """Deletes and a pod that stops counting (terminal or terminating)."""

    def update(self, old: Any, new: Any) -> bool:
        return _released(new) and not _released(old)


HARD_CHANGED = _HardChanged()
POD_RELEASED = _PodReleased()
OBJECT_GONE = _ObjectGone()


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
