"""Upstream's ``pkg/cache/queue/cluster_queue_test.go`` (kubernetes-sigs/kueue v0.19.2), case by case,
against kbatch's ClusterQueue heap (:class:`kbatch.controllers.kueue.queues.ClusterQueueQueue`).

Upstream's tests are of the data structure (``newClusterQueueImpl``, ``PushOrUpdate``, ``Pop``,
``requeueIfNotPresent``, ``queueInadmissibleWorkloads``); kbatch has the same structure, so the
cases drive it directly. Case ids are upstream's names.
"""

from __future__ import annotations

import pytest

from kbatch.api.meta import LabelSelector
from kbatch.api.selectors import selector_from_model
from kbatch.controllers.kueue.scheduling.assignment import LastState
from kbatch.controllers.kueue.scheduling.cycle import RequeueReason

from .upstream_queue import (
    EVICTED_PODS_READY,
    MINUTE,
    NOW,
    REQUEUED_FALSE,
    REQUEUED_TRUE,
    Clock,
    active,
    cond,
    inadmissible,
    info,
    make_wl,
    new_cq,
    requeue_if_not_present,
)

SECOND = MINUTE / 60

# --- Test_PushOrUpdate ----------------------------------------------------------------------------
PUSH_OR_UPDATE = {
    "workload doesn't have re-queue state": ({}, "default/workload-1", []),
    "workload is still under the backoff waiting time": (
        {"requeue": (10, NOW + MINUTE), "conditions": [EVICTED_PODS_READY, REQUEUED_FALSE]},
        None, ["default/workload-1"]),
    "should wait for Requeued=true after backoff waiting time before push to heap": (
        {"conditions": [EVICTED_PODS_READY, REQUEUED_FALSE]}, None, ["default/workload-1"]),
    "should push workload to heap after Requeued=true": (
        {"conditions": [EVICTED_PODS_READY, REQUEUED_TRUE]}, "default/workload-1", []),
}


@pytest.mark.parametrize("case", list(PUSH_OR_UPDATE))
def test_push_or_update(case: str) -> None:
    """``Test_PushOrUpdate``: push, push the updated version, pop."""
    kw, want_popped, want_inadmissible = PUSH_OR_UPDATE[case]
    cq = new_cq()
    assert cq.pending_total() == 0
    cq.push_or_update(info(make_wl("workload-1", **kw)))
    assert cq.pending_total() == 1
    cq.push_or_update(info(make_wl("workload-1", resource_version="1", **kw)))
    popped = cq.pop()
    if popped is not None:
        assert cq.pending_total() == 1
        assert popped.obj.metadata.resource_version == "1"
    assert (popped.key if popped else None) == want_popped
    assert inadmissible(cq) == want_inadmissible
    for wi in cq.inadmissible.values():
        assert wi.obj.metadata.resource_version == "1"  # updated in place


def test_pop() -> None:
    """``Test_Pop``."""
    cq = new_cq()
    assert cq.pop() is None
    cq.push_or_update(info(make_wl("workload-1", created=NOW)))
    cq.push_or_update(info(make_wl("workload-2", created=NOW + SECOND)))
    assert cq.pop().name == "workload-1"
    assert cq.pop().name == "workload-2"
    assert cq.pop() is None


def test_push_or_update_skips_inflight_workload() -> None:
    """``TestPushOrUpdateSkipsInflightWorkload``."""
    cq = new_cq()
    cq.push_or_update(info(make_wl("workload-1", created=NOW)))
    assert cq.pop() is not None
    cq.push_or_update(info(make_wl("workload-1", created=NOW, resource_version="1")))
    assert active(cq) == [] and inadmissible(cq) == []


GENERATION_CHANGED = {
    "moves to heap when generation changed": ({}, 1, 0),
    "stays inadmissible when generation changed but backoff unexpired": (
        {"requeue": (1, NOW + 60 * MINUTE), "conditions": [REQUEUED_FALSE]}, 0, 1),
}


