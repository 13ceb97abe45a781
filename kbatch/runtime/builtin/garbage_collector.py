"""``garbage-collector``: drives the API server's ownerReference garbage collector from the loop.

The semantics (background/foreground/orphan propagation, blockOwnerDeletion, the
``foregroundDeletion``/``orphan`` finalizers) are the API layer's (upstream
``pkg/controller/garbagecollector``); this controller only gives that collector its turns: whenever
it has pending work, the loop calls ``sync()`` in the same round as the watch deliveries, so
dependents disappear at the same virtual instant their owner did, before time moves.
"""

from __future__ import annotations

from typing import Any

from kbatch.runtime.context import ControllerContext

__all__ = ["GarbageCollectorStepper", "setup"]


class GarbageCollectorStepper:
    name = "garbage-collector"

    def __init__(self, collector: Any) -> None:
        self.collector = collector

    def step(self) -> int:
        if not self.collector.has_pending():
            return 0
        return int(self.collector.sync())


def setup(ctx: ControllerContext) -> GarbageCollectorStepper:
    if ctx.server is None:
        raise RuntimeError("garbage-collector needs the in-process API server (ctx.server)")
    from kbatch.apiserver import GarbageCollector

    stepper = GarbageCollectorStepper(GarbageCollector(ctx.server))
    ctx.manager.add(stepper)
    return stepper
