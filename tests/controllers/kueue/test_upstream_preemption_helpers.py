"""Upstream's small preemption tables: candidate ordering, the preemption message, priority info.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/preemption/preemption_test.go``:
``TestCandidatesOrdering``, ``TestPreemptionMessage``, ``TestPriorityInfo`` (with
``pkg/util/priority/priority.go``: the boost is ``strconv.ParseInt(value, 10, 32)``, anything it
refuses counts as no boost). Case ids are upstream's.
"""

from __future__ import annotations

from datetime import timedelta
from functools import cmp_to_key
from typing import Any

import pytest

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.model.info import PRIORITY_BOOST, InfoOptions, WorkloadInfo
from kbatch.controllers.kueue.scheduler import _priorities
from kbatch.controllers.kueue.scheduling.preemption.policy import compare_candidates, sort_candidates
from kbatch.controllers.kueue.scheduling.preemption.preemptor import preemption_message

from .upstream_tables import NOW, Wl

PREEMPTOR_CQ = "preemptor"
BOOST = InfoOptions(priority_boost=True)


def _info(name: str, cq: str | None = PREEMPTOR_CQ, priority: int | None = None,
          boost: str | None = None, at: Any = NOW, evicted: bool = False, queue: str = "lq",
          opts: InfoOptions | None = None) -> WorkloadInfo:
    w = Wl(name, {"cpu": "1"}, priority, admitted_to=cq, reserved_at=at, evicted=evicted)
    doc = w.doc()
    doc["spec"]["queueName"] = queue
    if boost is not None:
        doc["metadata"]["annotations"] = {PRIORITY_BOOST: boost}
    if cq is None and evicted:  # an evicted workload without reservation
        doc["status"] = {"conditions": [{"type": "Evicted", "status": "True", "reason": "R", "message": "",
                                         "lastTransitionTime": "2026-01-01T12:00:00Z"}]}
    return WorkloadInfo.of(Workload.model_validate(doc), opts)


def _sorted(cands: list[WorkloadInfo], lq_usage: dict[str, float] | None = None) -> list[str]:
    def cmp(a: WorkloadInfo, b: WorkloadInfo) -> int:
        return compare_candidates(a, b, PREEMPTOR_CQ, NOW, lq_usage)

    by_cmp = [c.name for c in sorted(cands, key=cmp_to_key(cmp))]
    assert [c.name for c in sort_candidates(cands, PREEMPTOR_CQ, NOW, lq_usage)] == by_cmp
    return by_cmp


ORDERING_CASES: dict[str, tuple[list[WorkloadInfo], list[str]]] = {
    "workloads sorted by priority": (
        [_info("high", priority=10), _info("low", priority=-10)], ["low", "high"]),
    "workloads sorted by effective priority with boost": (
        [_info("high-boost", priority=10, boost="100", opts=BOOST),
         _info("low-boost", priority=10, boost="5", opts=BOOST)], ["low-boost", "high-boost"]),
    "workload missing priority boost defaults to zero": (
        [_info("missing-boost", priority=10, opts=BOOST),
         _info("has-boost", priority=10, boost="5", opts=BOOST)],
        ["missing-boost", "has-boost"]),
    "invalid priority boost defaults to zero": (
        [_info("invalid-boost", priority=10, boost="invalid", opts=BOOST),
         _info("valid-boost", priority=10, boost="5", opts=BOOST)], ["invalid-boost", "valid-boost"]),
    "evicted workload first": (
        [_info("other", priority=10), _info("evicted", cq=None, evicted=True)], ["evicted", "other"]),
    "workload from different CQ first": (
        [_info("preemptorCq", priority=10), _info("other", cq="other", priority=10)],
        ["other", "preemptorCq"]),
    "old workloads last": (
        [_info("older", at=NOW - timedelta(seconds=1)), _info("younger", at=NOW + timedelta(seconds=1)),
         _info("current")], ["younger", "current", "older"]),
}


@pytest.mark.parametrize("name", sorted(ORDERING_CASES))
def test_upstream_candidates_ordering(name: str) -> None:
    cands, want = ORDERING_CASES[name]
    assert _sorted(cands) == want


