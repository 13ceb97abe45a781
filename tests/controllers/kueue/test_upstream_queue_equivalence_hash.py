"""Upstream's ``pkg/cache/queue/cluster_queue_test.go`` scheduling-equivalence-hash cases
(kubernetes-sigs/kueue v0.19.2: ``TestRecordInadmissibleHash``,
``TestPushOrUpdateRespectsInadmissibleHashes``, ``TestQueueInadmissibleWorkloadsClearsHashes``,
``TestRequeueHashTriggerByReason``, ``TestGetNoFitReason``) against kbatch's ClusterQueue heap
(``bulk_moved`` is upstream's ``hashToBulkMoveReason``). Case ids are upstream's names.
"""

from __future__ import annotations

import dataclasses

import pytest

from kbatch.controllers.kueue.model.info import WorkloadInfo
from kbatch.controllers.kueue.scheduling.cycle import RequeueReason

from .upstream_queue import MINUTE, NOW, cond, info, make_wl, new_cq

SECOND = MINUTE / 60


def hashed(wi: WorkloadInfo, h: str) -> WorkloadInfo:
    """``info.SchedulingHash = h``."""
    return dataclasses.replace(wi, scheduling_hash=h)


RECORD = {
    "bulk-moves matching workloads": (
        "gpu-class", {"gpu-1": "gpu-class", "gpu-2": "gpu-class", "gpu-3": "gpu-class",
                      "cpu-1": "cpu-class", "cpu-2": "cpu-class"}, 3, 2, 3),
    "no-op for empty hash": ("", {"wl-1": "some-hash"}, 0, 1, 0),
    "no-op when no workloads match": ("nonexistent", {"wl-1": "hash-a", "wl-2": "hash-b"}, 0, 2, 0),
}


@pytest.mark.parametrize("case", list(RECORD))
def test_record_inadmissible_hash(case: str) -> None:
    """``TestRecordInadmissibleHash`` (``handleInadmissibleHash``; kbatch's scheduler never calls
    it with an empty hash, which matches no workload either way)."""
    h, heap, want_moved, want_active, want_inadmissible = RECORD[case]
    cq = new_cq("BestEffortFIFO")
    for i, (name, wh) in enumerate(sorted(heap.items())):
        cq.push_or_update(hashed(info(make_wl(name, created=NOW + i * SECOND, cpu="1")), wh))
    before = len(cq.in_heap)
    cq._bulk_move(h, "dummy-reason")
    assert before - len(cq.in_heap) == want_moved
    assert (cq.pending_active(), len(cq.inadmissible)) == (want_active, want_inadmissible)


@pytest.mark.parametrize("case, push_hash, want", [
    ("workload with blocked hash goes to inadmissible", "blocked", (0, 1)),
    ("workload with non-blocked hash goes to heap", "allowed", (1, 0)),
])
def test_push_or_update_respects_inadmissible_hashes(case: str, push_hash: str, want: tuple) -> None:
    """``TestPushOrUpdateRespectsInadmissibleHashes``."""
    cq = new_cq("BestEffortFIFO")
    cq.bulk_moved["blocked"] = "dummy-reason"
    cq.push_or_update(hashed(info(make_wl("wl", cpu="1")), push_hash))
    assert (cq.pending_active(), len(cq.inadmissible)) == want


def test_queue_inadmissible_workloads_clears_hashes() -> None:
    """``TestQueueInadmissibleWorkloadsClearsHashes``."""
    cq = new_cq("BestEffortFIFO")
    cq.push_or_update(hashed(info(make_wl("wl", cpu="1")), "test-hash"))
    cq._bulk_move("test-hash", "dummy-reason")
    assert "test-hash" in cq.bulk_moved
    cq.queue_inadmissible(lambda ns: {})
    assert "test-hash" not in cq.bulk_moved
    assert (cq.pending_active(), len(cq.inadmissible)) == (1, 0)


@pytest.mark.parametrize("case, reason, want", [
    ("nofit triggers hash", RequeueReason.NO_FIT, True),
    ("preempt no candidates triggers hash", RequeueReason.PREEMPTION_NO_CANDIDATES, True),
    ("namespace mismatch does not trigger hash", RequeueReason.NAMESPACE_MISMATCH, False),
    ("preemption gated does not trigger hash", RequeueReason.PREEMPTION_GATED, False),
    ("generic does not trigger hash", RequeueReason.GENERIC, False),
])
def test_requeue_hash_trigger_by_reason(case: str, reason: str, want: bool) -> None:
    """``TestRequeueHashTriggerByReason``."""
    cq = new_cq("BestEffortFIFO")
    wi = hashed(info(make_wl("workload-1", cpu="1")), "test-hash-abc")
    cq.requeue(wi, reason, "WaitingForQuota", False, True)
    assert ("test-hash-abc" in cq.bulk_moved) is want


NO_FIT = {
    "records status reason when requeued as NoFit": (
        "ExceedsMaxQuota", RequeueReason.NO_FIT, False, "ExceedsMaxQuota"),
    "records status reason when requeued as PreemptionNoCandidates": (
        "WaitingForPreemptedWorkloads", RequeueReason.PREEMPTION_NO_CANDIDATES, False,
        "WaitingForPreemptedWorkloads"),
    "falls back to PendingEvaluation if no status condition is present": (
        "", RequeueReason.NO_FIT, False, "PendingEvaluation"),
    "returns false if workload is not in inadmissibleWorkloads": (
        "ExceedsMaxQuota", RequeueReason.NO_FIT, True, None),
    "returns false if requeued with non-capacity reason": (
        "ExceedsMaxQuota", RequeueReason.NAMESPACE_MISMATCH, False, None),
}


@pytest.mark.parametrize("case", list(NO_FIT))
def test_get_no_fit_reason(case: str) -> None:
    """``TestGetNoFitReason``: the reason recorded for an inadmissible workload's hash."""
    qr_reason, reason, drop, want = NO_FIT[case]
    conds = [cond("QuotaReserved", "False", qr_reason, message="failed")] if qr_reason else []
    cq = new_cq("BestEffortFIFO")
    wi = hashed(info(make_wl("wl", conditions=conds)), "test-hash")
    cq.requeue(wi, reason, qr_reason, False, True)
    if drop:
        del cq.inadmissible[wi.key]
    got = cq.bulk_moved.get(wi.scheduling_hash) if wi.key in cq.inadmissible else None
    assert got == want
