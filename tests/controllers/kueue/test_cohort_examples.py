"""Example tests for hierarchical Cohorts and ``borrowWithinCohort``.

Upstream: kubernetes-sigs/kueue v0.19.2 ``test/integration/singlecluster/scheduler/
scheduler_test.go`` ("Should admit workload using resources borrowed from cohort", "Should admit
only up to the lendingLimit of sibling cohort") and ``preemption_test.go`` ("should allow
preempting workloads while borrowing"; message format from ``test/util/util.go``
``ExpectPreemptedCondition``).
"""

from __future__ import annotations

from typing import Any

from kbatch.api.kueue_v1beta2 import Cohort

from .helpers import KUEUE, World, cluster_queue, flavor, local_queue, quota, workload


def cohort(name: str, parent: str | None = None, flavor_name: str = "on-demand", cpu: str | None = None,
           lending: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if parent:
        spec["parentName"] = parent
    if cpu is not None:
        spec["resourceGroups"] = [{"coveredResources": ["cpu"], "flavors": [
            {"name": flavor_name, "resources": [quota("cpu", cpu, None, lending)]}]}]
    return {"apiVersion": KUEUE, "kind": "Cohort", "metadata": {"name": name}, "spec": spec}


def test_a_cluster_queue_borrows_what_its_cohort_object_provides() -> None:
    """"Should admit workload using resources borrowed from cohort"."""
    cq = cluster_queue("clusterqueue", (["cpu"], [("on-demand", [quota("cpu", "0")])]), cohort="cohort")
    w = World(flavor("on-demand"), cq, local_queue("queue", "clusterqueue"))
    w.apply(workload("wl", "queue", cpu="10"))
    w.cp.run_until_idle()
    assert not w.reserved("wl")
    w.apply(cohort("cohort", cpu="5"))
    w.cp.advance(2)
    assert not w.reserved("wl")
    w.cp.client.patch(Cohort, "cohort", {"spec": cohort("cohort", cpu="10")["spec"]})
    w.cp.advance(2)
    assert w.admitted("wl") and w.flavors("wl") == {"cpu": "on-demand"}


def test_a_sibling_cohort_lends_only_its_lending_limit() -> None:
    """"Should admit only up to the lendingLimit of sibling cohort": root (0 cpu) → lender (1 cpu,
    lendingLimit 500m; lender-cq 1 cpu) and borrower (borrower-cq 0 cpu): of two 500m workloads
    in the borrower queue only one is admitted."""
    def cq(name: str, cpu: str, parent: str) -> dict[str, Any]:
        return cluster_queue(name, (["cpu"], [("on-demand", [quota("cpu", cpu)])]), cohort=parent)

    w = World(flavor("on-demand"), cohort("root", cpu="0"), cohort("lender", "root", cpu="1", lending="500m"),
              cohort("borrower", "root"), cq("lender-cq", "1", "lender"), cq("borrower-cq", "0", "borrower"),
              local_queue("borrower-cq", "borrower-cq"))
    w.apply(workload("wl-1", "borrower-cq", cpu="500m"))
    w.cp.run_until_idle()
    w.apply(workload("wl-2", "borrower-cq", cpu="500m"))
    w.cp.advance(2)
    assert w.reserved("wl-1") and not w.reserved("wl-2")
    assert w.cq("borrower-cq").status.reserving_workloads == 1
    assert w.cq("borrower-cq").status.pending_workloads == 1


LOW, MID, HIGH, VERY_HIGH = -1, 0, 1, 2


def _cq(name: str, threshold: int | None) -> dict[str, Any]:
    borrow: dict[str, Any] = {"policy": "LowerPriority"}
    if threshold is not None:
        borrow["maxPriorityThreshold"] = threshold
    return cluster_queue(
        name,
        (["cpu"], [("one", [quota("cpu", "1", "10")]), ("fallback", [quota("cpu", "10", "0")])]),
        cohort="all",
        flavorFungibility={"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "MayStopSearch"},
        preemption={"reclaimWithinCohort": "LowerPriority", "borrowWithinCohort": borrow},
    )


def test_borrow_within_cohort_preempts_lower_priority_workloads_while_borrowing() -> None:
    """preemption_test.go "should allow preempting workloads while borrowing"."""
    w = World(flavor("one"), flavor("fallback"),
              _cq("a-standard-cq", MID), _cq("a-best-effort-cq", None), _cq("b-best-effort-cq", None),
              _cq("b-standard-cq", MID),
              cluster_queue("shared-cq", (["cpu"], [("one", [quota("cpu", "10")])]), cohort="all"),
              *(local_queue(n.replace("-cq", "-lq"), n) for n in
                ("a-standard-cq", "a-best-effort-cq", "b-best-effort-cq", "b-standard-cq")))
    w.apply(workload("a-best-effort-low", "a-best-effort-lq", cpu="5", priority=LOW))
    w.cp.run_until_idle()
    assert w.admitted("a-best-effort-low") and w.flavors("a-best-effort-low") == {"cpu": "one"}
    w.apply(workload("b-best-effort-low", "b-best-effort-lq", cpu="1", priority=LOW))
    w.cp.run_until_idle()
    assert w.flavors("b-best-effort-low") == {"cpu": "one"}
    w.apply(workload("b-standard-high", "b-standard-lq", cpu="5", priority=HIGH))
    w.cp.run_until_idle()
    assert w.flavors("b-standard-high") == {"cpu": "one"}

    w.apply(workload("a-standard-very-high", "a-standard-lq", cpu="7", priority=VERY_HIGH))
    w.cp.run_until_idle()
    preempted = w.cond("a-best-effort-low", "Preempted")
    uid = w.wl("a-standard-very-high").metadata.uid
    assert (preempted.status, preempted.reason) == ("True", "InCohortReclaimWhileBorrowing")
    assert preempted.message == (
        f"Preempted to accommodate a workload (UID: {uid}, JobUID: UNKNOWN) due to reclamation within the "
        "cohort while borrowing; preemptor path: /all/a-standard-cq; preemptee path: /all/a-best-effort-cq")
    w.release_evicted()
    w.cp.advance(2)
    assert w.admitted("a-standard-very-high") and w.flavors("a-standard-very-high") == {"cpu": "one"}
    assert w.admitted("a-best-effort-low") and w.flavors("a-best-effort-low") == {"cpu": "fallback"}
    for name in ("b-standard-high", "b-best-effort-low"):  # above the threshold / needed: kept
        assert w.admitted(name) and w.flavors(name) == {"cpu": "one"} and w.cond(name, "Preempted") is None
