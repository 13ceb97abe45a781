"""The preemption candidates' order: the sort key gives exactly the comparator's order.

``policy.sort_candidates`` sorts by :func:`~.policy.candidate_key` when admission fair sharing is off
(upstream's ``CandidatesOrdering``, ``pkg/scheduler/preemption/common/ordering.go``: evicted first,
other ClusterQueues first, lower priority, the newest reservation, then UID); the comparator
:func:`~.policy.compare_candidates` stays the reference.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import cmp_to_key
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.model.info import WorkloadInfo
from kbatch.controllers.kueue.scheduling.preemption.policy import compare_candidates, sort_candidates

from .helpers import workload

NOW = datetime(2026, 1, 1, 0, 1, tzinfo=UTC)
_TIMES = [None, NOW - timedelta(seconds=30), NOW - timedelta(seconds=30, microseconds=1),
          NOW - timedelta(days=400), NOW]


def _condition(kind: str, status: str, at: datetime) -> dict[str, Any]:
    return {"type": kind, "status": status, "reason": kind, "message": "",
            "lastTransitionTime": at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")}


@st.composite
def _candidate(draw: Any, i: int) -> WorkloadInfo:
    doc = workload(f"w{i}", "lq", priority=draw(st.sampled_from([None, -1, 0, 5])))
    doc["metadata"]["uid"] = draw(st.sampled_from(["a", "b", "c", f"u{i}"]))
    conditions = []
    reserved = draw(st.sampled_from(_TIMES))
    if reserved is not None:
        conditions.append(_condition("QuotaReserved", draw(st.sampled_from(["True", "False"])), reserved))
    evicted = draw(st.sampled_from([None, "True", "False"]))
    if evicted is not None:
        conditions.append(_condition("Evicted", evicted, NOW))
    cq = draw(st.sampled_from(["cq-a", "cq-b", "cq-c"]))
    doc["status"] = {"conditions": conditions, "admission": {"clusterQueue": cq, "podSetAssignments": [
        {"name": "main", "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": "1"}, "count": 1}]}}
    return WorkloadInfo.of(Workload.model_validate(doc))


@settings(max_examples=300, deadline=None)
@given(data=st.data(), n=st.integers(0, 12), preemptor_cq=st.sampled_from(["cq-a", "cq-b", "cq-x"]))
def test_the_key_sort_is_the_comparator_sort(data: st.DataObject, n: int, preemptor_cq: str) -> None:
    candidates = [data.draw(_candidate(i)) for i in range(n)]

    def compare(a: WorkloadInfo, b: WorkloadInfo) -> int:
        return compare_candidates(a, b, preemptor_cq, NOW)

    expected = sorted(candidates, key=cmp_to_key(compare))
    assert [c.key for c in sort_candidates(candidates, preemptor_cq, NOW)] == [c.key for c in expected]
