"""Upstream's flavor-assigner table, case by case, against kbatch's flavor assigner.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/flavorassigner/flavorassigner_test.go``,
``TestAssignFlavors``: a ClusterQueue (with a second one in its cohort), usage added to their
snapshots, a test oracle (``simulationResult``, else Preempt with no borrowing), and per pod set
the flavors (name, mode, ``TriedFlavorIdx``) and the status reasons, the representative mode and
``Borrowing``. Case ids are upstream's. The pod-set group (LeaderWorkerSet) cases are translated
but the one whose ClusterQueue covers cpu in two resource groups (the API refuses it); topology-aware
scheduling and workload slices have their own tables.
"""

from __future__ import annotations

from typing import Any

import pytest

from .upstream_tables import assign_flavors, cq, pod_set, r, required_affinity

CPU, MEM, GPU, PODS = "cpu", "memory", "example.com/gpu", "pods"
TC, SC = "test-clusterqueue", "test-secondary-clusterqueue"
MSS, TNF = "MayStopSearch", "TryNextFlavor"
SPOT = {"key": "instance", "operator": "Equal", "value": "spot", "effect": "NoSchedule"}
BWC_LP = {"reclaimWithinCohort": "LowerPriority", "borrowWithinCohort": {"policy": "LowerPriority"}}


def ff(borrow: str, preempt: str) -> dict[str, Any]:
    return {"flavorFungibility": {"whenCanBorrow": borrow, "whenCanPreempt": preempt}}


def main(requests: dict[str, str], count: int = 1, **spec: Any) -> list[dict[str, Any]]:
    return [pod_set("main", count, requests, **spec)]


def tc(*groups: Any, cohort: str | None = None, **spec: Any) -> dict[str, Any]:
    doc = cq(TC, *groups, cohort=cohort)
    doc["spec"].update(spec)
    return doc


def sc(*groups: Any) -> dict[str, Any]:
    return cq(SC, *groups, cohort="test-cohort")


def exceeds(res: str, flavor: str, before: str, req: str, cap: str) -> str:
    return (f"insufficient quota for {res} in flavor {flavor}, previously considered podsets requests "
            f"({before}) + current podset request ({req}) > maximum capacity ({cap})")


def unused(res: str, flavor: str, more: str) -> str:
    return f"insufficient unused quota for {res} in flavor {flavor}, {more} more needed"


def grouped(ps: dict[str, Any], group: str = "group1") -> dict[str, Any]:
    """``MakePodSet(..).PodSetGroup(group)``."""
    return {**ps, "topologyRequest": {"podSetGroupName": group}}


