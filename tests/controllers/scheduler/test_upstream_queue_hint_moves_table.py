"""Cases of upstream's ``TestPriorityQueue_MoveAllToActiveOrBackoffQueueWithQueueingHint``
(``pkg/scheduler/backend/queue/scheduling_queue_test.go``, the 1.36/1.37 layout also ported in
test_upstream_scheduling_queue_table.py), through kbatch's :class:`SchedulingQueue`: plugin ``foo``
registers Node/Add with a hint that answers Queue or QueueSkip; the pod failed with ``foo`` as a
rejecting (UnschedulablePlugins) or Pending plugin; a Node/Add event after ``duration`` seconds."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.controllers.scheduler.events import NODE_ADD, QUEUE, QUEUE_SKIP, ClusterEventWithHint, HintMap
from kbatch.controllers.scheduler.plugins.priority_sort import PrioritySort
from kbatch.controllers.scheduler.queue import INITIAL_BACKOFF, SchedulingQueue

from .sched_builders import node, pod


def _queue(answer: Any) -> SchedulingQueue:
    hints = HintMap([("foo", ClusterEventWithHint(NODE_ADD, lambda p, old, new: answer))])
    return SchedulingQueue(PrioritySort().sort_key, hints=hints)


CASES = [
    ("Queue queues pod to activeQ", QUEUE, "pending", 0.0, "active"),
    ("Queue queues pod to backoffQ if Pod is backing off", QUEUE, "rejected", 0.0, "backoff"),
    ("Queue queues pod to activeQ if Pod is not backing off", QUEUE, "rejected", INITIAL_BACKOFF, "active"),
    ("Skip queues pod to unschedulablePods", QUEUE_SKIP, "rejected", 0.0, "unschedulable"),
]


@pytest.mark.parametrize(("name", "answer", "how", "duration", "want"), CASES, ids=[c[0] for c in CASES])
def test_move_all_to_active_or_backoff_queue_with_queueing_hint(name: str, answer: Any, how: str,
                                                                duration: float, want: str) -> None:
    q, p = _queue(answer), pod("pod1", namespace="ns1")
    q.add(p, 0.0)
    assert q.pop(0.0) is p
    if how == "pending":
        q.unschedulable(p, 0.0, (), ("foo",))
    else:
        q.unschedulable(p, 0.0, ("foo",))
    q.move(NODE_ADD, None, node("n"), duration)
    assert q.where(p.key) == want
