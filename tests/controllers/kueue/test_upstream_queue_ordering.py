"""Upstream's ``TestStrictFIFO`` eviction cases (``pkg/cache/queue/cluster_queue_test.go``,
kubernetes-sigs/kueue v0.19.2) through the API, as a user's workloads go: a workload evicted by the
PodsReady timeout queues by its eviction time with ``waitForPodsReady.requeuingStrategy.timestamp:
Eviction`` (``Ordering.GetQueueOrderTimestamp``) and by its creation time with ``Creation``.

w1 (created first) is admitted and times out; w2, created a second later, waits because the
ClusterQueue's quota was lowered to 0 meanwhile; once w1's back-off is over both are pending, and
the quota comes back: the StrictFIFO head is the one the timestamp puts first.
"""

from __future__ import annotations

import pytest

from kbatch.api.kueue_v1beta2 import ClusterQueue

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload
from .test_wait_for_pods_ready import _requeued_by_timeout


def _config(timestamp: str) -> dict:
    return {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "waitForPodsReady": {
            "timeout": "5s",
            "requeuingStrategy": {"timestamp": timestamp, "backoffBaseSeconds": 1},
        },
    }


def _cq(nominal: str) -> dict:
    return cluster_queue("cq", (["cpu"], [("default", [quota("cpu", nominal)])]),
                         queueingStrategy="StrictFIFO")


@pytest.mark.parametrize("timestamp, first", [("Eviction", "w2"), ("Creation", "w1")])
def test_strict_fifo_orders_an_evicted_workload_by_requeuing_timestamp(timestamp: str, first: str) -> None:
    """"w1.priority equals w2.priority and w1.create time is earlier than w2.create time but w1 was
    evicted" (Eviction: w2 first) and "... kueue is configured to always use the creation timestamp"
    (Creation: w1 first)."""
    w = World(flavor("default"), _cq("1"), local_queue("lq", "cq"), kueue_config=_config(timestamp))
    w.apply(workload("w1", "lq", cpu="1"))
    w.cp.run_until_idle()
    assert w.admitted("w1")
    w.cp.advance(1)
    w.cp.client.patch(ClusterQueue, "cq", {"spec": {"resourceGroups": _cq("0")["spec"]["resourceGroups"]}})
    w.apply(workload("w2", "lq", cpu="1"))
    w.cp.run_until_idle()
    assert not w.reserved("w2")
    w.cp.advance(4.5)  # w1's PodsReady timeout
    assert w.cond("w1", "Evicted").reason == "PodsReadyTimeout"
    _requeued_by_timeout(w, "w1")
    w.release_evicted()
    w.cp.advance(3)  # w1's back-off (1 s) is over: both pending
    assert w.cond("w1", "Requeued").status == "True"
    assert not w.reserved("w1") and not w.reserved("w2")
    w.cp.client.patch(ClusterQueue, "cq", {"spec": {"resourceGroups": _cq("1")["spec"]["resourceGroups"]}})
    w.settle(rounds=2)
    assert w.names_where("QuotaReserved") == [first]
