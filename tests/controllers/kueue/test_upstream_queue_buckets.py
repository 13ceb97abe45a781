"""The invariant upstream's ``TestPendingResourcesAfterLocalQueueResync`` states for the ClusterQueue
heap (kubernetes-sigs/kueue v0.19.2 ``pkg/cache/queue/cluster_queue_test.go``): a pending workload is
tracked in exactly one bucket — the heap, the inadmissible set, or inflight — whatever sequence of
pushes, pops, requeues, resyncs, flushes and deletions the queue sees; the pending count is the
number of workloads tracked.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.kueue.scheduling.cycle import RequeueReason

from .upstream_queue import MINUTE, NOW, REQUEUED_FALSE, info, make_wl, new_cq

NAMES = ["a", "b", "c", "d"]
REASONS = [RequeueReason.GENERIC, RequeueReason.NO_FIT, RequeueReason.FAILED_AFTER_NOMINATION,
           RequeueReason.PENDING_PREEMPTION, RequeueReason.NAMESPACE_MISMATCH,
           RequeueReason.PREEMPTION_NO_CANDIDATES]

op = st.one_of(
    st.tuples(st.just("push"), st.sampled_from(NAMES), st.integers(1, 3), st.booleans()),
    st.tuples(st.just("pop")),
    st.tuples(st.just("requeue"), st.sampled_from(REASONS), st.booleans()),
    st.tuples(st.just("resync"), st.sampled_from(NAMES)),
    st.tuples(st.just("flush")),
    st.tuples(st.just("delete"), st.sampled_from(NAMES)),
)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["StrictFIFO", "BestEffortFIFO"]), st.lists(op, max_size=30))
def test_a_pending_workload_is_in_exactly_one_bucket(strategy: str, ops: list) -> None:
    cq = new_cq(strategy)
    last_popped = None
    for o in ops:
        if o[0] == "push":
            _, name, gen, backoff = o
            kw = {"requeue": (1, NOW + MINUTE), "conditions": [REQUEUED_FALSE]} if backoff else {}
            cq.push_or_update(info(make_wl(name, created=NOW, generation=gen, cpu="1", **kw)))
        elif o[0] == "pop":
            last_popped = cq.pop()
        elif o[0] == "requeue" and last_popped is not None:
            cq.requeue(last_popped, o[1], "", o[2], True)
            last_popped = None
        elif o[0] == "resync":
            cq.push_if_not_tracked(info(make_wl(o[1], created=NOW, cpu="1")))
        elif o[0] == "flush":
            cq.queue_inadmissible(lambda ns: {})
        elif o[0] == "delete":
            cq.delete(f"default/{o[1]}")
            if last_popped is not None and last_popped.name == o[1]:
                last_popped = None
        heap, inadmissible = set(cq.in_heap), set(cq.inadmissible)
        inflight = {cq.inflight.key} if cq.inflight is not None else set()
        assert not heap & inadmissible and not heap & inflight and not inadmissible & inflight
        assert set(cq.infos) == heap and len(cq.heap) == len(heap)
        assert cq.pending_total() == len(heap | inadmissible | inflight)
