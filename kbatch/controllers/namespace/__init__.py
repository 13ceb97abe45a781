"""The ``namespace`` controller (kube-controller-manager's ``namespace-controller``,
``pkg/controller/namespace/namespace_controller.go``): empties a terminating namespace and finalizes it.

Requests are namespaces. A namespace added or updated with a ``deletionTimestamp`` enqueues it, as
upstream's ``enqueueNamespace`` ("don't queue if we aren't deleted"; no ``DeleteFunc``): creating or
relabelling a live namespace, or its final delete, reconciles nothing. Upstream queues it after a 5 s
``namespaceDeletionGracePeriod`` for HA API servers and etcd members to see the deletion; kbatch has
one API server and queues it at once. An event of any namespaced object in a namespace known to be
terminating enqueues that namespace, so graceful pod deletions and released finalizers move the
deletion on without polling (upstream requeues after the deleter's estimate instead). The work is
:class:`.deleter.NamespaceDeleter`.
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
from kbatch.runtime.predicate import Funcs

__all__ = ["CONDITION_TYPES", "ContentTotals", "NamespaceController", "NamespaceDeleter",
           "deletion_conditions", "setup"]


def _deleting(ns: Any) -> bool:
    return ns.metadata.deletion_timestamp is not None


NAMESPACE_EVENTS = Funcs(create=_deleting, update=_deleting, delete=False)

_EVENT_KINDS = ("Event",)  # not watched: the deleter removes them at once, nothing waits on them


def _now(clock: Any) -> Any:
    """Now at metav1.Time precision (whole seconds)."""
    return clock.now_datetime().replace(microsecond=0)


class NamespaceController:
    def __init__(self, ctx: ControllerContext, registry: Registry) -> None:
        lifecycle = ctx.server.namespaces if ctx.server is not None else None
        self.deleter = NamespaceDeleter(ctx.client, registry, lifecycle, functools.partial(_now, ctx.clock))
        self.terminating: set[str] = set()

    def for_content(self, obj: Any) -> list[Any]:
        from kbatch.runtime.reconcile import Request

        namespace = obj.metadata.namespace
        return [Request("", namespace)] if namespace in self.terminating else []

    def reconcile(self, request: Any) -> Any:
        from kbatch.api.core_v1 import Namespace
        from kbatch.api.errors import NotFound

        name = request.name
        try:
            ns = self.deleter.client.get(Namespace, name)
        except NotFound:
            self.terminating.discard(name)
            return None
        if ns.metadata.deletion_timestamp is None:
            self.terminating.discard(name)
            return None
        self.terminating.add(name)  # before deleting: content events from here on enqueue it
        if self.deleter.sync(name):
            self.terminating.discard(name)
        return None


def setup(ctx: ControllerContext) -> NamespaceController:
    """Catalog factory for ``namespace``."""
    from kbatch.api.core_v1 import Namespace

    registry = ctx.registry
    controller = NamespaceController(ctx, registry)
    builder = ctx.build().describe("deletes the content of terminating namespaces, then finalizes them")
    builder.for_(Namespace, NAMESPACE_EVENTS)
    for spec in registry:
        if spec.info.namespaced and spec.info.kind not in _EVENT_KINDS:
            builder.watches(spec.model, controller.for_content)
    builder.complete(controller)
    return controller