@pytest.mark.parametrize("case", list(GENERATION_CHANGED))
def test_push_or_update_generation_changed(case: str) -> None:
    """``TestPushOrUpdateGenerationChanged``: the workload changed (generation 2) while the scheduler
    evaluated generation 1; requeued as inadmissible, then the informer's update arrives."""
    kw, want_active, want_inadmissible = GENERATION_CHANGED[case]
    cq = new_cq()
    cq.push_or_update(info(make_wl("workload-1", created=NOW, generation=1)))
    assert cq.pop() is not None
    updated = make_wl("workload-1", created=NOW, generation=2, resource_version="2", priority=300, **kw)
    cq.requeue(info(updated), RequeueReason.GENERIC, "", False, False)
    cq.push_or_update(info(updated))
    assert (len(active(cq)), len(inadmissible(cq))) == (want_active, want_inadmissible)


def test_delete() -> None:
    """``Test_Delete``: deletion goes by namespace/name only."""
    cq = new_cq()
    cq.push_or_update(info(make_wl("workload-1")))
    cq.push_or_update(info(make_wl("workload-2")))
    assert cq.pending_total() == 2
    cq.delete("default/workload-1")
    assert cq.pending_total() == 1
    cq.delete("default/workload-2")
    assert cq.pending_total() == 0


def test_info() -> None:
    """``Test_Info``."""
    cq = new_cq()
    assert cq.tracked("default/workload-1") is None
    cq.push_or_update(info(make_wl("workload-1")))
    assert cq.tracked("default/workload-1") is not None


def test_add_from_local_queue() -> None:
    """``Test_AddFromLocalQueue``: a tracked workload is not added again; after deletion it is."""
    cq = new_cq()
    wi = info(make_wl("workload-1"))
    cq.push_or_update(wi)
    assert cq.push_if_not_tracked(wi) is False
    cq.delete(wi.key)
    assert cq.push_if_not_tracked(wi) is True


def test_cluster_queue_is_preemptor() -> None:
    """``TestClusterQueueIsPreemptor``: the preemptor is the workload at the generation evaluated."""
    cq = new_cq()
    wl = make_wl("wl", generation=1)
    cq.push_or_update(info(wl))
    head = cq.pop()
    assert not _is_preemptor(cq, head)
    cq.requeue(head, RequeueReason.PENDING_PREEMPTION, "", False, False)
    assert _is_preemptor(cq, info(wl))
    assert not _is_preemptor(cq, info(make_wl("other")))
    assert not _is_preemptor(cq, info(make_wl("wl", generation=2)))


def _is_preemptor(cq, wi) -> bool:  # type: ignore[no-untyped-def]
    return bool(cq.is_preemptor(wi))


def test_pending_resources_after_local_queue_resync() -> None:
    """``TestPendingResourcesAfterLocalQueueResync`` (the bucket invariants; kbatch keeps no
    pending-resources metric): an ``AddFromLocalQueue`` resync never pushes a tracked workload."""
    for before in ("inadmissible", "inflight"):
        cq = new_cq()
        wi = info(make_wl("workload", created=NOW, cpu="1"))
        if before == "inadmissible":
            cq.inadmissible[wi.key] = wi  # insertInadmissible
        else:
            cq.push_or_update(wi)
            assert cq.pop() is not None
        assert cq.push_if_not_tracked(wi) is False
        assert (wi.key in cq.in_heap, wi.key in cq.inadmissible, cq.inflight is not None) == (
            False, before == "inadmissible", before == "inflight")
        assert cq.pending_active() == (1 if before == "inflight" else 0)
    cq = new_cq()
    wi = info(make_wl("workload", created=NOW, cpu="1"))
    cq.inadmissible[wi.key] = wi
    assert cq.queue_inadmissible(lambda ns: {}) == 1  # "requeuing all inadmissible workloads ..."
    assert active(cq) == [wi.key] and cq.pending_active() == 1
    cq.delete(wi.key)  # "deleting the workload removes it and its resources"
    assert cq.pending_total() == 0


