"""Flavor assignment and borrowing/lending in a cohort.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/flavorassigner/flavorassigner_test.go``
(flavors tried in order, a flavor without room is skipped, ``whenCanBorrow``), ``pkg/cache``
resource_node tests and ``test/integration/singlecluster/scheduler/scheduler_test.go`` (borrowing
within a cohort, borrowingLimit, lendingLimit).
"""

from __future__ import annotations

from kbatch.controllers.kueue.manager import UPDATES_BATCH_PERIOD

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload


def test_the_first_flavor_with_room_is_assigned() -> None:
    w = World(
        flavor("on-demand"),
        flavor("spot"),
        cluster_queue("cq", (["cpu"], [("on-demand", [quota("cpu", "2")]), ("spot", [quota("cpu", "4")])])),
        local_queue("lq", "cq"),
    )
    w.apply(workload("a", "lq", cpu="2"))
    w.cp.run_until_idle()
    w.apply(workload("b", "lq", cpu="3"))
    w.cp.run_until_idle()
    assert w.flavors("a") == {"cpu": "on-demand"}
    assert w.flavors("b") == {"cpu": "spot"}
    w.apply(workload("c", "lq", cpu="2"))
    w.cp.advance(2)
    cond = w.cond("c", "QuotaReserved")
    assert cond.status == "False"
    assert "insufficient unused quota for cpu in flavor on-demand" in cond.message
    assert "in flavor spot" in cond.message


def test_a_flavor_whose_taints_are_not_tolerated_is_skipped() -> None:
    taint = {"key": "spot", "value": "true", "effect": "NoSchedule"}
    w = World(
        flavor("spot", labels={"pool": "spot"}, taints=[taint]),
        flavor("regular", labels={"pool": "reg"}),
        cluster_queue("cq", (["cpu"], [("spot", [quota("cpu", "8")]), ("regular", [quota("cpu", "8")])])),
        local_queue("lq", "cq"),
    )
    toleration = {"key": "spot", "operator": "Equal", "value": "true", "effect": "NoSchedule"}
    w.apply(workload("plain", "lq"), workload("tolerant", "lq", tolerations=[toleration]))
    w.cp.run_until_idle()
    assert w.flavors("plain") == {"cpu": "regular"}
    assert w.flavors("tolerant") == {"cpu": "spot"}


def test_a_node_selector_that_contradicts_a_flavors_labels_skips_it() -> None:
    w = World(
        flavor("a", labels={"pool": "a"}),
        flavor("b", labels={"pool": "b"}),
        cluster_queue("cq", (["cpu"], [("a", [quota("cpu", "8")]), ("b", [quota("cpu", "8")])])),
        local_queue("lq", "cq"),
    )
    w.apply(workload("wants-b", "lq", node_selector={"pool": "b"}))
    w.cp.run_until_idle()
    assert w.flavors("wants-b") == {"cpu": "b"}


def _cohort(a_spec: dict | None = None, b_spec: dict | None = None) -> World:
    a_quota = quota("cpu", "2", **(a_spec or {}))
    b_quota = quota("cpu", "4", **(b_spec or {}))
    return World(
        flavor("default"),
        cluster_queue("cq-a", (["cpu"], [("default", [a_quota])]), cohort="team"),
        cluster_queue("cq-b", (["cpu"], [("default", [b_quota])]), cohort="team"),
        local_queue("lq-a", "cq-a"),
        local_queue("lq-b", "cq-b"),
    )


def test_a_cluster_queue_borrows_unused_quota_of_its_cohort() -> None:
    w = _cohort()
    w.apply(workload("big", "lq-a", cpu="5"))
    w.cp.advance(UPDATES_BATCH_PERIOD)  # the ClusterQueue's status is written a batch period later
    assert w.admitted("big")
    res = w.cq("cq-a").status.flavors_reservation[0].resources[0]
    assert (str(res.total), str(res.borrowed)) == ("5", "3")
    w.apply(workload("b1", "lq-b", cpu="2"))
    w.cp.advance(2)
    assert not w.reserved("b1")  # the cohort is full: 6 cpu, 5 lent to cq-a
    assert "insufficient unused quota" in w.cond("b1", "QuotaReserved").message


def test_the_borrowing_limit_caps_what_is_borrowed() -> None:
    w = _cohort(a_spec={"borrowing": "1"})
    w.apply(workload("too-big", "lq-a", cpu="4"), workload("fits", "lq-a", cpu="3"))
    w.cp.advance(2)
    assert not w.reserved("too-big")
    assert w.admitted("fits")
    assert w.usage() == {"cq-a": 3000}


def test_the_lending_limit_caps_what_the_others_may_take() -> None:
    w = _cohort(b_spec={"lending": "1"})
    w.apply(workload("a4", "lq-a", cpu="4"))
    w.cp.advance(2)
    assert not w.reserved("a4")  # 2 own + 1 lent by cq-b
    w.apply(workload("a3", "lq-a", cpu="3"))
    w.cp.advance(2)
    assert w.admitted("a3")
    w.apply(workload("b3", "lq-b", cpu="3"))  # cq-b keeps its 3 guaranteed cpu
    w.cp.run_until_idle()
    assert w.admitted("b3")
    assert w.usage() == {"cq-a": 3000, "cq-b": 3000}


def test_without_a_cohort_nothing_is_borrowed() -> None:
    w = World(
        flavor("default"),
        cluster_queue("solo", (["cpu"], [("default", [quota("cpu", "2")])])),
        cluster_queue("rich", (["cpu"], [("default", [quota("cpu", "8")])])),
        local_queue("lq", "solo"),
    )
    w.apply(workload("w", "lq", cpu="3"))
    w.cp.advance(2)
    assert not w.reserved("w")
