"""Upstream's ``pkg/controller/core/localqueue_controller_test.go`` ``TestLocalQueueReconcile``
(kubernetes-sigs/kueue v0.19.2), the cases without admission fair sharing, through the API: the
LocalQueue's ``Active`` condition and its counts (``pendingWorkloads``, ``reservingWorkloads``,
``admittedWorkloads``, ``flavorsReservation``/``flavorsUsage``). Case ids are upstream's names.
"""

from __future__ import annotations

import pytest

from kbatch.api.kueue_v1beta2 import ClusterQueue

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload

CQ_INACTIVE = "Can't submit new workloads to clusterQueue"


def _active(w: World) -> tuple[str, str, str, int | None]:
    lq = w.lq("test-queue")
    [c] = [c for c in lq.status.conditions or () if c.type == "Active"]
    return c.status, c.reason, c.message, c.observed_generation


def _world(*extra: dict, flavor_name: str = "rf", **lq_spec: str) -> World:
    w = World(
        flavor("rf"),
        cluster_queue("test-cluster-queue", (["cpu"], [(flavor_name, [quota("cpu", "10")])])),
        local_queue("test-queue", "test-cluster-queue", **lq_spec),
        *extra,
    )
    w.settle(rounds=2)
    return w


@pytest.mark.parametrize("policy", ["Hold", "HoldAndDrain"])
def test_local_queue_with_stop_policy(policy: str) -> None:
    """"local queue with Hold StopPolicy" / "... HoldAndDrain StopPolicy": Active=False
    ``Stopped`` "LocalQueue is stopped", no pending workloads counted."""
    w = _world(workload("wl", "test-queue", cpu="1"), stopPolicy=policy)
    assert _active(w) == ("False", "Stopped", "LocalQueue is stopped", 1)
    assert (w.lq("test-queue").status.pending_workloads or 0) == 0
    assert not w.reserved("wl")


def test_cluster_queue_is_inactive() -> None:
    """"cluster queue is inactive" (here: its flavor does not exist): ``ClusterQueueIsInactive``."""
    w = _world(workload("wl", "test-queue", cpu="1"), flavor_name="missing")
    assert _active(w) == ("False", "ClusterQueueIsInactive", CQ_INACTIVE, 1)
    assert w.lq("test-queue").status.pending_workloads == 1


def test_cluster_queue_deleted() -> None:
    """"cluster queue deleted while its scheduler cache entry is still present": the counts and
    usage from the cache are not reported, ``ClusterQueueDoesNotExist``. Through an API server a
    ClusterQueue holding a workload keeps its ``resource-in-use`` finalizer, so the workload
    finishes first here."""
    w = _world(workload("wl", "test-queue", cpu="4"))
    assert w.admitted("wl")
    lq = w.lq("test-queue").status
    assert (lq.reserving_workloads, lq.admitted_workloads) == (1, 1)
    assert [(f.name, [(r.name, str(r.total)) for r in f.resources]) for f in lq.flavors_usage] == [
        ("rf", [("cpu", "4")])]
    w.finish("wl")
    w.cp.client.delete(ClusterQueue, "test-cluster-queue")
    w.settle(rounds=2)
    status = w.lq("test-queue").status
    assert _active(w) == ("False", "ClusterQueueDoesNotExist", CQ_INACTIVE, 1)
    assert (status.reserving_workloads or 0, status.admitted_workloads or 0) == (0, 0)
    assert not status.flavors_reservation and not status.flavors_usage


def test_ready_counts() -> None:
    """The ``Ready`` branch: "Can submit new workloads to localQueue"; one admitted and one pending
    workload (10 cpu quota, 6 + 6 requested)."""
    w = _world(workload("a", "test-queue", cpu="6"), workload("b", "test-queue", cpu="6"))
    assert _active(w) == ("True", "Ready", "Can submit new workloads to localQueue", 1)
    s = w.lq("test-queue").status
    assert (s.pending_workloads, s.reserving_workloads, s.admitted_workloads) == (1, 1, 1)
    assert [(f.name, [(r.name, str(r.total)) for r in f.resources]) for f in s.flavors_reservation] == [
        ("rf", [("cpu", "6")])]
    cq = w.cq("test-cluster-queue").status
    assert (cq.pending_workloads, cq.reserving_workloads, cq.admitted_workloads) == (1, 1, 1)


def test_local_queue_released_from_hold() -> None:
    """The LocalQueue's update handler (``localqueue_controller.go`` ``Update``): a stop policy
    leaving ``Hold`` adds the LocalQueue to the queue manager again, with its workloads; its status
    turns ``Ready`` and counts them."""
    from kbatch.api.kueue_v1beta2 import LocalQueue

    w = _world(workload("wl", "test-queue", cpu="1"), workload("big", "test-queue", cpu="20"),
               stopPolicy="Hold")
    assert not w.reserved("wl")
    w.cp.client.patch(LocalQueue, "test-queue", {"spec": {"stopPolicy": "None"}}, "default")
    w.settle(rounds=2)
    assert w.reserved("wl") and not w.reserved("big")
    assert _active(w) == ("True", "Ready", "Can submit new workloads to localQueue", 2)
    s = w.lq("test-queue").status
    assert (s.pending_workloads, s.reserving_workloads, s.admitted_workloads) == (1, 1, 1)
