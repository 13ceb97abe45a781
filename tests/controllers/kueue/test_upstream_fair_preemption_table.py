"""Upstream's fair-sharing preemption table, case by case, against kbatch's preemptor.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/preemption/preemption_fair_test.go``,
``TestFairPreemptions`` (``baseCQs``, each case's admitted workloads with their UIDs set to their
names, incoming workload, target ClusterQueue, strategies, and the preempted (workload, reason)
set). The feature gates are at their v0.19.2 defaults (``FairSharingPreemptWithinNominal`` on).
Case ids are upstream's case names.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.controllers.kueue.scheduling.preemption.preemptor import Preemptor

from .upstream_tables import Wl, build_cache, cohort, cq, get_targets, r

CPU = "cpu"
LP, ANY = "LowerPriority", "Any"
ICQ, REC, FS = "InClusterQueue", "InCohortReclamation", "InCohortFairSharing"
_BASE_PRE = {"withinClusterQueue": LP, "reclaimWithinCohort": ANY,
             "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": -3}}
BASE_CQS = [cq(n, [("default", [r(CPU, "3")])], cohort="all", preemption=_BASE_PRE) for n in "abc"] + [
    cq("preemptible", [("default", [r(CPU, "0")])], cohort="all")]
_LA = {"withinClusterQueue": LP, "reclaimWithinCohort": ANY}


def u(name: str, cq_name: str, cpu: str = "1", priority: int | None = None, flavor: str = "default") -> Wl:
    """``unitWl.Clone().Name(name)...SimpleReserveQuota(cq, flavor, now)`` (UID = name)."""
    return Wl(name, {CPU: cpu}, priority, admitted_to=cq_name, assignment=[{CPU: (flavor, cpu)}])


def us(cq_name: str, *names: str) -> list[Wl]:
    return [u(n, cq_name) for n in names]


def inc(name: str, cpu: str = "1", priority: int | None = None) -> Wl:
    return Wl(name, {CPU: cpu}, priority)


Case = dict[str, Any]
CASES: dict[str, Case] = {
    "reclaim nominal from user using the most": dict(
        admitted=us("a", "a1", "a2", "a3") + us("b", "b1", "b2", "b3", "b4", "b5") + us("c", "c1"),
        incoming=inc("c_incoming"), target="c", want={("b1", REC)}),
    "can reclaim from queue using less, if taking the latest workload from user using the most isn't "
    "enough": dict(
        admitted=[u("a1", "a", "3"), u("a2", "a", "1"), u("b1", "b", "2"), u("b2", "b", "3")],
        incoming=inc("c_incoming", "3"), target="c", want={("a1", REC)}),
    "reclaim borrowable quota from user using the most": dict(
        admitted=us("a", "a1", "a2", "a3") + us("b", "b1", "b2", "b3", "b4", "b5") + us("c", "c1"),
        incoming=inc("a_incoming"), target="a", want={("b1", FS)}),
    "preempt one from each CQ borrowing": dict(
        admitted=[u("a1", "a", "0.5"), u("a2", "a", "0.5"), u("a3", "a", "3"),
                  u("b1", "b", "0.5"), u("b2", "b", "0.5"), u("b3", "b", "3")],
        incoming=inc("c_incoming", "2"), target="c", want={("a1", REC), ("b1", REC)}),
    "can't preempt when everyone under nominal": dict(
        admitted=us("a", "a1", "a2", "a3") + us("b", "b1", "b2", "b3") + us("c", "c1", "c2", "c3"),
        incoming=inc("c_incoming"), target="c", want=set()),
    "can't preempt when it would switch the imbalance": dict(
        admitted=us("a", "a1", "a2", "a3") + us("b", "b1", "b2", "b3", "b4", "b5"),
        incoming=inc("a_incoming", "2"), target="a", want=set()),
    "can preempt lower priority workloads from same CQ": dict(
        admitted=[u("a1_low", "a", priority=-1), u("a2_low", "a", priority=-1), *us("a", "a3", "a4"),
                  *us("b", "b1", "b2", "b3", "b4", "b5")],
        incoming=inc("a_incoming", "2"), target="a", want={("a1_low", ICQ), ("a2_low", ICQ)}),
    "can preempt a combination of same CQ and highest user": dict(
        admitted=[u("a_low", "a", priority=-1), *us("a", "a2", "a3"),
                  *us("b", "b1", "b2", "b3", "b4", "b5", "b6")],
        incoming=inc("a_incoming", "2"), target="a", want={("a_low", ICQ), ("b1", FS)}),
    "preempt huge workload if there is no other option, as long as the target CQ gets a lower share": dict(
        admitted=[u("b1", "b", "9")], incoming=inc("a_incoming", "2"), target="a", want={("b1", REC)}),
    "can't preempt huge workload if the incoming is also huge": dict(
        admitted=[u("a1", "a", "2"), u("b1", "b", "7")], incoming=inc("a_incoming", "5"), target="a",
        want=set()),
    "can't preempt 2 smaller workloads if the incoming is huge": dict(
        admitted=[u("b1", "b", "2"), u("b2", "b", "2"), u("b3", "b", "3")],
        incoming=inc("a_incoming", "6"), target="a", want=set()),
    "preempt from target and others even if over nominal": dict(
        admitted=[u("a1_low", "a", "2", -1), u("a2_low", "a", "1", -1), u("b1", "b", "3"), u("b2", "b", "3")],
        incoming=inc("a_incoming", "4"), target="a", want={("a1_low", ICQ), ("b1", FS)}),
    "prefer to preempt workloads that don't make the target CQ have the biggest share": dict(
        admitted=[u("b1", "b", "2"), u("b2", "b", "1"), u("b3", "b", "2"), u("c1", "c", "1")],
        incoming=inc("a_incoming", "3.5"), target="a", want={("b2", FS)}),
    "preempt from different cluster queues if the end result has a smaller max share": dict(
        admitted=[u("b1", "b", "2"), u("b2", "b", "2.5"), u("c1", "c", "2"), u("c2", "c", "2.5")],
        incoming=inc("a_incoming", "3.5"), target="a", want={("b1", FS), ("c1", FS)}),
    "scenario above does not flap": dict(
        admitted=[u("a1", "a", "3.5"), u("b2", "b", "2.5"), u("c2", "c", "2.5")],
        incoming=inc("b_incoming", "2"), target="b", want=set()),
    "cannot preempt if it would make the candidate CQ go under nominal after preempting one element": dict(
        admitted=[u("b1", "b", "3"), u("b2", "b", "3"), u("c1", "c", "3")],
        incoming=inc("a_incoming", "4"), target="a", want=set()),
    "workloads under priority threshold not capriciously preempted": dict(
        admitted=us("a", "a1", "a2", "a3") + us("b", "b1", "b2", "b3")
        + [u(f"preemptible{i}", "preemptible", priority=-3) for i in (1, 2, 3)],
        incoming=inc("a_incoming", "2"), target="a", want=set()),
    "preempt lower priority first, even if big": dict(
        strategies=("LessThanInitialShare",),
        admitted=[u("a1", "a", "3"), u("b_low", "b", "5", 0), u("b_high", "b", "1", 1)],
        incoming=inc("a_incoming"), target="a", want={("b_low", FS)}),
    "preempt workload that doesn't transfer the imbalance, even if high priority": dict(
        strategies=("LessThanOrEqualToFinalShare",),
        admitted=[u("a1", "a", "3"), u("b_low", "b", "5", 0), u("b_high", "b", "1", 1)],
        incoming=inc("a_incoming"), target="a", want={("b_high", FS)}),
    "CQ with higher weight can preempt more": dict(
        cqs=[cq("a", [("default", [r(CPU, "3")])], cohort="all", preemption=_LA, fair_weight="2"),
             cq("b", [("default", [r(CPU, "3")])], cohort="all", preemption=_LA),
             cq("c", [("default", [r(CPU, "3")])], cohort="all", preemption=_LA)],
        admitted=us("a", "a1", "a2", "a3") + us("b", "b1", "b2", "b3", "b4", "b5", "b6"),
        incoming=inc("a_incoming", "2"), target="a", want={("b1", FS), ("b2", FS)}),
    "can preempt anything borrowing from CQ with 0 weight": dict(
        cqs=[cq("a", [("default", [r(CPU, "3")])], cohort="all", preemption=_LA),
             cq("b", [("default", [r(CPU, "3")])], cohort="all", preemption=_LA, fair_weight="0"),
             cq("c", [("default", [r(CPU, "3")])], cohort="all", preemption=_LA)],
        admitted=us("a", "a1", "a2", "a3") + us("b", "b1", "b2", "b3", "b4", "b5", "b6"),
        incoming=inc("a_incoming", "3"), target="a", want={("b1", FS), ("b2", FS), ("b3", FS)}),
    "can't preempt nominal from CQ with 0 weight": dict(
        cqs=[cq("a", [("default", [r(CPU, "3")])], cohort="all", preemption=_LA),
             cq("b", [("default", [r(CPU, "3")])], cohort="all", preemption=_LA, fair_weight="0")],
        admitted=us("a", "a1", "a2", "a3") + us("b", "b1", "b2", "b3"),
        incoming=inc("a_incoming"), target="a", want=set()),
    "can't preempt nominal from Cohort with 0 weight": dict(
        cqs=[cq("left-cq", [("default", [r(CPU, "0")])], cohort="root",
                preemption={"reclaimWithinCohort": ANY}),
             cq("right-cq", [("default", [r(CPU, "0")])], cohort="right-cohort",
                preemption={"reclaimWithinCohort": ANY}, fair_weight="0")],
        cohorts=[cohort("right-cohort", "root", [("default", [r(CPU, "1")])], fair_weight="0")],
        admitted=[u("right-1", "right-cq")], incoming=inc("left-1"), target="left-cq", want=set()),
    "can preempt within cluster queue when no cohort": dict(
        cqs=[cq("a", [("default", [r(CPU, "1")])], preemption={"withinClusterQueue": LP})],
        admitted=[u("a1", "a")], incoming=inc("a_incoming", priority=1000), target="a",
        want={("a1", ICQ)}),
    "hierarchical preemption": dict(
        cqs=[cq("a", [("default", [r(CPU, "1")])], cohort="LEFT", fair_weight="2",
                preemption={"reclaimWithinCohort": ANY}),
             cq("b", [("default", [r(CPU, "1")])], cohort="LEFT"),
             cq("c", [("default", [r(CPU, "1")])], cohort="ROOT"),
             cq("d", [("default", [r(CPU, "1")])], cohort="RIGHT"),
             cq("e", [("default", [r(CPU, "1")])], cohort="RIGHT", fair_weight="0.99")],
        cohorts=[cohort("ROOT", None, [("default", [r(CPU, "5")])]),
                 cohort("LEFT", "ROOT", [("default", [r(CPU, "5")])], fair_weight="2"),
                 cohort("RIGHT", "ROOT", [("default", [r(CPU, "5")])])],
        admitted=[u(f"{q}{i}", q, priority=i) for q in "bcde" for i in range(1, 6)],
        incoming=inc("unit", "5"), target="a",
        want={("b1", FS), ("b2", FS), ("c1", FS), ("c2", FS), ("e1", FS)}),
    "borrowing cq in non-borrowing cohort is protected": dict(
        cqs=[cq("a", [("default", [r(CPU, "5")])], cohort="ROOT", fair_weight="10",
                preemption={"reclaimWithinCohort": ANY, "withinClusterQueue": LP}),
             cq("b", cohort="RIGHT", fair_weight="0.1")],
        cohorts=[cohort("ROOT"), cohort("RIGHT", "ROOT", [("default", [r(CPU, "1")])], fair_weight="0.1")],
        admitted=[u(n, "a", priority=-1) for n in ("a1", "a2", "a3")] + [u("b1", "b", priority=-1)],
        incoming=inc("unit", "5"), target="a", want={("a1", ICQ), ("a2", ICQ), ("a3", ICQ)}),
    "forced to preempt within clusterqueue because borrowing workload too important": dict(
        cqs=[cq("a", [("default", [r(CPU, "5")])], cohort="ROOT", fair_weight="10",
                preemption={"reclaimWithinCohort": LP, "withinClusterQueue": LP}),
             cq("b", cohort="RIGHT", fair_weight="0.1")],
        cohorts=[cohort("ROOT"), cohort("RIGHT", "ROOT", [("default", [r(CPU, "3")])], fair_weight="0.1")],
        admitted=[u(n, "a", priority=-1) for n in ("a1", "a2", "a3")] + [u("b1", "b", "4", 100)],
        incoming=inc("unit", "4"), target="a", want={("a1", ICQ), ("a2", ICQ), ("a3", ICQ)}),
    "deep preemption": dict(
        cqs=[cq("a", [("default", [r(CPU, "0")])], cohort="AAA", preemption={"reclaimWithinCohort": ANY}),
             cq("b", [("default", [r(CPU, "0")])], cohort="BBB")],
        cohorts=[cohort("ROOT"), cohort("A", "ROOT", fair_weight="1.01"), cohort("AA", "A"),
                 cohort("AAA", "AA"), cohort("B", "ROOT", fair_weight="0.99"), cohort("BB", "B"),
                 cohort("BBB", "BB"), cohort("C", "ROOT"), cohort("CC", "C"), cohort("CCC", "CC"),
                 cohort("CCCC", "CCC", [("default", [r(CPU, "1")])])],
        admitted=[u("b1", "b")], incoming=inc("a1"), target="a", want={("b1", FS)}),
    "cq with zero weight can reclaim nominal quota": dict(
        cqs=[cq("a", [("default", [r(CPU, "1")])], cohort="ROOT", fair_weight="0.0",
                preemption={"reclaimWithinCohort": ANY}),
             cq("b", [("default", [r(CPU, "0")])], cohort="ROOT", fair_weight="1.0")],
        admitted=[u("b1", "b")], incoming=inc("a1"), target="a", want={("b1", REC)}),
    "cohort with zero weight can reclaim nominal quota": dict(
        cqs=[cq("a", [("default", [r(CPU, "0")])], cohort="A", fair_weight="0.0",
                preemption={"reclaimWithinCohort": ANY}),
             cq("b", [("default", [r(CPU, "0")])], cohort="ROOT", fair_weight="1.0")],
        cohorts=[cohort("A", "ROOT", [("default", [r(CPU, "1")])], fair_weight="0.0")],
        admitted=[u("b1", "b")], incoming=inc("a1"), target="a", want={("b1", FS)}),
    "nominal first: workload fitting within nominal can preempt despite high aggregate DRS": dict(
        flavors=("premium", "cheap"), flavor="premium",
        cqs=[cq("a", [("premium", [r(CPU, "3")]), ("cheap", [r(CPU, "0")])], cohort="all",
                preemption={"reclaimWithinCohort": ANY}),
             cq("b", [("premium", [r(CPU, "0")]), ("cheap", [r(CPU, "6")])], cohort="all")],
        admitted=[u("a_prem1", "a", flavor="premium"), u("a_prem2", "a", flavor="premium")]
        + [u(f"a_cheap{i}", "a", flavor="cheap") for i in range(1, 6)]
        + [u("b_prem1", "b", flavor="premium")],
        incoming=inc("a_incoming"), target="a", want={("b_prem1", REC)}),
    "zero weight borrowing preemptor cannot preempt from a borrowing CQ with a non-zero weight": dict(
        cqs=[cq("a", [("default", [r(CPU, "1")])], cohort="all", fair_weight="0",
                preemption={"reclaimWithinCohort": ANY}),
             cq("b", [("default", [r(CPU, "1")])], cohort="all", fair_weight="1")],
        admitted=us("a", "a1") + us("b", "b1", "b2"), incoming=inc("a_incoming"), target="a", want=set()),
    "zero weight borrowing preemptor can preempt from a borrowing CQ which also has zero weight": dict(
        cohorts=[cohort("all", None, [("default", [r(CPU, "3")])])],
        cqs=[cq("a", [("default", [r(CPU, "1")])], cohort="all", fair_weight="0",
                preemption={"reclaimWithinCohort": ANY}),
             cq("b", [("default", [r(CPU, "0")])], cohort="all", fair_weight="0")],
        admitted=us("b", "b1", "b2", "b3"), incoming=inc("a_incoming", "2"), target="a",
        want={("b1", FS)}),
    "non-zero weight borrowing preemptor preempts from a borrowing CQ": dict(
        cohorts=[cohort("all", None, [("default", [r(CPU, "3")])])],
        cqs=[cq("a", [("default", [r(CPU, "1")])], cohort="all", fair_weight="1",
                preemption={"reclaimWithinCohort": ANY}),
             cq("b", [("default", [r(CPU, "0")])], cohort="all", fair_weight="1")],
        admitted=us("b", "b1", "b2", "b3"), incoming=inc("a_incoming", "2"), target="a",
        want={("b1", FS)}),
    "candidates skipped by the first strategy are still available to the second strategy": dict(
        cohorts=[cohort("A", "ROOT", [("default", [r(CPU, "1")])], fair_weight="0")],
        cqs=[cq("p", [("default", [r(CPU, "2")])], cohort="A", fair_weight="1",
                preemption={"reclaimWithinCohort": ANY}),
             cq("y", [("default", [r(CPU, "2")])], cohort="A", fair_weight="1"),
             cq("x", [("default", [r(CPU, "1")])], cohort="ROOT", fair_weight="1")],
        admitted=[u("p1", "p", "2"), u("y1", "y", "2"), u("y2", "y", "2"), u("x1", "x"), u("x2", "x")],
        incoming=inc("p_incoming"), target="p", want={("y1", FS), ("x1", FS)}),
}


def _run(case: Case) -> set[tuple[str, str]]:
    cache = build_cache(case.get("cqs", BASE_CQS), case["admitted"], case.get("cohorts"),
                        case.get("flavors", ("default",)))
    preemptor = Preemptor(fair_sharing=True, strategies=case.get("strategies", ()), within_nominal=True)
    flavor = case.get("flavor", "default")
    return get_targets(cache, case["incoming"], case["target"], [{CPU: (flavor, "Preempt")}], preemptor)


@pytest.mark.parametrize("name", sorted(CASES))
def test_upstream_fair_preemption_case(name: str) -> None:
    assert _run(CASES[name]) == CASES[name]["want"]
