"""Node lifecycle taints and taint-based eviction (upstream nodelifecycle, tainteviction)."""

from __future__ import annotations

from kubelet.cluster import condition, get_pod, pod_yaml, sim_cluster

from kbatch.api.core_v1 import Node, Pod
from kbatch.controllers.nodelifecycle import NOT_READY, UNREACHABLE, plan_eviction, wanted_taints
from kbatch.controllers.scheduler.types import Taint, Toleration
from kbatch.sim import mark_node_not_ready, mark_node_ready, taint_node

ALL = "scheduler,kubelet,node-lifecycle,taint-eviction-controller"


def test_not_ready_and_unreachable_taints_follow_the_ready_condition() -> None:
    assert [(t.key, t.effect) for t in wanted_taints([], "False", 0.0)] == [
        (NOT_READY, "NoSchedule"), (NOT_READY, "NoExecute")]
    unreachable = wanted_taints([Taint("x", "NoSchedule")], "Unknown", 5.0)
    assert [t.key for t in unreachable] == ["x", UNREACHABLE, UNREACHABLE]
    assert wanted_taints(unreachable, "True", 9.0) == [Taint("x", "NoSchedule")]


def test_eviction_plan_honours_toleration_seconds_from_when_the_taint_is_seen() -> None:
    """Upstream ``processPodOnNode``: the toleration runs from the controller's observation, not
    from the taint's ``timeAdded``."""
    taint = Taint(NOT_READY, "NoExecute", "", time_added=100.0)
    assert plan_eviction([taint], (), now=100.0, scheduled=None) == (100.0, 100.0)
    tol = (Toleration(NOT_READY, "Exists", "", "NoExecute", 300),)
    assert plan_eviction([taint], tol, now=150.0, scheduled=None) == (150.0, 450.0)
    assert plan_eviction([taint], tol, now=200.0, scheduled=(150.0, 450.0)) == (150.0, 450.0)
    assert plan_eviction([taint], (Toleration(operator="Exists"),), now=150.0, scheduled=None) is None
    assert plan_eviction([Taint("k", "NoSchedule")], (), now=1.0, scheduled=None) is None


def test_not_ready_node_pods_are_evicted_with_deletion_by_taint_manager() -> None:
    cp = sim_cluster(2, controllers=ALL)  # one node of one: the zone would be fully disrupted
    cp.apply(pod_yaml("p", "sleep 1000", grace=5).replace("spec:\n", "spec:\n  nodeName: node-0\n"))
    watch = cp.client.watch(Pod, "default")
    mark_node_not_ready(cp, "node-0")
    cp.advance(300)  # DefaultTolerationSeconds admission: pods tolerate not-ready:NoExecute for 300 s
    node = cp.client.get(Node, "node-0")
    want = {(NOT_READY, "NoSchedule"), (NOT_READY, "NoExecute")}
    assert {(t.key, t.effect) for t in node.spec.taints} == want
    cond = condition(get_pod(cp, "p"), "DisruptionTarget")
    assert cond.reason == "DeletionByTaintManager"
    assert cond.message == "Taint manager: deleting due to NoExecute taint"
    assert cond.observed_generation == 1  # written before the delete bumps the generation (KEP-5067)
    mark_node_ready(cp, "node-0")  # the kubelet is back and finishes the graceful deletion
    cp.advance(10)
    assert watch.poll()[-1].type == "DELETED"
    assert not cp.client.get(Node, "node-0").spec.taints


def test_toleration_seconds_delay_the_eviction() -> None:
    cp = sim_cluster(1, controllers=ALL)
    tolerate = ("\n  tolerations: [{key: example.com/maintenance, operator: Exists, effect: NoExecute, "
                "tolerationSeconds: 60}]")
    cp.apply(pod_yaml("p", "sleep 1000", extra_spec=tolerate))
    taint_node(cp, "node-0", "example.com/maintenance", effect="NoExecute")
    cp.advance(59)
    assert condition(get_pod(cp, "p"), "DisruptionTarget") is None
    cp.advance(1)
    assert condition(get_pod(cp, "p"), "DisruptionTarget").reason == "DeletionByTaintManager"