Case = dict[str, Any]
CASES: dict[str, Case] = {
    "multiple flavors, leader worker set, leader and workers request the same resources fits": dict(
        pods=[grouped(pod_set("worker", 4, {CPU: "2"})), grouped(pod_set("leader", 1, {CPU: "1"}))],
        queue=tc([("one", [r(CPU, "4")]), ("two", [r(CPU, "9")])]),
        mode="Fit",
        want=[("worker", {CPU: ("two", "Fit", -1)}, ""), ("leader", {CPU: ("two", "Fit", -1)}, "")],
        usage_after={("two", CPU): 9000}),
    "multiple flavors, leader worker set, workers request GPU, leader does not request GPU, does not fit, "
    "without group it would fit": dict(
        pods=[grouped(pod_set("worker", 4, {CPU: "1", GPU: "1"})), grouped(pod_set("leader", 1, {CPU: "1"}))],
        queue=tc([("one", [r(CPU, "4"), r(GPU, "4")]), ("two", [r(CPU, "5"), r(GPU, "0")])]),
        mode="NoFit",
        want=[(name, {}, ", ".join(sorted([exceeds(CPU, "one", "0", "5", "4"),
                                           exceeds(GPU, "two", "0", "4", "0")])))
              for name in ("worker", "leader")]),
    "single flavor, fits": dict(
        pods=main({CPU: "1", MEM: "1Mi"}), queue=tc([("default", [r(CPU, "1"), r(MEM, "2Mi")])]),
        mode="Fit", want=[("main", {CPU: ("default", "Fit", -1), MEM: ("default", "Fit", -1)}, "")]),
    "single flavor, fits tainted flavor": dict(
        pods=main({CPU: "1"}, tolerations=[SPOT]), queue=tc([("tainted", [r(CPU, "4")])]),
        mode="Fit", want=[("main", {CPU: ("tainted", "Fit", -1)}, "")]),
    "single flavor, fits tainted flavor with toleration": dict(
        pods=main({CPU: "1"}), queue=tc([("taint_and_toleration", [r(CPU, "4")])]),
        mode="Fit", want=[("main", {CPU: ("taint_and_toleration", "Fit", -1)}, "")]),
    "single flavor, used resources, doesn't fit": dict(
        pods=main({CPU: "2"}), queue=tc([("default", [r(CPU, "4")])]), usage={("default", CPU): "3"},
        mode="Preempt", want=[("main", {CPU: ("default", "Preempt", -1)}, unused(CPU, "default", "1"))]),
    "multiple resource groups, fits": dict(
        pods=main({CPU: "3", MEM: "10Mi"}),
        queue=tc([("one", [r(CPU, "2")]), ("two", [r(CPU, "4")])],
                 [("b_one", [r(MEM, "1Gi")]), ("b_two", [r(MEM, "5Gi")])]),
        mode="Fit", want=[("main", {CPU: ("two", "Fit", -1), MEM: ("b_one", "Fit", 0)}, "")]),
    "multiple resource groups, one could fit with preemption, other doesn't fit": dict(
        pods=main({CPU: "3", MEM: "10Mi"}),
        queue=tc([("one", [r(CPU, "3")])], [("b_one", [r(MEM, "1Mi")])]), usage={("one", CPU): "1"},
        mode="NoFit", want=[("main", {}, exceeds(MEM, "b_one", "0", "10Mi", "1Mi"))]),
    "multiple resource groups with multiple resources, fits": dict(
        pods=main({CPU: "3", MEM: "10Mi", GPU: "3"}),
        queue=tc([("one", [r(CPU, "2"), r(MEM, "1Gi")]), ("two", [r(CPU, "4"), r(MEM, "15Mi")])],
                 [("b_one", [r(GPU, "4")]), ("b_two", [r(GPU, "2")])]),
        mode="Fit", want=[("main", {CPU: ("two", "Fit", -1), MEM: ("two", "Fit", -1),
                                    GPU: ("b_one", "Fit", 0)}, "")]),
    "multiple resource groups with multiple resources, fits with different modes": dict(
        pods=main({CPU: "3", MEM: "10Mi", GPU: "3"}),
        queue=tc([("one", [r(CPU, "2"), r(MEM, "1Gi")]), ("two", [r(CPU, "4"), r(MEM, "15Mi")])],
                 [("b_one", [r(GPU, "4")])], cohort="test-cohort"),
        usage={("two", MEM): "10Mi"}, secondary=sc([("b_one", [r(GPU, "0")])]),
        secondary_usage={("b_one", GPU): "2"}, simulation={("two", MEM): ("Preempt", 1)},
        mode="Preempt", borrowing=1,
        want=[("main", {CPU: ("two", "Fit", -1), MEM: ("two", "Preempt", -1), GPU: ("b_one", "Preempt", -1)},
               ", ".join(sorted([exceeds(CPU, "one", "0", "3", "2"), unused(MEM, "two", "5Mi"),
                                 unused(GPU, "b_one", "1")])))]),
    "multiple resources in a group, doesn't fit": dict(
        pods=main({CPU: "3", MEM: "10Mi"}),
        queue=tc([("one", [r(CPU, "2"), r(MEM, "1Gi")]), ("two", [r(CPU, "4"), r(MEM, "5Mi")])]),
        mode="NoFit", want=[("main", {}, ", ".join(sorted([exceeds(CPU, "one", "0", "3", "2"),
                                                          exceeds(MEM, "two", "0", "10Mi", "5Mi")])))]),
    "multiple flavors, fits while skipping tainted flavor": dict(
        pods=main({CPU: "3"}), queue=tc([("tainted", [r(CPU, "4")]), ("two", [r(CPU, "4")])]),
        mode="Fit", want=[("main", {CPU: ("two", "Fit", -1)}, "")]),
    "multiple flavors, fits a node selector": dict(
        pods=main({CPU: "1"}, nodeSelector={"type": "two", "ignored1": "foo"},
                  affinity=required_affinity([("ignored2", "In", ["bar"])])),
        queue=tc([("one", [r(CPU, "4")]), ("two", [r(CPU, "4")])]),
        mode="Fit", want=[("main", {CPU: ("two", "Fit", -1)}, "")]),
    "multiple flavors, fits with node affinity": dict(
        pods=main({CPU: "1", MEM: "1Mi"}, nodeSelector={"ignored1": "foo"},
                  affinity=required_affinity([("type", "In", ["two"])])),
        queue=tc([("one", [r(CPU, "4"), r(MEM, "1Gi")]), ("two", [r(CPU, "4"), r(MEM, "1Gi")])]),
        mode="Fit", want=[("main", {CPU: ("two", "Fit", -1), MEM: ("two", "Fit", -1)}, "")]),
    "multiple flavors, node affinity fits any flavor": dict(
        pods=main({CPU: "1"}, affinity=required_affinity([("ignored2", "In", ["bar"])],
                                                         [("cpuType", "In", ["two"])])),
        queue=tc([("one", [r(CPU, "4")]), ("two", [r(CPU, "4")])]),
        mode="Fit", want=[("main", {CPU: ("one", "Fit", 0)}, "")]),
    "multiple flavors, doesn't fit node affinity": dict(
        pods=main({CPU: "1"}, affinity=required_affinity([("type", "In", ["three"])])),
        queue=tc([("one", [r(CPU, "4")]), ("two", [r(CPU, "4")])]),
        mode="NoFit", want=[("main", {}, "flavor one doesn't match node affinity, "
                                         "flavor two doesn't match node affinity")]),
    "multiple specs, fit different flavors": dict(
        pods=[pod_set("driver", 1, {CPU: "5"}), pod_set("worker", 1, {CPU: "3"})],
        queue=tc([("one", [r(CPU, "4")]), ("two", [r(CPU, "10")])]),
        mode="Fit",
        want=[("driver", {CPU: ("two", "Fit", -1)}, ""), ("worker", {CPU: ("one", "Fit", 0)}, "")]),
    "multiple specs, fits borrowing": dict(
        pods=[pod_set("driver", 1, {CPU: "4", MEM: "1Gi"}), pod_set("worker", 1, {CPU: "6", MEM: "4Gi"})],
        queue=tc([("default", [r(CPU, "2", "98"), r(MEM, "2Gi")])], cohort="test-cohort"),
        secondary=sc([("default", [r(CPU, "198"), r(MEM, "198Gi")])]),
        mode="Fit", borrowing=1,
        want=[("driver", {CPU: ("default", "Fit", -1), MEM: ("default", "Fit", -1)}, ""),
              ("worker", {CPU: ("default", "Fit", -1), MEM: ("default", "Fit", -1)}, "")]),
    "not enough space to borrow": dict(
        pods=main({CPU: "2"}), queue=tc([("one", [r(CPU, "1")])], cohort="test-cohort"),
        secondary=sc([("one", [r(CPU, "10", None, "0")])]), secondary_usage={("one", CPU): "9"},
        mode="NoFit", want=[("main", {}, exceeds(CPU, "one", "0", "2", "1"))]),
    "past max, but can preempt in ClusterQueue": dict(
        pods=main({CPU: "2"}), queue=tc([("one", [r(CPU, "2", "8")])], cohort="test-cohort"),
        usage={("one", CPU): "9"}, secondary=sc([("one", [r(CPU, "98")])]),
        secondary_usage={("one", CPU): "9"}, simulation={("one", CPU): ("Preempt", 1)},
        mode="Preempt", borrowing=1, want=[("main", {CPU: ("one", "Preempt", -1)}, unused(CPU, "one", "1"))]),
    "past min, but can preempt in ClusterQueue": dict(
        pods=main({CPU: "2"}), queue=tc([("one", [r(CPU, "2")])]), usage={("one", CPU): "1"},
        mode="Preempt", want=[("main", {CPU: ("one", "Preempt", -1)}, unused(CPU, "one", "1"))]),
    "can only preempt flavors that match affinity": dict(
        pods=main({CPU: "2"}, nodeSelector={"type": "two"}),
        queue=tc([("one", [r(CPU, "4")]), ("two", [r(CPU, "4")])]),
        usage={("one", CPU): "3", ("two", CPU): "3"},
        mode="Preempt", want=[("main", {CPU: ("two", "Preempt", -1)},
                               "flavor one doesn't match node affinity, " + unused(CPU, "two", "1"))]),
    "each podset requires preemption on a different flavor": dict(
        pods=[pod_set("launcher", 1, {CPU: "2"}), pod_set("workers", 10, {CPU: "1"}, tolerations=[SPOT])],
        queue=tc([("one", [r(CPU, "4")]), ("tainted", [r(CPU, "10")])]),
        usage={("one", CPU): "3", ("tainted", CPU): "3"},
        mode="Preempt",
        want=[("launcher", {CPU: ("one", "Preempt", -1)},
               unused(CPU, "one", "1")
               + ", untolerated taint {instance spot NoSchedule <nil>} in flavor tainted"),
              ("workers", {CPU: ("tainted", "Preempt", -1)},
               exceeds(CPU, "one", "2", "10", "4") + ", " + unused(CPU, "tainted", "3"))]),
    "resource not listed in clusterQueue": dict(
        pods=main({GPU: "2"}), queue=tc([("one", [r(CPU, "4")])]),
        mode="NoFit", want=[("main", {}, "resource example.com/gpu unavailable in ClusterQueue")]),
    "zero resource request not in clusterQueue should succeed": dict(
        pods=main({CPU: "1", GPU: "0"}), queue=tc([("default", [r(CPU, "4")])]),
        mode="Fit", want=[("main", {CPU: ("default", "Fit", -1)}, "")]),
    "preempt before try next flavor": dict(
        pods=main({CPU: "9"}),
        queue=tc([("one", [r(PODS, "10"), r(CPU, "10")]), ("two", [r(PODS, "10"), r(CPU, "10")])],
                 **ff(MSS, MSS)),
        usage={("one", CPU): "2"}, mode="Preempt",
        want=[("main", {CPU: ("one", "Preempt", 0), PODS: ("one", "Fit", 0)}, unused(CPU, "one", "1"))]),
    "preempt try next flavor": dict(
        pods=main({CPU: "9"}),
        queue=tc([("one", [r(PODS, "10"), r(CPU, "10")]), ("two", [r(PODS, "10"), r(CPU, "10")])]),
        usage={("one", CPU): "2"}, mode="Fit",
        want=[("main", {CPU: ("two", "Fit", -1), PODS: ("two", "Fit", -1)}, "")]),
    "borrow try next flavor, found the first flavor": dict(
        pods=main({CPU: "9"}),
        queue=tc([("one", [r(PODS, "10"), r(CPU, "10", "1")]), ("two", [r(PODS, "10"), r(CPU, "1")])],
                 cohort="test-cohort", **ff(TNF, TNF)),
        usage={("one", CPU): "2"}, secondary=sc([("one", [r(CPU, "1")])]), mode="Fit", borrowing=1,
        want=[("main", {CPU: ("one", "Fit", -1), PODS: ("one", "Fit", -1)}, "")]),
    "borrow try next flavor, found the second flavor": dict(
        pods=main({CPU: "9"}),
        queue=tc([("one", [r(PODS, "10"), r(CPU, "10", "1")]), ("two", [r(PODS, "10"), r(CPU, "10")])],
                 cohort="test-cohort", **ff(TNF, TNF)),
        usage={("one", CPU): "2"}, secondary=sc([("one", [r(CPU, "1")])]), mode="Fit",
        want=[("main", {CPU: ("two", "Fit", -1), PODS: ("two", "Fit", -1)}, "")]),
    "borrow before try next flavor": dict(
        pods=main({CPU: "9"}),
        queue=tc([("one", [r(PODS, "10"), r(CPU, "10", "1")]), ("two", [r(PODS, "10"), r(CPU, "10")])],
                 cohort="test-cohort"),
        usage={("one", CPU): "2"}, secondary=sc([("one", [r(CPU, "1")])]), mode="Fit", borrowing=1,
        want=[("main", {CPU: ("one", "Fit", 0), PODS: ("one", "Fit", 0)}, "")]),
    "when borrowing while preemption is needed for flavor one; WhenCanBorrow=MayStopSearch": dict(
        pods=main({CPU: "12"}),
        queue=tc([("one", [r(CPU, "0", "12")]), ("two", [r(CPU, "12")])], cohort="test-cohort",
                 preemption=BWC_LP, **ff(MSS, MSS)),
        secondary=sc([("one", [r(CPU, "12")])]), secondary_usage={("one", CPU): "10"},
        simulation={("one", CPU): ("Preempt", 1)}, mode="Preempt", borrowing=1,
        want=[("main", {CPU: ("one", "Preempt", 0)}, unused(CPU, "one", "10"))]),
    "when borrowing while preemption is needed for flavor one, no borrowingLimit; "
    "WhenCanBorrow=MayStopSearch": dict(
        pods=main({CPU: "12"}),
        queue=tc([("one", [r(CPU, "0")]), ("two", [r(CPU, "12")])], cohort="test-cohort",
                 preemption=BWC_LP, **ff(MSS, MSS)),
        secondary=sc([("one", [r(CPU, "12")])]), secondary_usage={("one", CPU): "10"},
        simulation={("one", CPU): ("Preempt", 1)}, mode="Preempt", borrowing=1,
        want=[("main", {CPU: ("one", "Preempt", 0)}, unused(CPU, "one", "10"))]),
    "when borrowing while preemption is needed for flavor one; WhenCanBorrow=TryNextFlavor": dict(
        pods=main({CPU: "12"}),
        queue=tc([("one", [r(CPU, "0", "12")]), ("two", [r(CPU, "12")])], cohort="test-cohort",
                 preemption=BWC_LP, **ff(TNF, MSS)),
        secondary=sc([("one", [r(CPU, "12")])]), mode="Fit",
        want=[("main", {CPU: ("two", "Fit", -1)}, "")]),
    "when borrowing while preemption is needed, but borrowingLimit exceeds the quota available in the "
    "cohort": dict(
        pods=main({CPU: "12"}),
        queue=tc([("one", [r(CPU, "0", "12")])], cohort="test-cohort", preemption=BWC_LP),
        secondary=sc([("one", [r(CPU, "11")])]), secondary_usage={("one", CPU): "10"},
        mode="NoFit", want=[("main", {}, exceeds(CPU, "one", "0", "12", "11"))]),
    "lend try next flavor, found the second flavor": dict(
        pods=main({CPU: "9"}),
        queue=tc([("one", [r(PODS, "10"), r(CPU, "10", None, "1")]),
                  ("two", [r(PODS, "10"), r(CPU, "10", None, "0")])], cohort="test-cohort", **ff(TNF, TNF)),
        usage={("one", CPU): "2"}, secondary=sc([("one", [r(CPU, "1")])]), mode="Fit",
        want=[("main", {CPU: ("two", "Fit", -1), PODS: ("two", "Fit", -1)}, "")]),
    "lend try next flavor, found the first flavor": dict(
        pods=main({CPU: "9"}),
        queue=tc([("one", [r(PODS, "10"), r(CPU, "10", None, "1")]),
                  ("two", [r(PODS, "10"), r(CPU, "1", None, "0")])], cohort="test-cohort", **ff(TNF, TNF)),
        usage={("one", CPU): "2"}, secondary=sc([("one", [r(CPU, "1")])]), mode="Fit", borrowing=1,
        want=[("main", {CPU: ("one", "Fit", -1), PODS: ("one", "Fit", -1)}, "")]),
    "cannot preempt in cohort (oracle returns None) for the first flavor, tries the second flavor (which "
    "fits)": dict(
        pods=main({CPU: "2"}),
        queue=tc([("one", [r(CPU, "0", "2")]), ("two", [r(CPU, "0", "2")])], cohort="test-cohort",
                 preemption=BWC_LP, **ff(MSS, MSS)),
        secondary=sc([("one", [r(CPU, "2")]), ("two", [r(CPU, "2")])]),
        secondary_usage={("one", CPU): "2"}, simulation={("one", CPU): ("NoCandidates", 0)},
        mode="Fit", borrowing=1, want=[("main", {CPU: ("two", "Fit", -1)}, "")]),
    "quota exhausted, but can preempt in cohort and ClusterQueue": dict(
        pods=main({CPU: "9"}),
        queue=tc([("one", [r(PODS, "10"), r(CPU, "10", None, "0")])], cohort="test-cohort"),
        usage={("one", CPU): "2"}, secondary=sc([("one", [r(PODS, "0"), r(CPU, "0")])]),
        simulation={("one", CPU): ("Preempt", 1)}, mode="Preempt", borrowing=1,
        want=[("main", {CPU: ("one", "Preempt", -1), PODS: ("one", "Fit", -1)}, unused(CPU, "one", "1"))]),
    "when borrowing while preemption is needed for flavor one, fair sharing enabled, "
    "reclaimWithinCohort=Any": dict(
        fair=True, pods=main({CPU: "12"}),
        queue=tc([("one", [r(CPU, "0")]), ("two", [r(CPU, "12")])], cohort="test-cohort",
                 preemption={"reclaimWithinCohort": "Any"}, **ff(MSS, MSS)),
        secondary=sc([("one", [r(CPU, "12")])]), secondary_usage={("one", CPU): "10"},
        simulation={("one", CPU): ("Preempt", 1)}, mode="Preempt", borrowing=1,
        want=[("main", {CPU: ("one", "Preempt", 0)}, unused(CPU, "one", "10"))]),
    "when borrowing while preemption is needed for flavor one, fair sharing enabled, "
    "reclaimWithinCohort=Never": dict(
        fair=True, pods=main({CPU: "12"}),
        queue=tc([("one", [r(CPU, "0")]), ("two", [r(CPU, "12")])], cohort="test-cohort",
                 preemption={"reclaimWithinCohort": "Never"}, **ff(MSS, MSS)),
        secondary=sc([("one", [r(CPU, "12")])]), secondary_usage={("one", CPU): "10"},
        simulation={("one", CPU): ("Preempt", 1)}, mode="Fit",
        want=[("main", {CPU: ("two", "Fit", -1)}, "")]),
    "multi-podset, one fits and another fails, fitting podset attempts skipped in resolveNoFitReason": dict(
        pods=[pod_set("fitting-podset", 1, {CPU: "1"}, nodeSelector={"type": "one"}),
              pod_set("blocking-podset", 1, {CPU: "5"})],
        queue=tc([("one", [r(CPU, "2")]), ("two", [r(CPU, "2")])]), mode="NoFit",
        want=[("fitting-podset", {CPU: ("one", "Fit", 0)}, ""),
              ("blocking-podset", {}, exceeds(CPU, "one", "1", "5", "2") + ", "
               + exceeds(CPU, "two", "0", "5", "2"))]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_upstream_assign_flavors_case(name: str) -> None:
    c = CASES[name]
    got = assign_flavors(c["pods"], c["queue"], c.get("usage"), c.get("secondary"), c.get("secondary_usage"),
                         c.get("simulation"), c.get("fair", False))
    assert (got.mode, got.pod_sets, got.borrowing) == (c["mode"], c["want"], c.get("borrowing", 0))
    if "usage_after" in c:
        assert got.usage == c["usage_after"]


def test_an_untolerated_taint_prints_as_go_prints_the_taint_value() -> None:
    """The struct fields, space-separated (Go's ``%s`` of a ``v1.Taint`` value), with a
    ``timeAdded`` as ``time.Time.String()``; the case above covers the ``<nil>`` one."""
    from datetime import UTC, datetime

    from kbatch.api.core_v1 import Taint
    from kbatch.controllers.kueue.scheduling.flavorassigner import taint_text

    taint = Taint(key="k", effect="NoExecute", time_added=datetime(2026, 1, 1, 12, 0, 0, 500000, tzinfo=UTC))
    assert taint_text(taint) == "{k  NoExecute 2026-01-01 12:00:00.5 +0000 UTC}"
    taint = Taint(key="k", value="v", effect="NoSchedule", time_added=datetime(2026, 1, 1, tzinfo=UTC))
    assert taint_text(taint) == "{k v NoSchedule 2026-01-01 00:00:00 +0000 UTC}"


# TestReclaimBeforePriorityPreemption: flavors uno, due, tre (10 compute, 10 gpu each) in
# test-clusterqueue (LowerPriority/LowerPriority, whenCanPreempt: TryNextFlavor), lent to the cohort.
UDT = ("uno", "due", "tre")
RECLAIM_CASES: dict[str, Case] = {
    "Select first flavor which fits": dict(
        req={"gpu": "10"}, usage={("uno", "gpu"): "1"}, other={("due", "gpu"): "1"}, mode="Fit",
        want={"gpu": "tre"}),
    "Select first flavor where gpu reclamation is possible": dict(
        req={"gpu": "10"}, usage={("uno", "gpu"): "1"}, other={("due", "gpu"): "1", ("tre", "gpu"): "1"},
        sim={("uno", "gpu"): ("Preempt", 0), ("due", "gpu"): ("Reclaim", 0)}, mode="Preempt",
        want={"gpu": "due"}),
    "Select first flavor when flavor fungibility is disabled": dict(
        req={"gpu": "10"}, usage={("uno", "gpu"): "1"}, other={("due", "gpu"): "1", ("tre", "gpu"): "1"},
        ff={"whenCanPreempt": MSS}, mode="Preempt", want={"gpu": "uno"}),
    "Select first flavor where priority based preemption is possible": dict(
        req={"gpu": "10"}, usage={("uno", "gpu"): "1", ("due", "gpu"): "1", ("tre", "gpu"): "1"},
        mode="Preempt", want={"gpu": "uno"}),
    "Select second flavor where gpu reclamation is possible, as compute Fits": dict(
        req={"gpu": "10", "compute": "10"},
        usage={("uno", "gpu"): "1", ("uno", "compute"): "1", ("due", "compute"): "1"},
        other={("due", "gpu"): "1", ("tre", "gpu"): "1"},
        sim={("uno", "gpu"): ("Preempt", 0), ("due", "gpu"): ("Reclaim", 0), ("tre", "gpu"): ("Reclaim", 0)},
        mode="Preempt", want={"gpu": "tre", "compute": "tre"}),
}


@pytest.mark.parametrize("name", sorted(RECLAIM_CASES))
def test_upstream_reclaim_before_priority_preemption(name: str) -> None:
    c = RECLAIM_CASES[name]
    queue = cq(TC, [(f, [r("compute", "10"), r("gpu", "10")]) for f in UDT], cohort="cohort",
               preemption={"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "LowerPriority"})
    queue["spec"]["flavorFungibility"] = c.get("ff", {"whenCanPreempt": TNF})
    other = cq("other-clusterqueue", [(f, [r("compute", "0"), r("gpu", "0")]) for f in UDT], cohort="cohort")
    got = assign_flavors(main(c["req"]), queue, c["usage"], other, c.get("other"), c.get("sim"),
                         flavors={f: {} for f in UDT})
    assert got.mode == c["mode"]
    assert {res: fa[0] for res, fa in got.pod_sets[0][1].items()} == c["want"]


@pytest.mark.parametrize(("name", "request_cpu", "mode", "want"), [
    ("multiple flavors, skip missing ResourceFlavor", "3", "Fit",
     [("main", {CPU: ("flavor", "Fit", -1)}, "")]),
    ("flavor not found", "1", "NoFit", [("main", {}, "flavor deleted-flavor not found")]),
])
def test_upstream_deleted_flavors(name: str, request_cpu: str, mode: str, want: list[Any]) -> None:
    """``TestDeletedFlavors``: the ClusterQueue still names a flavor the cache no longer has."""
    groups = [("deleted-flavor", [r(CPU, "4")])] + ([("flavor", [r(CPU, "4")])] if mode == "Fit" else [])
    got = assign_flavors(main({CPU: request_cpu}), tc(groups), flavors={"flavor": {}})
    assert (got.mode, got.pod_sets) == (mode, want)


def _hier_cohorts() -> list[dict[str, Any]]:
    from .upstream_tables import cohort

    return [cohort("three", None, [("three", [r(CPU, "4")])]),
            cohort("two", "three", [("two", [r(CPU, "4")])]),
            cohort("one", "two", [("one", [r(CPU, "4")])])]


@pytest.mark.parametrize(("name", "one_quota", "usage", "other", "fungibility", "sim", "want"), [
    ("Select the top flavor", r(CPU, "0"), {("one", CPU): "4"}, {("two", CPU): "4"}, None, None, "three"),
    ("Select the first flavor which fits", r(CPU, "0"), {("one", CPU): "4"}, None, None, None, "two"),
    ("Select deeper-borrowing flavor that fits when shallower-borrowing flavor has no preemption candidates",
     r(CPU, "4", "0"), {("one", CPU): "4"}, None,
     {"whenCanBorrow": TNF, "whenCanPreempt": TNF, "preference": "PreemptionOverBorrowing"},
     {("one", CPU): ("NoCandidates", 1)}, "two"),
])
def test_upstream_hierarchical_flavors(name: str, one_quota: Any, usage: Any, other: Any, fungibility: Any,
                                       sim: Any, want: str) -> None:
    """``TestHierarchical``: cohorts three > two > one, each lending 4 cpu of its own flavor."""
    queue = cq(TC, [("one", [one_quota]), ("two", [r(CPU, "0")]), ("three", [r(CPU, "0")])], cohort="one",
               preemption={"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "LowerPriority"})
    queue["spec"]["flavorFungibility"] = fungibility or {"whenCanPreempt": TNF}
    other_cq = cq("other-clusterqueue", [(f, [r(CPU, "0")]) for f in ("one", "two", "three")], cohort="two")
    got = assign_flavors(main({CPU: "4"}), queue, usage, other_cq, other, sim,
                         flavors={f: {} for f in ("one", "two", "three")}, cohorts=_hier_cohorts())
    assert got.mode == "Fit"
    assert got.pod_sets[0][1][CPU][0] == want


@pytest.mark.parametrize(("a", "b", "preference", "want"), [
    (("fit", 0), ("preempt", 0), None, True),  # feature gate disabled prioritises preemption
    (("preempt", 1), ("fit", 2), "BorrowingOverPreemption", False),  # ... prioritises borrowing distance
    (("preempt", 1), ("fit", 2), "PreemptionOverBorrowing", True),  # ... prioritises lower preemption
    (("preempt", 1), ("fit", 1), "PreemptionOverBorrowing", False),  # ... breaks borrowing ties
    (("none", 1), ("fit", 2), "PreemptionOverBorrowing", False),  # ... rejects no-candidate flavor before ...
    (("fit", 2), ("none", 1), "PreemptionOverBorrowing", True),  # ... prefers fit over shallower no-candidate
    (("none", 1), ("nofit", 0), None, True),  # no-candidate flavor remains preferable to no-fit flavor
    (("nofit", 0), ("none", 1), None, False),  # no-fit flavor remains worse than no-candidate flavor
    (("none", 1), ("none", 2), "PreemptionOverBorrowing", True),  # no-candidate flavors keep borrowing
    (("none", 2), ("none", 1), "PreemptionOverBorrowing", False),  # ... in reverse
])
def test_upstream_is_preferred(a: tuple[str, int], b: tuple[str, int], preference: str | None,
                               want: bool) -> None:
    """``TestIsPreferred`` (granular modes: preemption mode and borrowing level)."""
    from kbatch.controllers.kueue.scheduling import flavorassigner as fa

    modes = {"nofit": fa.PM_NO_FIT, "none": fa.PM_NO_CANDIDATES, "preempt": fa.PM_PREEMPT, "fit": fa.PM_FIT}
    assert fa.is_preferred((modes[a[0]], a[1]), (modes[b[0]], b[1]), preference) is want
