"""The ``podgc`` controller (upstream ``pkg/controller/podgc``): terminated pods beyond the
threshold, terminating pods of out-of-service nodes, pods of vanished nodes and unscheduled terminating
pods, every 20 s of virtual time."""

from __future__ import annotations

from kbatch.controllers.podgc.controller import PodGC
from kbatch.controllers.podgc.decisions import (
    GC_PERIOD,
    QUARANTINE,
    TERMINATED_POD_GC_THRESHOLD,
    PodFacts,
    orphaned,
    out_of_service,
    terminated_to_delete,
    terminating_out_of_service,
    unscheduled_terminating,
)
from kbatch.runtime.context import ControllerContext

__all__ = [
    "GC_PERIOD",
    "QUARANTINE",
    "TERMINATED_POD_GC_THRESHOLD",
    "PodFacts",
    "PodGC",
    "orphaned",
    "out_of_service",
    "setup",
    "terminated_to_delete",
    "terminating_out_of_service",
    "unscheduled_terminating",
]

SWEEP = ("", "podgc/sweep")


def setup(ctx: ControllerContext) -> PodGC:
    from kbatch.runtime.reconcile import Request

    gc = PodGC(ctx)
    builder = ctx.build().describe("deletes terminated, orphaned and unscheduled terminating pods").periodic()
    controller = builder.complete(gc)
    controller.queue.add(Request(*SWEEP))  # upstream runs a sweep at start, then every period
    return gc
