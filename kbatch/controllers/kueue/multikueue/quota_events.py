"""What requeues a manager ClusterQueue for MultiKueue manager quota automation (KEP 9988, gate
``MultiKueueManagerQuotaAutomation``; the reconciler is :mod:`.quota_reconciler`).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/clusterqueue.go``
(``setupWithManager``: ``lqHandler``, ``acHandler``, ``cqConfigHandler``, ``cqClusterHandler``, the
``queueEventsFor*`` helpers; table ``TestCQReconciler_EventHandlers``) and ``multikueuecluster.go``
(``startQueueWatchers``, ``queueEventsForCQ``, ``queueEventsForLQ``). Besides the ClusterQueue's own
creation, deletion and spec changes (the reconciler's ``for_``), it is requeued, after the events batch
period, for:

* a manager LocalQueue created or deleted (its ClusterQueue is immutable: updates do nothing);
* a MultiKueue AdmissionCheck or MultiKueueConfig created, deleted or with a new generation, and a
  MultiKueueCluster created, deleted or with its ``Active`` condition changed, on the ClusterQueue's
  path (cluster → configs naming it → checks naming those → ClusterQueues naming those);
* a worker's ClusterQueue created, deleted or with new ``spec.resourceGroups``, or a worker's
  LocalQueue created or deleted, mapped through the worker's LocalQueues to the manager's LocalQueue of
  the same key (:func:`worker_event_requeues`, :class:`WorkerQueueEvents`).

Each watch is the runtime's :class:`~kbatch.runtime.handler.QueueingHandler`: a mapper to the
ClusterQueues and upstream's filter as a predicate (controller-runtime's ``GenerationChanged`` where
upstream's handlers compare generations); a worker's watch events reach theirs through
:func:`.remote.deliver`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kbatch.api.go_equal import go_equal
from kbatch.api.kueue_v1beta2 import (
    AdmissionCheck,
    ClusterQueue,
    LocalQueue,
    MultiKueueCluster,
    MultiKueueConfig,
)
from kbatch.api.meta import Resource
from kbatch.controllers.kueue.multikueue.admissioncheck import ActiveChanged, checks_using_config
from kbatch.controllers.kueue.multikueue.quota_reconciler import QUOTA_CONTROLLER, cluster_queues_using_check
from kbatch.controllers.kueue.multikueue.remote import (
    ADDED,
    MODIFIED,
    ConnectionFailed,
    RemoteCluster,
    WatchEvent,
    deliver,
)
from kbatch.runtime.cache import Cache
from kbatch.runtime.handler import QueueingHandler
from kbatch.runtime.predicate import Funcs, GenerationChanged, Predicate
from kbatch.runtime.reconcile import Request

if TYPE_CHECKING:
    from kbatch.controllers.kueue.multikueue.context import MultiKueueContext

__all__ = ["QUEUE_KINDS", "WorkerQueueEvents", "local_event_handlers", "worker_event_requeues"]

QUEUE_KINDS: tuple[type[Resource], ...] = (ClusterQueue, LocalQueue)  # watched on every worker


class _AddAfterBatch:
    """The handlers' ``add``: every watch of the reconciler requeues a ClusterQueue after the events
    batch period (``q.AddAfter(request, eventsBatchPeriod)``)."""

    def __init__(self, mk: MultiKueueContext) -> None:
        self.mk = mk

    def __call__(self, request: Request) -> None:
        self.mk.enqueue(QUOTA_CONTROLLER, request, self.mk.options.events_batch_period)


def _cluster_queue_of(lq: LocalQueue) -> list[Request]:
    """A LocalQueue → its ClusterQueue (``lqHandler``)."""
    name = lq.spec.cluster_queue if lq.spec else None
    return [Request("", name)] if name else []


def _queues_of_check(cache: Cache, check: str) -> list[Request]:
    """``queueEventsForAC``."""
    return [Request("", name) for name in cluster_queues_using_check(cache, check)]


def _queues_of_config(cache: Cache, config: str) -> list[Request]:
    """``queueEventsForMKConfig``: via the checks naming the config."""
    return [req for check in checks_using_config(cache, config) for req in _queues_of_check(cache, check)]


def _queues_of_cluster(cache: Cache, cluster: str) -> list[Request]:
    """``queueEventsForMKCluster``: via the configs naming the cluster (``UsingMultiKueueClusters``)."""
    configs = sorted(cache.list(MultiKueueConfig), key=lambda c: c.metadata.name or "")
    return [
        req
        for config in configs
        if cluster in ((config.spec.clusters if config.spec else None) or ())
        for req in _queues_of_config(cache, config.metadata.name or "")
    ]


class _ByName:
    """A mapper: an object → the ClusterQueues ``queues(cache, its name)`` finds; an update maps the new
    object only (upstream's handlers read ``ObjectNew``)."""

    maps_old_on_update = False

    def __init__(self, cache: Cache, queues: Callable[[Cache, str], list[Request]]) -> None:
        self.cache, self.queues = cache, queues

    def __call__(self, obj: Resource) -> list[Request]:
        return self.queues(self.cache, obj.metadata.name or "")


# a LocalQueue's ClusterQueue is immutable: its updates requeue nothing (``lqHandler``, the worker's
# LocalQueue handler with no ``UpdateFunc``)
_CREATE_DELETE = Funcs(update=False)


def local_event_handlers(mk: MultiKueueContext) -> list[tuple[type[Resource], QueueingHandler]]:
    """The manager-side informer handlers of the reconciler, by kind: ``lqHandler``, ``acHandler`` and
    ``cqConfigHandler`` (an update when the generation changed), ``cqClusterHandler``."""
    add, cache = _AddAfterBatch(mk), mk.ctx.cache
    return [
        (LocalQueue, QueueingHandler(add, _cluster_queue_of, [_CREATE_DELETE])),
        (AdmissionCheck, QueueingHandler(add, _ByName(cache, _queues_of_check), [GenerationChanged()])),
        (MultiKueueConfig, QueueingHandler(add, _ByName(cache, _queues_of_config), [GenerationChanged()])),
        (MultiKueueCluster, QueueingHandler(add, _ByName(cache, _queues_of_cluster), [ActiveChanged()])),
    ]


class _ResourceGroupsChanged:
    """The worker's ClusterQueue handler's filter: adds and deletes, and updates changing
    ``spec.resourceGroups`` (``equality.Semantic.DeepEqual``: quantities by value, a missing list equal
    to an empty one)."""

    def create(self, obj: ClusterQueue) -> bool:
        return True

    def update(self, old: Any, new: Any) -> bool:
        if not isinstance(old, ClusterQueue) or not isinstance(new, ClusterQueue):
            return False
        return not go_equal(_resource_groups(old), _resource_groups(new), None)

    def delete(self, obj: ClusterQueue) -> bool:
        return True


def _resource_groups(cq: ClusterQueue) -> list[Any]:
    return list((cq.spec.resource_groups if cq.spec else None) or ())


_WORKER_FILTERS: dict[type[Resource], Predicate] = {
    ClusterQueue: _ResourceGroupsChanged(),
    LocalQueue: _CREATE_DELETE,
}


def worker_event_requeues(event: WatchEvent) -> bool:
    """Whether a worker's queue event passes its handler's filter (``startQueueWatchers``): a
    ClusterQueue added or deleted, or updated with its ``spec.resourceGroups`` changed; a LocalQueue
    added or deleted, never updated; any other object is not a queue's."""
    test = _WORKER_FILTERS.get(type(event.obj))
    if test is None:
        return False
    if event.type == MODIFIED:
        return test.update(event.old, event.obj)
    return test.create(event.obj) if event.type == ADDED else test.delete(event.obj)


class _ManagerQueueOf:
    """A worker's LocalQueue → the ClusterQueue of the manager's LocalQueue of the same key
    (``queueEventsForLQ``)."""

    maps_old_on_update = False

    def __init__(self, mk: MultiKueueContext) -> None:
        self.mk = mk

    def __call__(self, remote: LocalQueue) -> list[Request]:
        local = self.mk.get(LocalQueue, remote.metadata.name or "", remote.metadata.namespace or "")
        return _cluster_queue_of(local) if local is not None else []


class _ViaWorkerQueues:
    """A worker's ClusterQueue → through the worker's LocalQueues pointing to it (``queueEventsForCQ``);
    a failed list drops the event, as upstream logs it and returns."""

    maps_old_on_update = False

    def __init__(self, client: RemoteCluster, local_queue: _ManagerQueueOf) -> None:
        self.client, self.local_queue = client, local_queue

    def __call__(self, cq: ClusterQueue) -> list[Request]:
        try:
            lqs = self.client.list(LocalQueue, {})
        except ConnectionFailed:
            return []
        name = cq.metadata.name
        return [req for lq in lqs if lq.spec is not None and lq.spec.cluster_queue == name
                for req in self.local_queue(lq)]


class WorkerQueueEvents:
    """A worker's watch events: its queues → the related manager ClusterQueues through the handlers of
    ``startQueueWatchers`` (filtered as :func:`worker_event_requeues` says); every other object → the
    manager's Workload of its key, as without the gate (``MultiKueueContext.remote_event``)."""

    def __init__(self, mk: MultiKueueContext, client: RemoteCluster) -> None:
        self.mk = mk
        add, local_queue = _AddAfterBatch(mk), _ManagerQueueOf(mk)
        via_lqs = _ViaWorkerQueues(client, local_queue)
        self.handlers: dict[type[Resource], QueueingHandler] = {
            ClusterQueue: QueueingHandler(add, via_lqs, [_WORKER_FILTERS[ClusterQueue]]),
            LocalQueue: QueueingHandler(add, local_queue, [_WORKER_FILTERS[LocalQueue]]),
        }

    def __call__(self, event: WatchEvent) -> None:
        handler = self.handlers.get(type(event.obj))
        if handler is None:
            self.mk.remote_event(event)
        else:
            deliver(event, handler)