def test_delete_from_local_queue() -> None:
    """``Test_DeleteFromLocalQueue``: two in the heap and two inadmissible, all removed."""
    cq = new_cq()
    for n in ("wl1", "wl2"):
        cq.push_or_update(info(make_wl(n, "", queue="foo")))
    for n in ("wl3", "wl4"):
        requeue_if_not_present(cq, info(make_wl(n, "", queue="foo")), False)
    assert cq.pending_total() == 4 and len(cq.inadmissible) == 2
    for n in ("wl1", "wl2", "wl3", "wl4"):
        cq.delete(f"/{n}")
    assert cq.pending_total() == 0


# --- TestClusterQueueImpl -------------------------------------------------------------------------
NS_LABELS = {"ns1": {"dep": "eng"}, "ns2": {"dep": "sales"}, "ns3": {"dep": "marketing"}}


def _impl_workloads() -> list:
    return [
        make_wl("w1", "ns1", queue="q1"),
        make_wl("w2", "ns2", queue="q2"),
        make_wl("w3", "ns3", queue="q3"),
        make_wl("w4-requeue-state", "ns1", queue="q1", requeue=(1, NOW + MINUTE),
                conditions=[EVICTED_PODS_READY]),
    ]


W = _impl_workloads()
UPD0 = make_wl("w1", "ns1", queue="q2")
UPD1 = make_wl("w2", "ns2", queue="q1")
RECLAIM_W = make_wl("w", "", cpu="1")
RECLAIM_W2 = make_wl("w", "", cpu="1", count=2, reclaimable=1)

# name: (add, requeue inadmissible, requeue admissible, update, delete, flush, want active,
#        want pending, want requeued by the flush)
CQ_IMPL = {
    "add, update, delete workload": (
        [W[0], W[1], W[3]], [], [], [UPD0], [W[0]], False, ["ns2/w2"], 2, None),
    "re-queue inadmissible workload; workloads with requeueState can't re-queue": (
        [W[0]], [W[1], W[3]], [], [], [], False, ["ns1/w1"], 3, None),
    "re-queue admissible workload that was inadmissible": (
        [W[0]], [W[1], W[3]], [W[1], W[3]], [], [], False, ["ns1/w1", "ns2/w2"], 3, None),
    "re-queue inadmissible workload and flush": (
        [W[0]], [W[1], W[3]], [], [], [], True, ["ns1/w1", "ns2/w2"], 3, 1),
    "re-queue multiple inadmissible workloads and count": (
        [], [W[0], W[1]], [], [], [], True, ["ns1/w1", "ns2/w2"], 2, 2),
    "count only workloads that actually moved": (
        [W[0]], [W[1], W[2]], [], [], [], True, ["ns1/w1", "ns2/w2"], 3, 1),
    "workload already on heap is not made inadmissible": (
        [W[1]], [W[1]], [], [], [], True, ["ns2/w2"], 1, 0),
    "avoid re-queueing inadmissible workloads not matching namespace selector": (
        [W[0]], [W[2]], [], [], [], True, ["ns1/w1"], 2, 0),
    "update inadmissible workload": (
        [W[0]], [W[1]], [], [UPD1], [], False, ["ns1/w1", "ns2/w2"], 2, None),
    "delete inadmissible workload": (
        [W[0]], [W[1]], [], [], [W[1]], True, ["ns1/w1"], 1, 0),
    "update inadmissible workload without changes": (
        [], [W[1]], [], [W[1]], [], False, [], 1, None),
    "requeue inadmissible workload twice": (
        [], [W[1], W[1]], [], [], [], False, [], 1, None),
    "update reclaimable pods in inadmissible": (
        [], [RECLAIM_W], [], [RECLAIM_W2], [], False, ["/w"], 1, None),
}


