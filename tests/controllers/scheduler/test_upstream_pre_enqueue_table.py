"""Cases of upstream's ``TestPriorityQueue_addToActiveQ`` (``pkg/scheduler/backend/queue/
scheduling_queue_test.go``, the 1.36/1.37 layout also ported in test_upstream_scheduling_queue_table.py),
through kbatch's :class:`SchedulingQueue`: a pod that any PreEnqueue plugin rejects is held back
(upstream keeps it in ``unschedulablePods`` marked gated; kbatch files it as ``gated``), one that all
pass enters the active queue; an update that leaves the plugins' answer unchanged (upstream: an
annotation) keeps a gated pod where it is.

The allowlist plugin is upstream's ``preEnqueuePlugin``: a pod passes when one of its label keys is
in the list.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from kbatch.controllers.scheduler.events import UNSCHEDULED_POD, ActionType, ClusterEvent
from kbatch.controllers.scheduler.framework import Status
from kbatch.controllers.scheduler.plugins.priority_sort import PrioritySort
from kbatch.controllers.scheduler.queue import SchedulingQueue
from kbatch.controllers.scheduler.types import PodInfo

from .sched_builders import pod


@dataclass
class _Allowlist:
    allowlists: tuple[str, ...] = ()
    name: str = "preEnqueuePlugin"

    def pre_enqueue(self, p: PodInfo) -> Status | None:
        if any(label in self.allowlists for label in p.labels):
            return None
        return Status.unresolvable(self.name, "pod name not in allowlists")


CASES = [
    ("no plugins registered", (), "p", True),
    ("preEnqueue plugin registered, pod name not in allowlists", (_Allowlist(), _Allowlist()), "p", False),
    ("preEnqueue plugin registered, pod failed one preEnqueue plugin",
     (_Allowlist(("foo", "bar")), _Allowlist(("foo",))), "bar", False),
    ("preEnqueue plugin registered, pod passed all preEnqueue plugins",
     (_Allowlist(("foo", "bar")), _Allowlist(("bar",))), "bar", True),
]


@pytest.mark.parametrize(("name", "plugins", "pod_name", "success"), CASES, ids=[c[0] for c in CASES])
def test_add_to_active_q(name: str, plugins: tuple[_Allowlist, ...], pod_name: str, success: bool) -> None:
    q = SchedulingQueue(PrioritySort().sort_key, pre_enqueue=plugins)
    p = replace(pod(pod_name), labels={pod_name: ""})
    q.add(p, 0.0)
    assert q.where(p.key) == ("active" if success else "gated")
    assert len(q.gated()) == (0 if success else 1)
    # "Simulate an update event": an annotation only; the pod stays where it is
    q.update(p, [ClusterEvent(UNSCHEDULED_POD, ActionType.UPDATE)], p, 1.0)
    assert len(q.gated()) == (0 if success else 1)
    assert q.where(p.key) == ("active" if success else "gated")
