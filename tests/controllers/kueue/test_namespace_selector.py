"""A namespace that comes to match a ClusterQueue's namespace selector gets its workloads retried.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/core/clusterqueue_controller.go``
``cqNamespaceHandler``: on a namespace update, the ClusterQueues whose selector matches the new
labels and did not match the old ones have their inadmissible workloads requeued (after the requeue
batch period, 1 s); creating or deleting a namespace does nothing.
"""

from __future__ import annotations

from kbatch.api.core_v1 import Namespace

from .helpers import World, cluster_queue, flavor, local_queue, quota, workload


def _world() -> World:
    w = World(
        flavor("default"),
        cluster_queue("cq", (["cpu"], [("default", [quota("cpu", "4")])]),
                      namespaceSelector={"matchLabels": {"team": "a"}}),
    )
    w.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns1"}})
    w.apply(local_queue("lq", "cq", namespace="ns1"), workload("w", "lq", namespace="ns1", cpu="1"))
    w.cp.run_until_idle()
    w.cp.advance(5)
    return w


def test_a_workload_waits_until_its_namespace_matches_then_comes_back_after_the_batch_period() -> None:
    w = _world()
    assert not w.reserved("w", "ns1")
    w.cp.client.patch(Namespace, "ns1", {"metadata": {"labels": {"team": "a"}}})
    w.cp.run_until_idle()
    assert not w.reserved("w", "ns1")  # the retry is batched
    w.cp.advance(1)
    assert w.admitted("w", "ns1")


def test_a_label_change_that_matches_no_new_queue_retries_nothing() -> None:
    w = _world()
    w.cp.client.patch(Namespace, "ns1", {"metadata": {"labels": {"team": "b"}}})
    w.cp.advance(2)
    assert not w.reserved("w", "ns1")