@pytest.mark.parametrize("case", list(CQ_IMPL))
def test_cluster_queue_impl(case: str) -> None:
    """``TestClusterQueueImpl``: namespace selector ``dep in (eng, sales)``."""
    add, inadm, adm, upd, dele, flush, want_active, want_pending, want_moved = CQ_IMPL[case]
    sel = selector_from_model(LabelSelector.model_validate(
        {"matchExpressions": [{"key": "dep", "operator": "In", "values": ["eng", "sales"]}]}))
    cq = new_cq("", sel, Clock())
    for w in add:
        cq.push_or_update(info(w))
    for w in inadm:
        requeue_if_not_present(cq, info(w), False)
    for w in adm:
        requeue_if_not_present(cq, info(w), True)
    for w in upd:
        cq.push_or_update(info(w))
    for w in dele:
        cq.delete(info(w).key)
    if flush:
        moved = cq.queue_inadmissible(lambda ns: NS_LABELS.get(ns))
        assert moved == want_moved
    assert active(cq) == want_active
    assert cq.pending_total() == want_pending


def test_queue_inadmissible_workloads_during_scheduling() -> None:
    """``TestQueueInadmissibleWorkloadsDuringScheduling``: a requeue of the inadmissible workloads
    while the head is being scheduled sends it back to the heap; without one it goes inadmissible."""
    cq = new_cq("")
    cq.push_or_update(info(make_wl("workload-1")))
    assert active(cq) == ["default/workload-1"]
    head = cq.pop()
    cq.queue_inadmissible(lambda ns: {})
    cq.requeue(head, RequeueReason.GENERIC, "", False, False)
    assert active(cq) == ["default/workload-1"]
    head = cq.pop()
    cq.requeue(head, RequeueReason.GENERIC, "", False, False)
    assert active(cq) == []


BACKOFF = {
    "workload still have Requeued=false": ({"conditions": [cond("Requeued", "False")]}, False),
    "workload doesn't have requeueState": ({}, True),
    "workload doesn't have an evicted condition with reason=PodsReadyTimeout": (
        {"requeue": (10, None)}, True),
    "now already has exceeded requeueAt": (
        {"requeue": (10, NOW - MINUTE), "conditions": [EVICTED_PODS_READY]}, True),
    "now hasn't yet exceeded requeueAt": (
        {"requeue": (10, NOW + MINUTE), "conditions": [EVICTED_PODS_READY]}, False),
}


@pytest.mark.parametrize("case", list(BACKOFF))
def test_backoff_waiting_time_expired(case: str) -> None:
    """``TestBackoffWaitingTimeExpired``."""
    kw, want = BACKOFF[case]
    assert new_cq().backoff_expired(info(make_wl("wl", "ns", **kw))) is want


def test_backoff_expires_at_requeue_at_exactly() -> None:
    """``backoffWaitingTimeExpired`` checks "Equal" as well as "After" (whole-second times)."""
    assert new_cq().backoff_expired(info(make_wl("wl", requeue=(1, NOW)))) is True


# --- TestBestEffortFIFORequeueIfNotPresent / TestStrictFIFORequeueIfNotPresent -----------------------
BEST_EFFORT = {
    "failure after nomination": (RequeueReason.FAILED_AFTER_NOMINATION, None, False, False),
    "pending preemption": (RequeueReason.PENDING_PREEMPTION, None, False, True),
    "preemption failed": (RequeueReason.PREEMPTION_FAILED, None, False, False),
    "namespace doesn't match": (RequeueReason.NAMESPACE_MISMATCH, None, True, False),
    "didn't fit and no pending flavors": (
        RequeueReason.GENERIC, [{"memory": -1}, {"cpu": -1, "memory": -1}], True, False),
    "didn't fit but pending flavors": (
        RequeueReason.GENERIC, [{"cpu": -1, "memory": 0}, {"memory": 1}], False, False),
    "nofit": (RequeueReason.NO_FIT, None, True, False),
    "preempt no candidates": (RequeueReason.PREEMPTION_NO_CANDIDATES, None, True, False),
}


