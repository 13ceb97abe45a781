"""PrioritySort (QueueSort): higher priority first, then earlier arrival.

Upstream ``pkg/scheduler/framework/plugins/queuesort/priority_sort.go`` orders by priority, then by
the time the pod was added to the queue. kbatch uses the pod's creation time and then its arrival
sequence, so equal-priority pods keep the order in which they were created.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbatch.controllers.scheduler.config import plugin_args
from kbatch.controllers.scheduler.types import PodInfo

__all__ = ["PrioritySort", "new"]


class PrioritySort:
    name = "PrioritySort"

    def sort_key(self, pod: PodInfo) -> tuple[int, float, int]:
        return (-pod.priority, pod.creation, pod.seq)


def new(args: Mapping[str, Any], handle: Any) -> PrioritySort:
    """The registry's factory: PrioritySort takes no args."""
    plugin_args("PrioritySort", args)
    return PrioritySort()
