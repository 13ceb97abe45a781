"""What the MultiKueue controllers share: the Kueue manager, the options, the adapters and the workers.

One :class:`MultiKueueContext` per Kueue manager (upstream's ``SetupControllers`` wires the same
pieces into ``clustersReconciler``, ``ACReconciler`` and ``wlReconciler``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.api.meta import Condition, Resource
from kbatch.api.policy_helpers import set_status_condition
from kbatch.controllers.kueue.multikueue.inbox import RemoteInbox
from kbatch.controllers.kueue.multikueue.metrics import MultiKueueMetrics
from kbatch.controllers.kueue.multikueue.options import MultiKueueOptions
from kbatch.runtime.published import PublishedKey
from kbatch.runtime.reconcile import Request

if TYPE_CHECKING:
    from kbatch.controllers.kueue.manager import KueueManager
    from kbatch.controllers.kueue.multikueue.adapters import MultiKueueAdapter
    from kbatch.controllers.kueue.multikueue.clusters import Clusters
    from kbatch.controllers.kueue.multikueue.remote import WatchEvent

__all__ = ["AC_CONTROLLER", "CLUSTER_CONTROLLER", "MULTIKUEUE", "WORKLOAD_CONTROLLER", "MultiKueueContext"]

CLUSTER_CONTROLLER = "kueue-multikueue-cluster"
AC_CONTROLLER = "kueue-multikueue-admissioncheck"
WORKLOAD_CONTROLLER = "kueue-multikueue-workload"


class MultiKueueContext:
    def __init__(
        self, mgr: KueueManager, options: MultiKueueOptions, adapters: dict[str, MultiKueueAdapter]
    ) -> None:
        self.mgr = mgr
        self.ctx = mgr.ctx
        self.client = mgr.ctx.client
        self.options = options
        self.adapters = adapters  # by "apiVersion, Kind=kind" (upstream's GVK string)
        self.clusters: Clusters | None = None
        self.metrics = MultiKueueMetrics(mgr.ctx.metrics)
        self._inbox: RemoteInbox | None = None

    def inbox(self) -> RemoteInbox:
        """Where HTTP workers' watch readers post their events: a stepper of the manager's loop,
        added with the first HTTP worker (:mod:`.inbox`)."""
        if self._inbox is None:
            self._inbox = RemoteInbox(self.ctx.wake_threadsafe)
            self.ctx.manager.add(self._inbox)
        return self._inbox

    def get(self, kind: type, name: str, namespace: str | None = None) -> Any:
        return self.mgr.get(kind, name, namespace)

    def get_check(self, name: str) -> Any:
        from kbatch.api.kueue_v1beta2 import AdmissionCheck

        return self.mgr.get(AdmissionCheck, name)

    def event(self, obj: Any, reason: str, message: str, type_: str = "Normal") -> None:
        self.mgr.recorder.event(obj, type_, reason, message)

    def now(self) -> float:
        return self.ctx.clock.now()

    def set_condition(self, status: Any, new: Condition) -> None:
        """``apimeta.SetStatusCondition`` on ``status.conditions``."""
        now = self.ctx.clock.now_datetime()
        status.conditions = set_status_condition(list(status.conditions or ()), new, now)

    def enqueue(self, controller: str, request: Request, delay: float = 0.0) -> None:
        c = self.mgr.controllers.get(controller)
        if c is None:
            return
        if delay > 0:
            c.queue.add_after(request, delay)
        else:
            c.enqueue(request)

    def remote_event(self, event: WatchEvent) -> None:
        """A worker's Workload or job watch reported a change: whatever its type, the manager's Workload
        of that key is reconciled (``handleWatchEvent``: ``ADDED``, ``MODIFIED`` and ``DELETED`` alike;
        bookmarks and errors never reach here)."""
        self.workload_changed_remotely(event.obj)

    def workload_changed_remotely(self, obj: Resource) -> None:
        """A worker's Workload or job changed: reconcile the manager's Workload of that key after the
        batch period (``queueWorkloadEvent``, ``WorkloadKeysFor``)."""
        key: tuple[str, str] | None = None
        if isinstance(obj, Workload):
            key = (obj.metadata.namespace or "", obj.metadata.name or "")
        else:
            key = next((k for a in self.adapters.values() if (k := a.workload_key(obj)) is not None), None)
        if key is not None:
            self.enqueue(WORKLOAD_CONTROLLER, Request(*key), self.options.events_batch_period)


# what the MultiKueue controllers publish on the control plane: tests and tools read the clusters'
# connection states through it
MULTIKUEUE = PublishedKey("multikueue", MultiKueueContext)
