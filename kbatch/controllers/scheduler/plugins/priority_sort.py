"""PrioritySort (QueueSort): higher priority first, then the earlier queue timestamp.

Upstream ``pkg/scheduler/framework/plugins/queuesort/priority_sort.go`` orders by priority, then by
``QueuedPodInfo.Timestamp``: when the pod was added to the queue, refreshed each time an attempt
fails (``AddUnschedulableIfNotPresent``), so a pod that just failed goes behind the pods of its
priority that waited since (``scheduling_queue_test.go`` ``TestRecentlyTriedPodsGoBack``,
``TestPodFailedSchedulingMultipleTimesDoesNotBlockNewerPod``). Equal timestamps (one virtual
instant) keep the order the pods arrived in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbatch.controllers.scheduler.config import plugin_args
from kbatch.controllers.scheduler.types import PodInfo

__all__ = ["PrioritySort", "new"]


class PrioritySort:
    name = "PrioritySort"

    def sort_key(self, pod: PodInfo, timestamp: float) -> tuple[int, float, int]:
        return (-pod.priority, timestamp, pod.seq)


def new(args: Mapping[str, Any], handle: Any) -> PrioritySort:
    """The registry's factory: PrioritySort takes no args."""
    plugin_args("PrioritySort", args)
    return PrioritySort()
