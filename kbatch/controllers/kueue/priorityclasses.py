"""The WorkloadPriorityClass reconciler: a class's ``value`` propagated to the Workloads using it.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/core/workloadpriorityclass_controller.go``
(and its ``_test.go``: ``TestWorkloadPriorityClassReconciler_Predicates``,
``TestWorkloadPriorityClassReconcile``). A class created (it may be re-created with another value
while Workloads still name it) or updated with another ``value`` reconciles; its deletes do not.
The reconcile writes ``spec.priority`` of every Workload whose ``spec.priorityClassRef`` names the
class (group ``kueue.x-k8s.io``, kind ``WorkloadPriorityClass``: ``IndexWorkloadPriorityClass``) and
whose priority differs; a Workload deleted meanwhile is skipped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.api import edit
from kbatch.api.errors import NotFound, StatusError
from kbatch.api.kueue_v1beta2 import Workload, WorkloadPriorityClass
from kbatch.runtime.reconcile import Request, Result

if TYPE_CHECKING:
    from kbatch.controllers.kueue.manager import KueueManager

__all__ = ["PRIORITY_CLASS_EVENTS", "PriorityClassPropagator", "uses_class"]

GROUP = "kueue.x-k8s.io"


class _ValueChanged:
    """``Create`` true, ``Update`` only when ``value`` changed, ``Delete`` false."""

    __slots__ = ()

    def create(self, obj: Any) -> bool:
        return True

    def update(self, old: Any, new: Any) -> bool:
        return bool(old.value != new.value)

    def delete(self, obj: Any) -> bool:
        return False


PRIORITY_CLASS_EVENTS = _ValueChanged()


def uses_class(wl: Workload, name: str) -> bool:
    """``IndexWorkloadPriorityClass``: the Workload's ``priorityClassRef`` is this
    WorkloadPriorityClass."""
    ref = wl.spec.priority_class_ref if wl.spec else None
    return ref is not None and ref.group == GROUP and ref.kind == "WorkloadPriorityClass" and ref.name == name


class PriorityClassPropagator:
    """``WorkloadPriorityClassReconciler.Reconcile`` (see the module docstring)."""

    def __init__(self, mgr: KueueManager) -> None:
        self.mgr = mgr

    def reconcile(self, request: Request) -> Result | None:
        wpc = self.mgr.get(WorkloadPriorityClass, request.name)
        if wpc is None:
            return None
        failed: StatusError | None = None
        for wl in self.mgr.ctx.cache.list(Workload):
            if wl.spec is None or not uses_class(wl, request.name) or wl.spec.priority == wpc.value:
                continue
            obj = edit(wl)
            assert obj.spec is not None
            obj.spec.priority = wpc.value
            try:
                self.mgr.ctx.client.update(obj)
            except NotFound:
                continue
            except StatusError as err:  # upstream joins the errors; the request is retried
                failed = failed or err
        if failed is not None:
            raise failed
        return None
