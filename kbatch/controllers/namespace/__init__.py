"""The ``namespace`` controller (kube-controller-manager's ``namespace-controller``,
``pkg/controller/namespace/namespace_controller.go``): empties a terminating namespace and finalizes it.

Requests are namespaces. A namespace added or updated with a ``deletionTimestamp`` is queued after
upstream's 5 s ``namespaceDeletionGracePeriod`` (``enqueueNamespace``: "don't queue if we aren't
deleted", no ``DeleteFunc``), which upstream waits for HA API servers and etcd members to see the
deletion; kbatch keeps the delay so a deletion takes as long as upstream's. Creating or relabelling a
live namespace, or its final delete, reconciles nothing, and no content event is watched, as
upstream. A pass that leaves content comes back as upstream's ``worker`` decides: after
``estimate / 2 + 1`` seconds (:class:`.deleter.ContentTotals` ``estimate``, integer division) while
content is expected to go, or rate-limited (5 ms doubling to 60 s, ``nsControllerRateLimiter``) on
an error such as items left past their estimate. The work is :class:`.deleter.NamespaceDeleter`.
"""

from __future__ import annotations

import functools
from typing import Any

from kbatch.api.registry import Registry
from kbatch.controllers.namespace.deleter import (
    CONDITION_TYPES,
    ContentTotals,
    NamespaceDeleter,
    deletion_conditions,
)
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.workqueue.rate_limiters import (
    BucketRateLimiter,
    ItemExponentialFailureRateLimiter,
    max_of,
)

__all__ = [
    "CONDITION_TYPES",
    "DELETION_GRACE_PERIOD",
    "ContentRemaining",
    "ContentTotals",
    "NamespaceController",
    "NamespaceDeleter",
    "deletion_conditions",
    "setup",
]

DELETION_GRACE_PERIOD = 5.0  # upstream namespaceDeletionGracePeriod


class ContentRemaining(Exception):
    """A pass failed (upstream ``AddRateLimited``): the deleter's errors, joined."""


class _NamespaceHandler:
    """``enqueueNamespace`` on add and update, for a namespace being deleted, after the grace period."""

    def __init__(self, queue: Any) -> None:
        self.queue = queue

    def _enqueue(self, ns: Any) -> None:
        from kbatch.runtime.reconcile import Request

        if ns.metadata.deletion_timestamp is not None:
            self.queue.add_after(Request("", ns.metadata.name or ""), DELETION_GRACE_PERIOD)

    def on_add(self, obj: Any) -> None:
        self._enqueue(obj)

    def on_update(self, old: Any, new: Any) -> None:
        self._enqueue(new)

    def on_delete(self, obj: Any) -> None:
        return None


def _now(clock: Any) -> Any:
    """Now at metav1.Time precision (whole seconds)."""
    return clock.now_datetime().replace(microsecond=0)


class NamespaceController:
    def __init__(self, ctx: ControllerContext, registry: Registry) -> None:
        lifecycle = ctx.server.namespaces if ctx.server is not None else None
        self.deleter = NamespaceDeleter(ctx.client, registry, lifecycle, functools.partial(_now, ctx.clock))

    def reconcile(self, request: Any) -> Any:
        from kbatch.runtime.reconcile import Result

        left = self.deleter.sync(request.name)
        if left is None:
            return None
        if left.errors:
            raise ContentRemaining("; ".join(sorted(left.errors)))
        return Result(requeue_after=left.estimate // 2 + 1)


def setup(ctx: ControllerContext) -> NamespaceController:
    """Catalog factory for ``namespace``: upstream ``nsControllerRateLimiter`` (per namespace 5 ms
    doubling to 60 s, overall 10 qps with a burst of 100)."""
    from kbatch.api.core_v1 import Namespace

    controller = NamespaceController(ctx, ctx.registry)
    limiter = max_of(ItemExponentialFailureRateLimiter(0.005, 60.0), BucketRateLimiter(ctx.clock, 10.0, 100))
    built = (ctx.build().describe("deletes the content of terminating namespaces, then finalizes them")
             .with_rate_limiter(limiter).complete(controller))
    ctx.cache.informer_for(Namespace).add_event_handler(_NamespaceHandler(built.queue))
    return controller