def test_upstream_candidates_ordering_admission_fair_sharing() -> None:
    """Cases "workloads with higher LQ usage first" and "workloads from different CQ are sorted
    based on priority and timestamp" (LocalQueue usage compares only within one ClusterQueue)."""
    low = _info("low_lq_usage", priority=1, queue="low_usage_lq")
    mid = _info("mid_lq_usage", priority=10, queue="mid_usage_lq")
    high_other = _info("high_lq_usage_different_cq", cq="different_cq", priority=1,
                       queue="high_usage_lq_different_cq")
    usage = {"default/low_usage_lq": 0.1, "default/mid_usage_lq": 0.5,
             "default/high_usage_lq_different_cq": 1.0}
    assert _sorted([low, mid], usage) == ["mid_lq_usage", "low_lq_usage"]
    assert _sorted([mid, high_other], usage) == ["high_lq_usage_different_cq", "mid_lq_usage"]


def _bare(uid: str = "", job_uid: str = "") -> WorkloadInfo:
    doc: dict[str, Any] = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                           "metadata": {"name": "w", "namespace": "default"}, "spec": {"podSets": []}}
    if uid:
        doc["metadata"]["uid"] = uid
    return WorkloadInfo.of(Workload.model_validate(doc))


@pytest.mark.parametrize(("uid", "job_uid", "reason", "paths", "want"), [
    ("", "", "", ("", ""), "Preempted to accommodate a workload (UID: UNKNOWN, JobUID: UNKNOWN) due to "
     "UNKNOWN; preemptor path: UNKNOWN; preemptee path: UNKNOWN"),
    ("uid", "", "", ("", ""), "Preempted to accommodate a workload (UID: uid, JobUID: UNKNOWN) due to "
     "UNKNOWN; preemptor path: UNKNOWN; preemptee path: UNKNOWN"),
    ("uid", "juid", "", ("", ""), "Preempted to accommodate a workload (UID: uid, JobUID: juid) due to "
     "UNKNOWN; preemptor path: UNKNOWN; preemptee path: UNKNOWN"),
    ("uid", "juid", "InClusterQueue", ("/a", "/b"), "Preempted to accommodate a workload (UID: uid, "
     "JobUID: juid) due to prioritization in the ClusterQueue; preemptor path: /a; preemptee path: /b"),
])
def test_upstream_preemption_message(uid: str, job_uid: str, reason: str, paths: tuple[str, str],
                                     want: str) -> None:
    """``TestPreemptionMessage``."""
    assert preemption_message(_bare(uid), reason, paths[0], paths[1], job_uid) == want


@pytest.mark.parametrize(("priority", "boost", "gate", "want"), [
    (None, None, True, (0, 0, 0)),  # empty workload
    (100, None, True, (100, 100, 0)),  # workload with priority only
    (200, "50", True, (250, 200, 50)),  # workload with priority and positive boost
    (100, "-30", True, (70, 100, -30)),  # workload with priority and negative boost
    (100, "not-a-number", True, (100, 100, 0)),  # workload with invalid boost annotation falls back to zero
    (2**31 - 1, "1", True, (2**31, 2**31 - 1, 1)),  # workload with effective priority above int32 max
    (100, "50", False, (100, 100, 0)),  # feature disabled: boost annotation ignored
    # ParseInt(value, 10, 32) refuses these too: out of int32 range, blanks, underscores.
    (100, "2147483648", True, (100, 100, 0)),
    (100, " 5", True, (100, 100, 0)),
    (100, "1_0", True, (100, 100, 0)),
    (100, "+5", True, (105, 100, 5)),
])
def test_upstream_priority_info(priority: int | None, boost: str | None, gate: bool,
                                want: tuple[int, int, int]) -> None:
    """``TestPriorityInfo``: (effective, base, boost) as the Preempted event reports them."""
    info = _info("w", cq=None, priority=priority, boost=boost, opts=InfoOptions(priority_boost=gate))
    assert _priorities(info) == want
