"""Upstream's preemption table, case by case, against kbatch's preemptor.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/preemption/preemption_test.go``,
``TestPreemption`` (its ``defaultClusterQueues`` and each case's admitted workloads, incoming
workload, target ClusterQueue, flavor assignment, and the workloads it wants preempted with their
``Preempted`` condition reason). Case ids are upstream's case names.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from .upstream_tables import NOW, Wl, build_cache, cohort, cq, get_targets, r

CPU, MEM = "cpu", "memory"
LP, ANY, NEVER, LONEP = "LowerPriority", "Any", "Never", "LowerOrNewerEqualPriority"


def _bwc(threshold: int = 0) -> dict[str, Any]:
    return {"policy": "LowerPriority", "maxPriorityThreshold": threshold}


DEFAULT_CQS = [
    cq("standalone", [("default", [r(CPU, "6")])], [("alpha", [r(MEM, "3Gi")]), ("beta", [r(MEM, "3Gi")])],
       preemption={"withinClusterQueue": LP}),
    cq("c1", [("default", [r(CPU, "6", "6"), r(MEM, "3Gi", "3Gi")])], cohort="cohort",
       preemption={"withinClusterQueue": LP, "reclaimWithinCohort": LP}),
    cq("c2", [("default", [r(CPU, "6", "6"), r(MEM, "3Gi", "3Gi")])], cohort="cohort",
       preemption={"withinClusterQueue": NEVER, "reclaimWithinCohort": ANY}),
    cq("d1", [("default", [r(CPU, "6"), r(MEM, "3Gi")])], cohort="cohort-no-limits",
       preemption={"withinClusterQueue": LP, "reclaimWithinCohort": LP}),
    cq("d2", [("default", [r(CPU, "6"), r(MEM, "3Gi")])], cohort="cohort-no-limits",
       preemption={"withinClusterQueue": NEVER, "reclaimWithinCohort": ANY}),
    cq("l1", [("default", [r(CPU, "6", "12"), r(MEM, "3Gi", "6Gi")])], cohort="legion",
       preemption={"withinClusterQueue": LP, "reclaimWithinCohort": LP}),
    cq("preventStarvation", [("default", [r(CPU, "6")])], preemption={"withinClusterQueue": LONEP}),
    cq("a_standard", [("default", [r(CPU, "1", "12")])], cohort="with_shared_cq",
       preemption={"withinClusterQueue": NEVER, "reclaimWithinCohort": LP, "borrowWithinCohort": _bwc()}),
    cq("b_standard", [("default", [r(CPU, "1", "12")])], cohort="with_shared_cq",
       preemption={"withinClusterQueue": LP, "reclaimWithinCohort": ANY, "borrowWithinCohort": _bwc()}),
    cq("a_best_effort", [("default", [r(CPU, "1", "12")])], cohort="with_shared_cq",
       preemption={"withinClusterQueue": NEVER, "reclaimWithinCohort": LP, "borrowWithinCohort": _bwc()}),
    cq("b_best_effort", [("default", [r(CPU, "0", "13")])], cohort="with_shared_cq",
       preemption={"withinClusterQueue": NEVER, "reclaimWithinCohort": LP, "borrowWithinCohort": _bwc()}),
    cq("shared", [("default", [r(CPU, "10")])], cohort="with_shared_cq"),
    cq("lend1", [("default", [r(CPU, "6", None, "4")])], cohort="cohort-lend",
       preemption={"withinClusterQueue": LP, "reclaimWithinCohort": LP}),
    cq("lend2", [("default", [r(CPU, "6", None, "2")])], cohort="cohort-lend",
       preemption={"withinClusterQueue": LP, "reclaimWithinCohort": LP}),
    cq("a", [("default", [r(CPU, "2"), r(MEM, "2")])], cohort="cohort-three",
       preemption={"withinClusterQueue": LP, "reclaimWithinCohort": ANY}),
    cq("b", [("default", [r(CPU, "2"), r(MEM, "2")])], cohort="cohort-three"),
    cq("c", [("default", [r(CPU, "2"), r(MEM, "2")])], cohort="cohort-three"),
]


def adm(name: str, cq_name: str, priority: int | None = None, **requests: str) -> Wl:
    """An admitted single-pod-set workload, every resource in flavor ``default``."""
    reqs = {k.replace("_", "-"): v for k, v in requests.items()}
    return Wl(name, reqs, priority, admitted_to=cq_name)


def inc(priority: int | None = None, **requests: str) -> Wl:
    return Wl("in", dict(requests), priority, uid="wl-in")


PRE, FIT = "Preempt", "Fit"


def one(**flavors: tuple[str, str]) -> list[dict[str, tuple[str, str]]]:
    """``singlePodSetAssignment``."""
    return [dict(flavors)]


ICQ, REC, RWB = "InClusterQueue", "InCohortReclamation", "InCohortReclaimWhileBorrowing"

CASES: dict[str, tuple[list[Wl], Wl, str, Any, set[tuple[str, str]]]] = {
    "preempt lowest priority": (
        [adm("low", "standalone", -1, cpu="2"), adm("mid", "standalone", cpu="2"),
         adm("high", "standalone", 1, cpu="2")],
        inc(1, cpu="2"), "standalone", one(cpu=("default", PRE)), {("low", ICQ)}),
    "preempt multiple": (
        [adm("low", "standalone", -1, cpu="2"), adm("mid", "standalone", cpu="2"),
         adm("high", "standalone", 1, cpu="2")],
        inc(1, cpu="3"), "standalone", one(cpu=("default", PRE)), {("low", ICQ), ("mid", ICQ)}),
    "no preemption for low priority": (
        [adm("low", "standalone", -1, cpu="3"), adm("mid", "standalone", cpu="3")],
        inc(-1, cpu="1"), "standalone", one(cpu=("default", PRE)), set()),
    "not enough low priority workloads": (
        [adm("low", "standalone", -1, cpu="3"), adm("mid", "standalone", cpu="3")],
        inc(cpu="4"), "standalone", one(cpu=("default", PRE)), set()),
    "some free quota, preempt low priority": (
        [adm("low", "standalone", -1, cpu="1"), adm("mid", "standalone", cpu="1"),
         adm("high", "standalone", 1, cpu="3")],
        inc(1, cpu="2"), "standalone", one(cpu=("default", PRE)), {("low", ICQ)}),
    "minimal set excludes low priority": (
        [adm("low", "standalone", -1, cpu="1"), adm("mid", "standalone", cpu="2"),
         adm("high", "standalone", 1, cpu="3")],
        inc(1, cpu="2"), "standalone", one(cpu=("default", PRE)), {("mid", ICQ)}),
    "only preempt workloads using the chosen flavor": (
        [Wl("low", {MEM: "2Gi"}, -1, admitted_to="standalone", assignment=[{MEM: ("alpha", "2Gi")}]),
         Wl("mid", {MEM: "1Gi"}, None, admitted_to="standalone", assignment=[{MEM: ("beta", "1Gi")}]),
         Wl("high", {MEM: "1Gi"}, 1, admitted_to="standalone", assignment=[{MEM: ("beta", "1Gi")}])],
        inc(1, cpu="1", memory="2Gi"), "standalone",
        one(cpu=("default", FIT), memory=("beta", PRE)), {("mid", ICQ)}),
    "reclaim quota from borrower": (
        [adm("c1-low", "c1", -1, cpu="3"), adm("c2-mid", "c2", cpu="3"), adm("c2-high", "c2", 1, cpu="6")],
        inc(1, cpu="3"), "c1", one(cpu=("default", PRE)), {("c2-mid", REC)}),
    "reclaim quota if workload requests 0 resources for a resource at nominal quota": (
        [adm("c1-low", "c1", -1, cpu="3", memory="3Gi"), adm("c2-mid", "c2", cpu="3"),
         adm("c2-high", "c2", 1, cpu="6")],
        inc(1, cpu="3", memory="0"), "c1", one(cpu=("default", PRE), memory=("default", FIT)),
        {("c2-mid", REC)}),
    "no workloads borrowing": (
        [adm("c1-high", "c1", 1, cpu="4"), adm("c2-low-1", "c2", -1, cpu="4")],
        inc(1, cpu="4"), "c1", one(cpu=("default", PRE)), set()),
    "not enough workloads borrowing": (
        [adm("c1-high", "c1", 1, cpu="4"), adm("c2-low-1", "c2", -1, cpu="4"),
         adm("c2-low-2", "c2", -1, cpu="4")],
        inc(1, cpu="4"), "c1", one(cpu=("default", PRE)), set()),
    "preempting locally and borrowing other resources in cohort, without cohort candidates": (
        [adm("c1-low", "c1", -1, cpu="4"), adm("c2-low-1", "c2", -1, cpu="4"),
         adm("c2-high-2", "c2", 1, cpu="4")],
        inc(1, cpu="4", memory="5Gi"), "c1", one(cpu=("default", PRE), memory=("default", PRE)),
        {("c1-low", ICQ)}),
    "preempting locally and borrowing same resource in cohort": (
        [adm("c1-med", "c1", 0, cpu="4"), adm("c1-low", "c1", -1, cpu="4"),
         adm("c2-low-1", "c2", -1, cpu="4")],
        inc(1, cpu="4"), "c1", one(cpu=("default", PRE)), {("c1-low", ICQ)}),
    "preempting locally and borrowing same resource in cohort; no borrowing limit in the cohort": (
        [adm("d1-med", "d1", 0, cpu="4"), adm("d1-low", "d1", -1, cpu="4"),
         adm("d2-low-1", "d2", -1, cpu="4")],
        inc(1, cpu="4"), "d1", one(cpu=("default", PRE)), {("d1-low", ICQ)}),
    "preempting locally and borrowing other resources in cohort, with cohort candidates": (
        [adm("c1-med", "c1", 0, cpu="4"), adm("c2-low-1", "c2", -1, cpu="5"),
         adm("c2-low-2", "c2", -1, cpu="1"), adm("c2-low-3", "c2", -1, cpu="1")],
        inc(1, cpu="2", memory="5Gi"), "c1", one(cpu=("default", PRE), memory=("default", PRE)),
        {("c1-med", ICQ)}),
    "preempting locally and not borrowing same resource in 1-queue cohort": (
        [adm("l1-med", "l1", 0, cpu="4"), adm("l1-low", "l1", -1, cpu="2")],
        inc(1, cpu="4"), "l1", one(cpu=("default", PRE)), {("l1-med", ICQ)}),
    "do not reclaim borrowed quota from same priority for withinCohort=ReclaimFromLowerPriority": (
        [adm("c1", "c1", cpu="2"), adm("c2-1", "c2", cpu="4"), adm("c2-2", "c2", cpu="4")],
        inc(cpu="4"), "c1", one(cpu=("default", PRE)), set()),
    "reclaim borrowed quota from same priority for withinCohort=ReclaimFromAny": (
        [adm("c1-1", "c1", cpu="4"), adm("c1-2", "c1", 1, cpu="4"), adm("c2", "c2", cpu="2")],
        inc(cpu="4"), "c2", one(cpu=("default", PRE)), {("c1-1", REC)}),
    "preempt from all ClusterQueues in cohort": (
        [adm("c1-low", "c1", -1, cpu="3"), adm("c1-mid", "c1", cpu="2"),
         adm("c2-low", "c2", -1, cpu="3"), adm("c2-mid", "c2", cpu="4")],
        inc(cpu="4"), "c1", one(cpu=("default", PRE)), {("c1-low", ICQ), ("c2-low", REC)}),
    "can't preempt workloads in ClusterQueue for withinClusterQueue=Never": (
        [adm("c2-low", "c2", -1, cpu="3")],
        inc(1, cpu="4"), "c2", one(cpu=("default", PRE)), set()),
    "each podset preempts a different flavor": (
        [Wl("low-alpha", {MEM: "2Gi"}, -1, admitted_to="standalone", assignment=[{MEM: ("alpha", "2Gi")}]),
         Wl("low-beta", {MEM: "2Gi"}, -1, admitted_to="standalone", assignment=[{MEM: ("beta", "2Gi")}])],
        Wl("in", priority=None, uid="wl-in",
           pod_sets=[("launcher", 1, {MEM: "2Gi"}), ("workers", 2, {MEM: "1Gi"})]),
        "standalone", [{MEM: ("alpha", PRE)}, {MEM: ("beta", PRE)}],
        {("low-alpha", ICQ), ("low-beta", ICQ)}),
    "preempt newer workloads with the same priority": (
        [adm("wl1", "preventStarvation", 2, cpu="2"),
         Wl("wl2", {CPU: "2"}, 1, created=NOW, admitted_to="preventStarvation"),
         Wl("wl3", {CPU: "2"}, 1, created=NOW, admitted_to="preventStarvation")],
        Wl("in", priority=1, uid="wl-in", created=NOW - timedelta(seconds=15),
           pod_sets=[("launcher", 1, {CPU: "2"})]),
        "preventStarvation", [{CPU: ("default", PRE)}], {("wl2", ICQ)}),
    "use BorrowWithinCohort; allow preempting a lower-priority workload from another ClusterQueue "
    "while borrowing": (
        [adm("a_best_effort_low", "a_best_effort", -1, cpu="10"),
         adm("b_best_effort_low", "b_best_effort", -1, cpu="1")],
        inc(cpu="10"), "a_standard", one(cpu=("default", PRE)), {("a_best_effort_low", RWB)}),
    "use BorrowWithinCohort; don't allow preempting a lower-priority workload with priority above "
    "MaxPriorityThreshold, if borrowing is required even after the preemption": (
        [adm("b_standard", "b_standard", 1, cpu="10")],
        inc(2, cpu="10"), "a_standard", one(cpu=("default", PRE)), set()),
    "use BorrowWithinCohort; allow preempting a lower-priority workload with priority above "
    "MaxPriorityThreshold, if borrowing is not required after the preemption": (
        [adm("b_standard", "b_standard", 1, cpu="13")],
        inc(2, cpu="1"), "a_standard", one(cpu=("default", PRE)), {("b_standard", REC)}),
    "use BorrowWithinCohort; don't allow for preemption of lower-priority workload from the same "
    "ClusterQueue": (
        [adm("a_standard", "a_standard", 1, cpu="13")],
        inc(2, cpu="1"), "a_standard", one(cpu=("default", PRE)), set()),
    "use BorrowWithinCohort; only preempt from CQ if no workloads below threshold and already above "
    "nominal": (
        [adm("a_standard_1", "a_standard", 1, cpu="10"), adm("a_standard_2", "a_standard", 1, cpu="1"),
         adm("b_standard_1", "b_standard", 1, cpu="1"), adm("b_standard_2", "b_standard", 2, cpu="1")],
        inc(3, cpu="1"), "b_standard", one(cpu=("default", PRE)), {("b_standard_1", ICQ)}),
    "use BorrowWithinCohort; preempt from CQ and from other CQs with workloads below threshold": (
        [adm("b_standard_high", "b_standard", 2, cpu="10"), adm("b_standard_mid", "b_standard", 1, cpu="1"),
         adm("a_best_effort_low", "a_best_effort", -1, cpu="1"),
         adm("a_best_effort_lower", "a_best_effort", -2, cpu="1")],
        inc(2, cpu="2"), "b_standard", one(cpu=("default", PRE)),
        {("a_best_effort_lower", RWB), ("b_standard_mid", ICQ)}),
    "reclaim quota from lender": (
        [adm("lend1-low", "lend1", -1, cpu="3"), adm("lend2-mid", "lend2", cpu="3"),
         adm("lend2-high", "lend2", 1, cpu="4")],
        inc(1, cpu="3"), "lend1", one(cpu=("default", PRE)), {("lend2-mid", REC)}),
    "preempt from all ClusterQueues in cohort-lend": (
        [adm("lend1-low", "lend1", -1, cpu="3"), adm("lend1-mid", "lend1", cpu="2"),
         adm("lend2-low", "lend2", -1, cpu="3"), adm("lend2-mid", "lend2", cpu="4")],
        inc(cpu="4"), "lend1", one(cpu=("default", PRE)), {("lend1-low", ICQ), ("lend2-low", REC)}),
    "cannot preempt from other ClusterQueues if exceeds requestable quota including lending limit": (
        [adm("lend2-low", "lend2", -1, cpu="10")],
        inc(cpu="9"), "lend1", one(cpu=("default", PRE)), set()),
    "preemptions from cq when target queue is exhausted for the single requested resource": (
        [adm("a1", "a", -2, cpu="1"), adm("a2", "a", -2, cpu="1"), adm("a3", "a", -1, cpu="1"),
         adm("b1", "b", 0, cpu="1"), adm("b2", "b", 0, cpu="1"), adm("b3", "b", 0, cpu="1")],
        inc(0, cpu="2"), "a", one(cpu=("default", PRE)), {("a1", ICQ), ("a2", ICQ)}),
    "preemptions from cq when target queue is exhausted for two requested resources": (
        [adm(n, q, p, cpu="1", memory="1") for n, q, p in (
            ("a1", "a", -2), ("a2", "a", -2), ("a3", "a", -1), ("b1", "b", 0), ("b2", "b", 0),
            ("b3", "b", 0))],
        inc(0, cpu="2", memory="2"), "a", one(cpu=("default", PRE), memory=("default", PRE)),
        {("a1", ICQ), ("a2", ICQ)}),
    "preemptions from cq when target queue is exhausted for one requested resource, but not the "
    "other": (
        [adm("a1", "a", -2, cpu="1"), adm("a2", "a", -2, cpu="1"), adm("a3", "a", -1, cpu="1"),
         adm("b1", "b", 0, cpu="1"), adm("b2", "b", 0, cpu="1"), adm("b3", "b", 0, cpu="1")],
        inc(0, cpu="2", memory="2"), "a", one(cpu=("default", PRE), memory=("default", PRE)),
        {("a1", ICQ), ("a2", ICQ)}),
    "allow preemption from other cluster queues if target cq is not exhausted for the requested "
    "resource": (
        [adm("a1", "a", -1, cpu="1"), adm("b1", "b", 0, cpu="1"), adm("b2", "b", 0, cpu="1"),
         adm("b3", "b", 0, cpu="1"), adm("b4", "b", 0, cpu="1"), adm("b5", "b", -1, cpu="1")],
        inc(cpu="2"), "a", one(cpu=("default", PRE)), {("a1", ICQ), ("b5", REC)}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_upstream_preemption_case(name: str) -> None:
    admitted, incoming, target, assignment, want = CASES[name]
    cache = build_cache(DEFAULT_CQS, admitted)
    assert get_targets(cache, incoming, target, assignment) == want


def test_long_range_preemption() -> None:
    """Upstream case "long range preemption": cohorts ``cohort-left`` and ``cohort-right`` under
    ``root``; a queue reclaims from a borrower two levels away."""
    cqs = [cq("cq-left", [("default", [r(CPU, "10")])], cohort="cohort-left",
              preemption={"reclaimWithinCohort": ANY}),
           cq("cq-right", [("default", [r(CPU, "0")])], cohort="cohort-right")]
    cache = build_cache(cqs, [adm("to-be-preempted", "cq-right", cpu="5")],
                        cohorts=[cohort("cohort-left", "root"), cohort("cohort-right", "root")])
    assert get_targets(cache, inc(cpu="8"), "cq-left", one(cpu=("default", PRE))) == {
        ("to-be-preempted", REC)}
