"""The DRA event handlers of Kueue's manager: DeviceClasses and ResourceSlices.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/core/workload_controller.go``
(``deviceClassHandler``, watched when ``KueueDRAIntegrationExtendedResource`` is on: a DeviceClass
created, updated or deleted updates ``draBackedResources`` — the extended resource names some
DeviceClass's ``extendedResourceName`` declares — and every Workload without a quota reservation
that requests an affected name (``WorkloadExtendedResourceKey``, ``WorkloadQuotaReservedKey``
False) is reconciled after a second; one the DRA path no longer needs goes back to its queue at
once) and ``pkg/controller/core/resourceslice_controller.go`` (``ResourceSliceReconciler``: a
ResourceSlice of a driver that a ``deviceClassMappings`` counter or capacity source names, created,
updated or deleted, makes every ClusterQueue retry its inadmissible Workloads,
``NotifyRetryInadmissible``; other slices are ignored — a Workload refused for too few matching
devices is an internal error the workload controller retries with back-off).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.resource_v1.deviceclass import DeviceClass
from kbatch.api.resource_v1.slice import ResourceSlice
from kbatch.api.validation import is_extended_resource_name
from kbatch.runtime.reconcile import Request

if TYPE_CHECKING:
    from kbatch.controllers.kueue.manager import KueueManager

__all__ = ["DeviceClassHandler", "ResourceSliceHandler", "requested_extended"]

RECONCILE_DELAY = 1.0  # q.AddAfter(..., time.Second)


def _name(dc: DeviceClass) -> str:
    return (dc.spec.extended_resource_name if dc.spec is not None else None) or ""


def _quota_reserved(wl: Workload) -> bool:
    for c in (wl.status.conditions if wl.status else None) or ():
        if c.type == "QuotaReserved":
            return c.status == "True"
    return False


def requested_extended(wl: Workload) -> set[str]:
    """``IndexWorkloadExtendedResources``: the nonzero extended resources a container requests."""
    out: set[str] = set()
    for ps in (wl.spec.pod_sets if wl.spec else None) or ():
        spec = ps.template.spec if ps.template else None
        for c in ((spec.init_containers or []) + (spec.containers or [])) if spec is not None else ():
            requests = c.resources.requests if c.resources is not None else None
            for n, q in (requests or {}).items():
                if not q.is_zero() and is_extended_resource_name(n):
                    out.add(n)
    return out


class DeviceClassHandler:
    """``deviceClassHandler`` (see the module docstring)."""

    def __init__(self, mgr: KueueManager) -> None:
        self.mgr = mgr

    def on_add(self, dc: DeviceClass) -> None:
        if _name(dc):
            self.mgr.dra.backed.add(_name(dc), dc.metadata.name or "")
            self._reconcile((_name(dc),))

    def on_update(self, old: DeviceClass, new: DeviceClass) -> None:
        backed = self.mgr.dra.backed
        if _name(old):
            backed.remove(_name(old), old.metadata.name or "")
        if _name(new):
            backed.add(_name(new), new.metadata.name or "")
        self._reconcile((_name(old), _name(new)))

    def on_delete(self, dc: DeviceClass) -> None:
        if _name(dc):
            self.mgr.dra.backed.remove(_name(dc), dc.metadata.name or "")
            self._reconcile((_name(dc),))

    def _reconcile(self, names: tuple[str, ...]) -> None:
        from kbatch.controllers.kueue.queues import admissible  # queues imports the manager's modules

        mgr = self.mgr
        controller = mgr.controllers.get("kueue-workload")
        queued = False
        for name in names:
            if not name:
                continue
            for wl in mgr.ctx.cache.list(Workload):
                if _quota_reserved(wl) or name not in requested_extended(wl):
                    continue
                if not mgr.dra.needs(wl) and admissible(wl, mgr.queues.admission_gated_by):
                    queued |= mgr.queues.add_or_update_workload(wl)
                if controller is not None:
                    req = Request(wl.metadata.namespace or "", wl.metadata.name or "")
                    controller.queue.add_after(req, RECONCILE_DELAY)
        if queued:
            mgr.kick()


class ResourceSliceHandler:
    """``ResourceSliceReconciler`` (see the module docstring)."""

    def __init__(self, mgr: KueueManager) -> None:
        self.mgr = mgr
        self.drivers = mgr.dra.drivers

    def on_add(self, rs: ResourceSlice) -> None:
        self._notify(rs)

    def on_update(self, old: ResourceSlice, new: ResourceSlice) -> None:
        self._notify(new)

    def on_delete(self, rs: ResourceSlice) -> None:
        self._notify(rs)

    def _notify(self, rs: ResourceSlice) -> None:
        if rs.spec is not None and rs.spec.driver in self.drivers:
            self.mgr.notify_retry_inadmissible(sorted(self.mgr.queues.cluster_queues))
