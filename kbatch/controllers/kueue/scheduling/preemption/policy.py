"""Who may preempt whom, and in which order candidates are tried.

Upstream: kubernetes-sigs/kueue ``pkg/scheduler/preemption/common/{preemption_policy,ordering}.go``
(v0.19.2).

* :func:`satisfies_policy`: ``LowerPriority`` — the candidate's effective priority is lower;
  ``LowerOrNewerEqualPriority`` — or equal and the candidate queued later (with the
  ``SchedulerTimestampPreemptionBuffer`` gate, more than 5 minutes later); ``Any`` — always;
  ``Never`` — never.
* :func:`compare_candidates`: evicted workloads first, then those of other ClusterQueues, (with
  admission fair sharing, higher LocalQueue usage first), lower priority, the most recently
  reserved, then UID.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from functools import cmp_to_key
from typing import Any

from kbatch.controllers.kueue.model.info import WorkloadInfo

__all__ = [
    "TIMESTAMP_PREEMPTION_BUFFER",
    "candidate_key",
    "compare_candidates",
    "is_evicted",
    "reservation_time",
    "satisfies_policy",
    "sort_candidates",
]

TIMESTAMP_PREEMPTION_BUFFER = timedelta(minutes=5)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def is_evicted(info: WorkloadInfo) -> bool:
    return info.evicted


def satisfies_policy(
    preemptor: WorkloadInfo, candidate: WorkloadInfo, policy: str, timestamp_buffer: bool = False
) -> bool:
    lower = preemptor.priority > candidate.priority
    if policy == "LowerPriority":
        return lower
    if policy == "LowerOrNewerEqualPriority":
        a, b = preemptor.queue_order_time, candidate.queue_order_time
        newer_equal = preemptor.priority == candidate.priority and a < b
        if newer_equal and timestamp_buffer:
            newer_equal = b - a > TIMESTAMP_PREEMPTION_BUFFER
        return lower or newer_equal
    return policy == "Any"


def compare_candidates(
    a: WorkloadInfo,
    b: WorkloadInfo,
    preemptor_cq: str,
    now: datetime,
    lq_usage: Mapping[str, float] | None = None,
) -> int:
    """``CandidatesOrdering``; ``lq_usage`` maps a LocalQueue key to its admission fair-sharing usage
    (only compared for two candidates of one ClusterQueue in different LocalQueues)."""
    ea, eb = is_evicted(a), is_evicted(b)
    if ea != eb:
        return -1 if ea else 1
    oa, ob = a.cluster_queue == preemptor_cq, b.cluster_queue == preemptor_cq
    if oa != ob:
        return 1 if oa else -1
    if lq_usage is not None and a.cluster_queue == b.cluster_queue and a.queue_name != b.queue_name:
        ua, ub = lq_usage.get(f"{a.namespace}/{a.queue_name}"), lq_usage.get(f"{b.namespace}/{b.queue_name}")
        if ua is not None and ub is not None and ua != ub:
            return -1 if ua > ub else 1
    if a.priority != b.priority:
        return -1 if a.priority < b.priority else 1
    ra, rb = reservation_time(a, now), reservation_time(b, now)
    if ra != rb:
        return -1 if ra > rb else 1
    return (a.uid > b.uid) - (a.uid < b.uid)


def sort_candidates(
    candidates: list[WorkloadInfo],
    preemptor_cq: str,
    now: datetime,
    lq_usage: Mapping[str, float] | None = None,
) -> list[WorkloadInfo]:
    """``candidates`` in :func:`compare_candidates`' order. Without admission fair sharing (no
    ``lq_usage``: its comparison applies only to some pairs) that order is lexicographic in
    :func:`candidate_key`, computed once per candidate instead of per comparison (the sort of a
    large cohort's admitted workloads runs for every head the preemptor simulates)."""
    if lq_usage is None:
        return sorted(candidates, key=lambda c: candidate_key(c, preemptor_cq, now))

    def compare(a: WorkloadInfo, b: WorkloadInfo) -> int:
        return compare_candidates(a, b, preemptor_cq, now, lq_usage)

    return sorted(candidates, key=cmp_to_key(compare))


def candidate_key(info: WorkloadInfo, preemptor_cq: str, now: datetime) -> tuple[Any, ...]:
    """:func:`compare_candidates` without ``lq_usage`` as a sort key: evicted first, other
    ClusterQueues first, lower priority, the most recent reservation (in whole microseconds, negated),
    then UID."""
    reserved = (reservation_time(info, now) - _EPOCH) // _MICROSECOND
    return (not is_evicted(info), info.cluster_queue == preemptor_cq, info.priority, -reserved, info.uid)


def reservation_time(info: WorkloadInfo, now: datetime) -> datetime:
    """``quotaReservationTime``: when QuotaReserved became true (now if it is not)."""
    return info.quota_reserved_time or now
