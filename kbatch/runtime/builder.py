"""Declare a controller by what it is for, what it owns and what else it watches
(controller-runtime ``pkg/builder``)::

    (manager.build("ttl-after-finished")
        .for_(Job)                                  # Job events → that Job
        .owns(Pod)                                  # Pod events → the Job that controls the Pod
        .watches(Node, pods_on_node, GenerationChanged())  # anything else, via a mapper
        .complete(reconciler))

Every watch registers a handler on the cache's shared informer for that kind, so controllers that
watch the same kind share one informer and one decode per event.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kbatch.api.meta import Resource
from kbatch.runtime.controller import Controller
from kbatch.runtime.handler import Mapper, QueueingHandler, enqueue_object, enqueue_owner
from kbatch.runtime.predicate import Predicate
from kbatch.runtime.reconcile import Reconciler, Request, as_reconciler
from kbatch.runtime.workqueue import RateLimiter, RateLimitingQueue

if TYPE_CHECKING:
    from kbatch.runtime.manager import Manager

__all__ = ["Builder"]


class Builder:
    def __init__(self, manager: Manager, name: str) -> None:
        if not name:
            raise ValueError("a controller needs a stable name (e.g. 'job', 'ttl-after-finished')")
        self._manager = manager
        self._name = name
        self._description = ""
        self._for: type[Resource] | None = None
        self._watches: list[tuple[type[Resource], Mapper | None, tuple[Predicate, ...], str]] = []
        self._rate_limiter: RateLimiter | None = None
        self._periodic = False

    def describe(self, text: str) -> Builder:
        self._description = text
        return self

    def for_(self, kind: type[Resource], *predicates: Predicate) -> Builder:
        if self._for is not None:
            raise ValueError(f"{self._name}: for_() may be called once (already for {self._for.__name__})")
        self._for = kind
        self._watches.append((kind, enqueue_object, predicates, "for"))
        return self

    def owns(self, kind: type[Resource], *predicates: Predicate) -> Builder:
        self._watches.append((kind, None, predicates, "owns"))
        return self

    def watches(self, kind: type[Resource], mapper: Callable[[Any], Any], *predicates: Predicate) -> Builder:
        self._watches.append((kind, mapper, predicates, "watches"))
        return self

    def periodic(self) -> Builder:
        """The controller's requeues are a fixed housekeeping period (pod GC's sweep): its timers do
        not keep the control plane from being idle (``TimerQueue.has_pending_work``)."""
        self._periodic = True
        return self

    def with_rate_limiter(self, limiter: RateLimiter) -> Builder:
        self._rate_limiter = limiter
        return self

    def complete(self, reconciler: Reconciler | Callable[[Request], Any]) -> Controller:
        m = self._manager
        queue: RateLimitingQueue[Request] = RateLimitingQueue(
            m.clock, m.timers, self._rate_limiter, self._name, periodic=self._periodic)
        controller = Controller(self._name, as_reconciler(reconciler), queue,
                                description=self._description, observe=m.observe)
        for kind, mapper, predicates, role in self._watches:
            if role == "owns":
                if self._for is None:
                    raise ValueError(f"{self._name}: owns({kind.__name__}) needs for_() first")
                mapper = enqueue_owner(self._for)
            assert mapper is not None
            m.cache.informer_for(kind).add_event_handler(QueueingHandler(queue.add, mapper, predicates))
        m.add(controller)
        return controller
