"""Upstream's hierarchical (classical) preemption table, case by case, against kbatch's preemptor.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/preemption/preemption_hierarchical_test.go``,
``TestHierarchicalPreemptions``: Cohorts with their own quota, ClusterQueues with no quota of their
own borrowing through them, and the preempted (workload, reason) set. "prefer to preempt evicted
workloads" wants the already-evicted workload (no new condition upstream); its reason is
``classifyPreemptionVariant``'s (``hierarchical_preemption.go``): same cohort, below the
``maxPriorityThreshold``, so ``InCohortReclaimWhileBorrowing``. Case ids are upstream's.
"""

from __future__ import annotations

from typing import Any

import pytest

from .upstream_tables import Wl, build_cache, cohort, cq, get_targets, r

CPU, MEM = "cpu", "memory"
ICQ, REC, RWB = "InClusterQueue", "InCohortReclamation", "InCohortReclaimWhileBorrowing"
LP_ANY = {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"}
BWC = {"policy": "LowerPriority", "maxPriorityThreshold": 0}
LP_ANY_BWC = LP_ANY | {"borrowWithinCohort": BWC}
LP_LP_BWC = {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "LowerPriority",
             "borrowWithinCohort": BWC}
EMPTY: list[tuple[str, list[Any]]] = [("default", [])]  # MakeFlavorQuotas("default") with no resources


def q(name: str, parent: str, *resources: Any, pre: dict[str, Any] | None = None) -> dict[str, Any]:
    groups = [[("default", list(resources))]] if resources else [EMPTY]
    return cq(name, *groups, cohort=parent, preemption=LP_ANY if pre is None else pre)


def co(name: str, parent: str | None = "r", *resources: Any) -> dict[str, Any]:
    return cohort(name, parent, *([[("default", list(resources))]] if resources else []))


def a(name: str, cq_name: str, priority: int, cpu: str, memory: str | None = None,
      evicted: bool = False) -> Wl:
    reqs = {CPU: cpu} | ({MEM: memory} if memory else {})
    return Wl(name, reqs, priority, admitted_to=cq_name, evicted=evicted)


def inc(priority: int, cpu: str, memory: str | None = None) -> Wl:
    return Wl("in", {CPU: cpu} | ({MEM: memory} if memory else {}), priority, uid="wl-in")


Case = dict[str, Any]
CASES: dict[str, Case] = {
    "preempt with hierarchical advantage": dict(
        cohorts=[co("r", None), co("c", "r", r(CPU, "2"))],
        cqs=[q("q", "c"), q("q_borrowing", "r")],
        admitted=[a("admitted2", "q_borrowing", 0, "2")],
        incoming=inc(0, "2"), want={("admitted2", REC)}),
    "avoid queues within nominal quota": dict(
        cohorts=[co("r", None), co("c", "r", r(CPU, "2"))],
        cqs=[q("q_nominal", "r", r(CPU, "2")), q("q", "c"), q("q_borrowing", "r")],
        admitted=[a("admitted1", "q_nominal", -10, "2"), a("admitted2", "q_borrowing", 0, "2")],
        incoming=inc(0, "2"), want={("admitted2", REC)}),
    "preempt multiple with hierarchical advantage": dict(
        cohorts=[co("r", None), co("c", "r", r(CPU, "2"))],
        cqs=[q("q", "c"), q("q_borrowing", "r")],
        admitted=[a("admitted1", "q_borrowing", 1, "1"), a("admitted2", "q_borrowing", 2, "1")],
        incoming=inc(0, "2"), want={("admitted1", REC), ("admitted2", REC)}),
    "preempt in cohort and own CQ": dict(
        cohorts=[co("r", None), co("c", "r", r(CPU, "3"))],
        cqs=[q("q", "c", pre=LP_ANY_BWC), q("q_same_cohort", "c")],
        admitted=[a("admitted_not_preemptible", "q_same_cohort", 1, "1"),
                  Wl("admitted_preemptible", {CPU: "1"}, 0, admitted_to="q_same_cohort",
                     assignment=[{CPU: ("default", "2")}]),
                  a("admitted_own_queue", "q", -1, "1")],
        incoming=inc(1, "2"), want={("admitted_own_queue", ICQ), ("admitted_preemptible", RWB)}),
    "prefer to preempt hierarchical candidate": dict(
        cohorts=[co("r", None), co("c", "r", r(CPU, "2"))],
        cqs=[q("q", "c"), q("q_borrowing", "r")],
        admitted=[a("admitted_borrowing", "q_borrowing", 1, "1"), a("admitted_same_queue", "q", -2, "1")],
        incoming=inc(0, "1"), want={("admitted_borrowing", REC)}),
    "forced to preempt priority candidate": dict(
        cohorts=[co("r", None), co("c", "r", r(CPU, "2"))],
        cqs=[q("q", "c", pre=LP_ANY_BWC), q("q_nominal", "r", r(CPU, "2")), q("q_same_cohort", "c")],
        admitted=[a("admitted_nominal", "q_nominal", -10, "2"),
                  a("admitted_same_cohort", "q_same_cohort", -1, "2")],
        incoming=inc(0, "2"), want={("admitted_same_cohort", RWB)}),
    "incoming workload fits in CQ nominal quota": dict(
        cohorts=[co("r", None), co("c", "r", r(CPU, "2"))],
        cqs=[q("q", "c", r(CPU, "4")), q("q_borrowing", "r"), q("q_same_cohort", "c")],
        admitted=[a("admitted_borrowing", "q_borrowing", 10, "3"),
                  a("admitted_same_cohort", "q_same_cohort", 10, "3")],
        incoming=inc(0, "4"), want={("admitted_borrowing", REC), ("admitted_same_cohort", REC)}),
    "preempt hierarchical and priority candidates": dict(
        cohorts=[co("r", None, r(CPU, "1")), co("c", "r", r(CPU, "4"))],
        cqs=[q("q", "c", pre=LP_LP_BWC), q("q_borrowing", "r"), q("q_same_cohort", "c")],
        admitted=[a("admitted_borrowing", "q_borrowing", -1, "2"),
                  a("admitted_same_cohort_preemptible", "q_same_cohort", -1, "1"),
                  a("admitted_borrowing_not_preemptible", "q_borrowing", 1, "2")],
        incoming=inc(0, "3"),
        want={("admitted_borrowing", REC), ("admitted_same_cohort_preemptible", RWB)}),
    "preempt hierarchical candidates and inside CQ": dict(
        cohorts=[co("r", None, r(CPU, "1")), co("c", "r", r(CPU, "4"))],
        cqs=[q("q", "c", pre=LP_LP_BWC), q("q_borrowing", "r"), q("q_same_cohort", "c")],
        admitted=[a("admitted_borrowing", "q_borrowing", -1, "2"),
                  a("admitted_same_queue_preemptible", "q", -1, "1"),
                  a("admitted_borrowing_not_preemptible", "q_borrowing", 1, "2")],
        incoming=inc(0, "3"),
        want={("admitted_borrowing", REC), ("admitted_same_queue_preemptible", ICQ)}),
    "reclaim nominal quota from lowest priority workload, excluding non-borrowing": dict(
        cohorts=[co("r", None), co("c", "r", r(CPU, "3"))],
        cqs=[q("q", "c"), q("q_borrowing", "r"), q("q_nominal", "r", r(CPU, "2"))],
        admitted=[a("admitted_borrowing_prio_8", "q_borrowing", 8, "1"),
                  a("admitted_borrowing_prio_9", "q_borrowing", 9, "1"),
                  a("admitted_borrowing_prio_10", "q_borrowing", 9, "1"),
                  a("admitted_nominal", "q_nominal", -2, "2")],
        incoming=inc(0, "1"), want={("admitted_borrowing_prio_8", REC)}),
    "infeasible preemption all available workloads in pruned subtrees": dict(
        cohorts=[co("r", None), co("c", "r", r(CPU, "2")), co("c_other", "r", r(CPU, "2"))],
        cqs=[q("q_other", "c_other"), q("q", "c"), q("q_same_cohort", "c")],
        admitted=[a("admitted_other_1", "q_other", -10, "1"), a("admitted_other_2", "q_other", -10, "1"),
                  a("admitted_same_cohort", "q_same_cohort", 0, "2")],
        incoming=inc(0, "2"), want=set()),
    "hiearchical preemption with multiple resources": dict(
        cohorts=[co("r", None, r(CPU, "3")), co("c", "r", r(CPU, "4"), r(MEM, "4Gi"))],
        cqs=[q("q", "c"), q("q_borrowing", "r"), q("q_same_cohort", "c")],
        admitted=[a("admitted_borrowing", "q_borrowing", 0, "3", "1Gi"),
                  a("admitted_same_cohort", "q_same_cohort", -2, "1", "3Gi")],
        incoming=inc(-2, "2", "1Gi"), memory=True, want={("admitted_borrowing", REC)}),
    "prefer to preempt evicted workloads": dict(
        cohorts=[co("r", None), co("c", "r", r(CPU, "2"))],
        cqs=[q("q", "c", pre=LP_ANY_BWC), q("q_borrowing", "r"), q("q_same_cohort", "c")],
        admitted=[a("admitted_borrowing", "q_borrowing", -10, "1"),
                  a("evicted_same_cohort", "q_same_cohort", -1, "1", evicted=True)],
        incoming=inc(0, "1"), want={("evicted_same_cohort", RWB)}),
    "respect lending limits": dict(
        cohorts=[co("r", None), co("c", "r", r(CPU, "2"))],
        cqs=[q("q", "c", r(CPU, "3", None, "2")), q("q_borrowing", "r")],
        admitted=[a("admitted_borrowing", "q_borrowing", 0, "4")],
        incoming=inc(-2, "5"), want={("admitted_borrowing", REC)}),
    "reclaim in complex hierarchy": dict(
        cohorts=[co("r", None), co("c11", "r", r(CPU, "4")), co("c12", "r", r(CPU, "4")),
                 co("c21", "c11", r(CPU, "4")), co("c22", "c11", r(CPU, "4")), co("c23", "c11", r(CPU, "4")),
                 co("c31", "c21", r(CPU, "4")), co("c32", "c21", r(CPU, "4"))],
        cqs=[cq(n, cohort=p, preemption=LP_ANY) for n, p in
             (("q1", "c12"), ("q2", "c23"), ("q3", "c22"), ("q4", "c32"), ("q5", "c31"))],
        admitted=[a("admitted_borrowing_1", "q1", -6, "4"), a("admitted_borrowing_2", "q1", -5, "4"),
                  a("admitted_borrowing_3", "q2", -9, "4"), a("admitted_borrowing_4", "q2", -10, "4"),
                  a("admitted_borrowing_5", "q3", -4, "4"), a("admitted_borrowing_6", "q3", -3, "3"),
                  a("admitted_borrowing_7", "q4", 4, "2"), a("admitted_borrowing_8", "q4", 2, "3")],
        incoming=inc(-2, "7"), target="q5",
        want={("admitted_borrowing_1", REC), ("admitted_borrowing_4", REC)}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_upstream_hierarchical_preemption_case(name: str) -> None:
    case = CASES[name]
    cache = build_cache(case["cqs"], case["admitted"], case["cohorts"], ("default",))
    assignment = {CPU: ("default", "Preempt")}
    if case.get("memory"):
        assignment[MEM] = ("default", "Preempt")
    got = get_targets(cache, case["incoming"], case.get("target", "q"), [assignment])
    assert got == case["want"]
