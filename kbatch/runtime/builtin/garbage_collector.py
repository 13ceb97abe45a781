"""``garbage-collector``: drives the API server's ownerReference garbage collector from the loop.

The semantics (background/foreground/orphan propagation, blockOwnerDeletion, the
``foregroundDeletion``/``orphan`` finalizers) are the API layer's (upstream
``pkg/controller/garbagecollector``); this controller only gives that collector its turns: whenever
it has pending work, the loop calls ``sync()`` in the same round as the watch deliveries, so
dependents disappear at the same virtual instant their owner did, before time moves.
"""

from __future__ import annotations

from typing import Any

from kbatch.apiserver.identities import UserInfo
from kbatch.apiserver.requester import LOCAL_ADMIN, run_as
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.events import ObjectRef
from kbatch.runtime.recorder import Recorder

__all__ = ["GarbageCollectorStepper", "InvalidNamespaceReporter", "setup"]


class GarbageCollectorStepper:
    name = "garbage-collector"

    def __init__(self, collector: Any, user: UserInfo = LOCAL_ADMIN) -> None:
        self.collector = collector
        self.user = user  # the collector writes through the API server itself: as this user

    def step(self) -> int:
        if not self.collector.has_pending():
            return 0
        return int(run_as(self.user, self.collector.sync))

    def close(self) -> None:
        """The collector's store watch ends with the runtime: a restarted control plane keeps the
        store, where a forgotten watch would hold this runtime and pin the watch log unread."""
        self.collector.close()


_MESSAGE = 'ownerRef [%s/%s, namespace: %s, name: %s, uid: %s] does not exist in namespace "%s"'


class InvalidNamespaceReporter:
    """Upstream ``graph_builder.go`` reportInvalidNamespaceOwnerRef: a Warning
    ``OwnerRefInvalidNamespace`` on the dependent, naming the reference as upstream's objectReference
    prints it, with the dependent's namespace as the one the owner was looked for in. A class, not a
    closure, so a control-plane image can be pickled."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def __call__(self, dep: Any, ref: Any) -> None:
        ns = dep.namespace or ""
        info = dep.kind.info
        involved = ObjectRef(info.kind, info.api_version, dep.name, dep.namespace, dep.uid)
        message = _MESSAGE % (ref.api_version, ref.kind, ns, ref.name, ref.uid, ns)
        self.recorder.event(involved, "Warning", "OwnerRefInvalidNamespace", message)


def setup(ctx: ControllerContext) -> GarbageCollectorStepper:
    if ctx.server is None:
        raise RuntimeError("garbage-collector needs the in-process API server (ctx.server)")
    from kbatch.apiserver import GarbageCollector

    collector = GarbageCollector(ctx.server, report=InvalidNamespaceReporter(ctx.recorder))
    stepper = GarbageCollectorStepper(collector, ctx.user)
    ctx.manager.add(stepper)
    return stepper
