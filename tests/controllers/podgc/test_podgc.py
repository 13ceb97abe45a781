"""Pod GC (upstream pkg/controller/podgc), pure rules and on a ControlPlane."""

from __future__ import annotations

from kubelet.cluster import pod_yaml, sim_cluster

from kbatch.api.core_v1 import Pod
from kbatch.controllers.podgc import PodFacts, orphaned, terminated_to_delete, unscheduled_terminating
from kbatch.sim import delete_node


def facts(name: str, creation: float, phase: str = "Succeeded", node: str = "n", terminating: bool = False):
    return PodFacts("default", name, creation, phase, node, terminating)


def test_terminated_beyond_threshold_oldest_first() -> None:
    pods = [facts("c", 3), facts("a", 1), facts("run", 0, "Running"), facts("b", 2)]
    assert [p.name for p in terminated_to_delete(pods, 1)] == ["a", "b"]
    assert terminated_to_delete(pods, 0) == []  # threshold 0 disables


def test_orphans_wait_for_the_quarantine() -> None:
    pods = [facts("p", 0, "Running", node="gone")]
    assert orphaned(pods, {"n"}, {"gone": 10.0}, now=49.0) == []
    assert [p.name for p in orphaned(pods, {"n"}, {"gone": 10.0}, now=50.0)] == ["p"]


def test_unscheduled_terminating() -> None:
    pods = [facts("a", 0, "Pending", node="", terminating=True), facts("b", 0, "Pending", node="")]
    assert [p.name for p in unscheduled_terminating(pods)] == ["a"]


def test_terminated_pods_gc_on_the_control_plane() -> None:
    cp = sim_cluster(1, controllers="scheduler,kubelet,podgc",
                     options={"podgc": {"terminated_pod_gc_threshold": 2}})
    for i in range(4):
        cp.apply(pod_yaml(f"p{i}", "true"))
        cp.advance(1)
    cp.advance(20)
    assert [p.metadata.name for p in cp.client.list(Pod, "default").items] == ["p2", "p3"]


def test_pods_of_a_deleted_node_are_failed_with_deletion_by_pod_gc_then_deleted() -> None:
    cp = sim_cluster(1, controllers="scheduler,kubelet,podgc")
    cp.apply(pod_yaml("p", "sleep 1000"))
    watch = cp.client.watch(Pod, "default")
    delete_node(cp, "node-0")
    cp.advance(70)
    events = watch.poll()
    failed = [e.object for e in events if e.type == "MODIFIED" and e.object.status.phase == "Failed"]
    assert failed and failed[-1].status.condition("DisruptionTarget").reason == "DeletionByPodGC"
    assert events[-1].type == "DELETED"
