"""Preemption within a ClusterQueue and across a cohort, and the queueing strategies.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/preemption/preemption_test.go``
(withinClusterQueue LowerPriority, reclaimWithinCohort, the Preempted reasons
``InClusterQueue``/``InCohortReclamation``, minimal victim sets), ``pkg/cache/queue``
cluster_queue tests (StrictFIFO blocks behind its head, BestEffortFIFO moves on; priority then
creation order), ``test/integration/singlecluster/scheduler/preemption_test.go``.
"""

from __future__ import annotations

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload


def _single(nominal: str = "4", **spec) -> World:
    return World(flavor("default"),
                 cluster_queue("cq", (["cpu"], [("default", [quota("cpu", nominal)])]), **spec),
                 local_queue("lq", "cq"))


def test_a_higher_priority_workload_preempts_a_lower_one_in_its_cluster_queue() -> None:
    w = _single(preemption={"withinClusterQueue": "LowerPriority"})
    w.apply(workload("low", "lq", cpu="3", priority=1))
    w.cp.run_until_idle()
    w.apply(workload("high", "lq", cpu="3", priority=5))
    w.cp.run_until_idle()

    preempted, evicted = w.cond("low", "Preempted"), w.cond("low", "Evicted")
    assert (preempted.status, preempted.reason) == ("True", "InClusterQueue")
    assert (evicted.status, evicted.reason) == ("True", "Preempted")
    assert w.wl("high").metadata.uid in evicted.message
    assert "Pending the preemption of 1 workload(s)" in w.cond("high", "QuotaReserved").message
    assert any(reason == "Preempted" for _, reason, _ in w.events("low"))

    assert w.release_evicted() == 1  # the job integration stops the job, the quota is released
    w.cp.advance(2)
    assert w.admitted("high")
    assert not w.reserved("low")


def test_equal_priority_does_not_preempt_under_lower_priority() -> None:
    w = _single(preemption={"withinClusterQueue": "LowerPriority"})
    w.apply(workload("first", "lq", cpu="3", priority=1))
    w.cp.run_until_idle()
    w.apply(workload("second", "lq", cpu="3", priority=1))
    w.settle()
    assert w.admitted("first") and not w.reserved("second")
    assert w.cond("first", "Evicted") is None


def test_only_as_few_victims_as_needed_are_preempted() -> None:
    w = _single(nominal="6", preemption={"withinClusterQueue": "LowerPriority"})
    w.apply(workload("l1", "lq", cpu="2", priority=1), workload("l2", "lq", cpu="2", priority=2),
            workload("l3", "lq", cpu="2", priority=3))
    w.cp.run_until_idle()
    w.apply(workload("high", "lq", cpu="2", priority=9))
    w.settle()
    assert w.admitted("high")
    assert w.names_where("Evicted") == ["l1"]  # the lowest priority goes first, and only it


def test_never_preempts_when_withinClusterQueue_is_never() -> None:
    w = _single()
    w.apply(workload("low", "lq", cpu="3", priority=1))
    w.cp.run_until_idle()
    w.apply(workload("high", "lq", cpu="3", priority=5))
    w.settle()
    assert w.admitted("low") and not w.reserved("high")
    assert w.names_where("Evicted") == []


def test_a_cluster_queue_reclaims_its_quota_lent_to_the_cohort() -> None:
    w = World(flavor("default"),
              cluster_queue("owner", (["cpu"], [("default", [quota("cpu", "4")])]), cohort="team",
                            preemption={"reclaimWithinCohort": "Any"}),
              cluster_queue("borrower", (["cpu"], [("default", [quota("cpu", "0")])]), cohort="team"),
              local_queue("lq-owner", "owner"), local_queue("lq-borrower", "borrower"))
    w.apply(workload("guest", "lq-borrower", cpu="4", priority=100))
    w.cp.run_until_idle()
    assert w.admitted("guest")
    w.apply(workload("home", "lq-owner", cpu="2", priority=0))
    w.cp.run_until_idle()
    assert w.cond("guest", "Preempted").reason == "InCohortReclamation"
    w.settle()
    assert w.admitted("home")
    assert w.usage() == {"owner": 2000}


def test_reclaim_never_leaves_the_borrower_alone() -> None:
    w = World(flavor("default"),
              cluster_queue("owner", (["cpu"], [("default", [quota("cpu", "4")])]), cohort="team"),
              cluster_queue("borrower", (["cpu"], [("default", [quota("cpu", "0")])]), cohort="team"),
              local_queue("lq-owner", "owner"), local_queue("lq-borrower", "borrower"))
    w.apply(workload("guest", "lq-borrower", cpu="4"))
    w.cp.run_until_idle()
    w.apply(workload("home", "lq-owner", cpu="2"))
    w.settle()
    assert w.admitted("guest") and not w.reserved("home")


def _blocked_head(strategy: str) -> World:
    w = _single(queueingStrategy=strategy)
    w.apply(workload("running", "lq", cpu="3"))
    w.cp.run_until_idle()
    w.apply(workload("big", "lq", cpu="2", priority=10), workload("small", "lq", cpu="1", priority=0))
    w.settle(rounds=3)
    return w


def test_strict_fifo_holds_smaller_workloads_behind_its_head() -> None:
    w = _blocked_head("StrictFIFO")
    assert not w.reserved("big") and not w.reserved("small")
    assert w.wl("small").status is None  # never the head: the scheduler never looked at it


def test_best_effort_fifo_admits_what_fits_behind_an_inadmissible_head() -> None:
    w = _blocked_head("BestEffortFIFO")
    assert not w.reserved("big") and w.admitted("small")


def test_higher_priority_is_admitted_first_then_older() -> None:
    w = _single(nominal="1")
    w.apply(workload("holder", "lq"))
    w.cp.run_until_idle()
    for name, priority in (("old-low", 0), ("new-high", 5), ("newer-high", 5)):
        w.apply(workload(name, "lq", priority=priority))
        w.cp.advance(1)
    order, running = [], "holder"
    for _ in range(3):
        w.finish(running)
        w.cp.advance(2)
        running = sorted(set(w.names_where("Admitted")) - set(w.names_where("Finished")))[0]
        order.append(running)
    assert order == ["new-high", "newer-high", "old-low"]
