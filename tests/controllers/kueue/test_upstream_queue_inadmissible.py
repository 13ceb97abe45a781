"""Upstream's ``pkg/cache/queue/manager_test.go`` requeue-of-inadmissible cases (kubernetes-sigs/kueue
v0.19.2: ``TestQueueInadmissibleWorkloads`` "deduplication with shared root" and "cohort subtree
aggregates count across multiple cluster queues", ``TestUpdateClusterQueue``) through the API: a
change in one ClusterQueue requeues the inadmissible workloads of every ClusterQueue in its Cohort
tree (``NotifyRetryInadmissible``), and a ClusterQueue moved into another Cohort gets its own and the
new Cohort's inadmissible workloads re-evaluated. Here the re-evaluation is seen as admission by
borrowing: without the tree-wide requeue the other ClusterQueue's workloads would stay inadmissible.
"""

from __future__ import annotations

from kbatch.api.kueue_v1beta2 import ClusterQueue

from .helpers import KUEUE, World, cluster_queue, flavor, local_queue, quota, workload


def _cohort(name: str, parent: str | None = None) -> dict:
    spec = {"parentName": parent} if parent else {}
    return {"apiVersion": KUEUE, "kind": "Cohort", "metadata": {"name": name}, "spec": spec}


def _cq(name: str, cohort: str, nominal: str) -> dict:
    return cluster_queue(name, (["cpu"], [("default", [quota("cpu", nominal)])]), cohort=cohort)


def test_queue_inadmissible_workloads_cohort_subtree() -> None:
    """"cohort subtree aggregates count across multiple cluster queues": root ├ child1 (cq1, cq2)
    └ child2 (cq3, two workloads); all inadmissible (no quota); cq1 gets 4 cpu: every workload of
    the tree is re-evaluated and admitted, borrowing through the root."""
    w = World(flavor("default"), _cohort("root"), _cohort("child1", "root"), _cohort("child2", "root"),
              _cq("cq1", "child1", "0"), _cq("cq2", "child1", "0"), _cq("cq3", "child2", "0"),
              local_queue("q1", "cq1"), local_queue("q2", "cq2"), local_queue("q3", "cq3"),
              workload("a", "q1", cpu="1"), workload("b", "q2", cpu="1"),
              workload("c", "q3", cpu="1"), workload("d", "q3", cpu="1"))
    w.settle(rounds=2)
    assert w.names_where("QuotaReserved") == []
    w.cp.client.patch(ClusterQueue, "cq1", {"spec": {"resourceGroups": _cq("cq1", "child1", "4")["spec"]
                                                     ["resourceGroups"]}})
    w.settle(rounds=2)
    assert w.names_where("QuotaReserved") == ["a", "b", "c", "d"]


def test_update_cluster_queue_moves_cohort() -> None:
    """``TestUpdateClusterQueue``: cq2 moves from Cohort beta to alpha; its inadmissible workload is
    re-evaluated and borrows cq1's unused quota."""
    w = World(flavor("default"), _cq("cq1", "alpha", "2"), _cq("cq2", "beta", "0"),
              local_queue("foo", "cq1"), local_queue("bar", "cq2"),
              workload("a", "foo", cpu="1"), workload("b", "bar", cpu="1"))
    w.settle(rounds=2)
    assert w.names_where("QuotaReserved") == ["a"]
    w.cp.client.patch(ClusterQueue, "cq2", {"spec": {"cohortName": "alpha"}})
    w.settle(rounds=2)
    assert w.names_where("QuotaReserved") == ["a", "b"]


def test_cluster_queue_to_active() -> None:
    """``TestClusterQueueToActive``: a ClusterQueue becoming active wakes the scheduler
    (``UpdateClusterQueue`` broadcasts); here its missing ResourceFlavor is created and its pending
    workload is admitted, with no other event and no time passing."""
    w = World(_cq("cq1", "alpha", "2"), local_queue("foo", "cq1"), workload("a", "foo", cpu="1"))
    w.settle(rounds=2)
    assert not w.reserved("a")
    active = [c for c in w.cq("cq1").status.conditions or () if c.type == "Active"]
    assert active and active[0].status == "False"
    w.apply(flavor("default"))
    w.cp.run_until_idle()
    assert w.reserved("a")


def test_requeue_workloads_cohort_cycle() -> None:
    """``TestRequeueWorkloadsCohortCycle`` / ``TestQueueInadmissibleWorkloads`` "cohort cycle":
    cohort-a → cohort-b → cohort-c → cohort-a. The requeue of the tree is skipped (``HasCycle``), the
    workload stays queued and assigned to its LocalQueue. As upstream, the ClusterQueue's own status
    stays ``Ready`` (``ClusterQueueReadiness`` reads only its cache state) while the snapshot leaves
    it out (``skipInactiveCQReason``: ``HasCycle``), hence the workload's message."""
    w = World(flavor("default"), _cohort("cohort-a", "cohort-b"), _cohort("cohort-b", "cohort-c"),
              _cohort("cohort-c", "cohort-a"), _cq("cq1", "cohort-a", "2"), local_queue("foo", "cq1"),
              workload("a", "foo", cpu="1"))
    w.settle(rounds=3)
    qr = w.cond("a", "QuotaReserved")
    assert (qr.status, qr.message) == ("False", "ClusterQueue cq1 is inactive")
    assert w.lq("foo").status.pending_workloads == 1
    assert w.cq("cq1").status.pending_workloads == 1
