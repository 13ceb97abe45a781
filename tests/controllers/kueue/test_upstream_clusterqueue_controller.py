"""Upstream's ClusterQueue controller tables, through kbatch's control plane.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/core/clusterqueue_controller_test.go``
(``TestUpdateCqStatusIfChanged``, ``TestClusterQueueReconcile``; case names quoted per test) and
``pkg/cache/scheduler/clusterqueue.go`` ``inactiveReason`` for the Active condition's reason and
message. Queue status is written in 1 s batches, so each step passes 2 s of virtual time.
"""

from __future__ import annotations

from kbatch.api.errors import NotFound
from kbatch.api.kueue_v1beta2 import ClusterQueue

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload


def _active(w: World) -> tuple[str, str, str, int | None]:
    cq = w.cq("cq")
    (c,) = [c for c in cq.status.conditions or () if c.type == "Active"]
    return c.status, c.reason, c.message, c.observed_generation


def _pending(w: World) -> int:
    return w.cq("cq").status.pending_workloads or 0


def test_the_active_condition_follows_the_flavors_and_pending_workloads_are_counted() -> None:
    """ "empty ClusterQueueStatus" (a missing flavor: Active False, FlavorNotFound, with the pending
    workloads counted), "different condition status" (the flavor appears: Ready, "Can admit new
    workloads"), "different pendingWorkloads with same condition status" (one more pending)."""
    w = World(cluster_queue("cq", (["cpu"], [("absent", [quota("cpu", "0")])])), local_queue("lq", "cq"))
    w.apply(workload("alpha", "lq", cpu="1"), workload("beta", "lq", cpu="1"))
    w.cp.advance(2)
    assert _active(w) == (
        "False",
        "FlavorNotFound",
        "Can't admit new workloads: references missing ResourceFlavor(s): absent.",
        1,
    )
    assert _pending(w) == 2
    w.apply(flavor("absent"))
    w.cp.advance(2)
    assert _active(w) == ("True", "Ready", "Can admit new workloads", 1)
    assert _pending(w) == 2  # no quota: still pending
    w.apply(workload("gamma", "lq", cpu="1"))
    w.cp.advance(2)
    assert _active(w)[:2] == ("True", "Ready")
    assert _pending(w) == 3


def test_a_stopped_cluster_queue_is_inactive_with_reason_stopped() -> None:
    """``inactiveReason``: ``stopPolicy`` set gives Stopped, "Can't admit new workloads: is stopped."
    (and its generation observed); back to None gives Ready."""
    w = World(flavor("default"), cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "1")])])))
    w.cp.advance(2)
    assert _active(w) == ("True", "Ready", "Can admit new workloads", 1)
    w.cp.client.patch(ClusterQueue, "cq", {"spec": {"stopPolicy": "Hold"}})
    w.cp.advance(2)
    assert _active(w) == ("False", "Stopped", "Can't admit new workloads: is stopped.", 2)
    w.cp.client.patch(ClusterQueue, "cq", {"spec": {"stopPolicy": "None"}})
    w.cp.advance(2)
    assert _active(w) == ("True", "Ready", "Can admit new workloads", 3)


def _reserving() -> World:
    w = World(
        flavor("default"),
        cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "4")])])),
        local_queue("lq", "cq"),
    )
    w.apply(workload("wl", "lq", cpu="1"))
    w.cp.advance(2)
    assert w.admitted("wl")
    return w


def test_a_finished_workload_does_not_block_the_deletion_of_its_cluster_queue() -> None:
    """ "finished workload does not block deletion: finalizer removed and ClusterQueue deleted" """
    w = _reserving()
    w.finish("wl")
    w.cp.client.delete(ClusterQueue, "cq")
    w.cp.advance(2)
    try:
        w.cq("cq")
    except NotFound:
        return
    raise AssertionError("the ClusterQueue was not deleted")


def test_a_reserving_workload_keeps_its_cluster_queue_terminating_with_fresh_status() -> None:
    """ "reserving workload keeps ClusterQueue terminating: status refreshed to Active=Terminating"
    (Active False, Terminating, "Can't admit new workloads; clusterQueue is terminating";
    reservingWorkloads 1); once the workload finishes the ClusterQueue goes."""
    w = _reserving()
    w.cp.client.delete(ClusterQueue, "cq")
    w.cp.advance(2)
    cq = w.cq("cq")
    assert cq.metadata.deletion_timestamp is not None
    status, reason, message, _ = _active(w)
    assert (status, reason, message) == (
        "False", "Terminating", "Can't admit new workloads; clusterQueue is terminating")
    assert cq.status.reserving_workloads == 1
    w.finish("wl")
    w.cp.advance(2)
    try:
        w.cq("cq")
    except NotFound:
        return
    raise AssertionError("the ClusterQueue was not deleted once empty")