@pytest.mark.parametrize("case", list(BEST_EFFORT))
def test_best_effort_fifo_requeue_if_not_present(case: str) -> None:
    """``TestBestEffortFIFORequeueIfNotPresent``."""
    reason, tried, want_inadmissible, want_sticky = BEST_EFFORT[case]
    cq = new_cq("BestEffortFIFO")
    wi = info(make_wl("workload-1"))
    pending = LastState(tried=tried).pending_flavors() if tried is not None else False
    assert cq.requeue(wi, reason, "", pending, False) is True
    assert (wi.key in cq.inadmissible) is want_inadmissible
    assert cq.is_sticky(wi.key) is want_sticky
    assert cq.requeue(info(make_wl("workload-1")), reason, "", pending, False) is False


STRICT = {
    RequeueReason.FAILED_AFTER_NOMINATION: False,
    RequeueReason.NAMESPACE_MISMATCH: True,
    RequeueReason.GENERIC: False,
}


@pytest.mark.parametrize("reason", list(STRICT), ids=lambda r: r or "Generic")
def test_strict_fifo_requeue_if_not_present(reason: str) -> None:
    """``TestStrictFIFORequeueIfNotPresent``."""
    cq = new_cq("StrictFIFO")
    wi = info(make_wl("workload-1"))
    assert cq.requeue(wi, reason, "", False, False) is True
    assert (wi.key in cq.inadmissible) is STRICT[reason]
    assert cq.requeue(info(make_wl("workload-1")), reason, "", False, False) is False


def test_fifo_cluster_queue() -> None:
    """``TestFIFOClusterQueue``: the oldest first; an update reorders; a deleted one is gone."""
    cq = new_cq("StrictFIFO")
    for name, at in (("now", NOW), ("before", NOW - SECOND), ("after", NOW + SECOND)):
        cq.push_or_update(info(make_wl(name, "", created=at)))
    assert cq.pop().name == "before"
    cq.push_or_update(info(make_wl("after", "", created=NOW - MINUTE)))
    assert cq.pop().name == "after"
    cq.delete("/now")
    assert cq.pop() is None


T1, T2, T3 = NOW, NOW + SECOND, NOW + 2 * SECOND
EVICTED_T3 = cond("Evicted", "True", "PodsReadyTimeout", T3, "by test")
STRICT_FIFO = {
    "w1.priority is higher than w2.priority": (
        {"created": T1, "priority": 1000}, {"created": T2, "priority": 0}, "Eviction", "w1"),
    "w1.priority equals w2.priority and w1.create time is earlier than w2.create time": (
        {"created": T1}, {"created": T2}, "Eviction", "w1"),
    "w1.priority equals w2.priority and w1.create time is earlier than w2.create time but w1 was "
    "evicted": ({"created": T1, "conditions": [EVICTED_T3]}, {"created": T2}, "Eviction", "w2"),
    "w1.priority equals w2.priority and w1.create time is earlier than w2.create time and w1 was "
    "evicted but kueue is configured to always use the creation timestamp": (
        {"created": T1, "conditions": [EVICTED_T3]}, {"created": T2}, "Creation", "w1"),
    "p1.priority is lower than p2.priority and w1.create time is earlier than w2.create time": (
        {"created": T1, "priority": 0}, {"created": T2, "priority": 1000}, "Eviction", "w2"),
}


@pytest.mark.parametrize("case", list(STRICT_FIFO))
def test_strict_fifo(case: str) -> None:
    """``TestStrictFIFO``: priority, then the queue-order timestamp (eviction or creation)."""
    w1, w2, ordering, want = STRICT_FIFO[case]
    cq = new_cq("StrictFIFO")
    cq.push_or_update(info(make_wl("w1", "", **w1), ordering))
    cq.push_or_update(info(make_wl("w2", "", **w2), ordering))
    assert cq.pop().name == want
