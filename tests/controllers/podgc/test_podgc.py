"""Pod GC (upstream pkg/controller/podgc), pure rules and on a ControlPlane."""

from __future__ import annotations

import pytest
from kubelet.cluster import pod_yaml, sim_cluster

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import NotFound
from kbatch.api.frozen import edit
from kbatch.controllers.podgc import (
    TERMINATED_POD_GC_THRESHOLD,
    PodFacts,
    PodGC,
    orphaned,
    terminated_to_delete,
    unscheduled_terminating,
)
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import delete_node


def facts(name: str, creation: float, phase: str = "Succeeded", node: str = "n", terminating: bool = False,
          reason: str = "") -> PodFacts:
    return PodFacts("default", name, creation, phase, node, terminating, reason)


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
    # the pod's generation it acted on (KEP-5067, podgc's markFailedAndDeletePodWithCondition)
    assert failed[-1].status.condition("DisruptionTarget").observed_generation == 1
    assert events[-1].type == "DELETED"


def _hold(name: str) -> str:
    """An unscheduled pod whose finalizer keeps it, terminating, after a delete."""
    return pod_yaml(name, "sleep 1000").replace(
        "namespace: default}", "namespace: default, finalizers: [example.com/hold]}")


def test_unscheduled_terminating_pod_is_marked_failed_and_force_deleted_on_the_control_plane() -> None:
    cp = sim_cluster(0, controllers="podgc")  # no scheduler: the pod never gets a node
    cp.apply(_hold("p"))
    cp.advance(1)
    deleted = cp.client.delete(Pod, "p", "default")
    assert deleted is not None and deleted.metadata.deletion_timestamp is not None  # terminating
    assert deleted.status.phase == "Pending"
    cp.advance(19)  # t=20: the next sweep (gcUnscheduledTerminating → markFailedAndDeletePod)
    pod = cp.client.get(Pod, "p", "default")
    assert pod.status.phase == "Failed" and pod.spec.node_name is None
    assert pod.metadata.deletion_grace_period_seconds == 0  # force-deleted: only the finalizer holds it
    cp.client.patch(Pod, "p", {"metadata": {"finalizers": None}}, "default")
    with pytest.raises(NotFound):
        cp.client.get(Pod, "p", "default")


def test_unscheduled_pod_that_is_not_terminating_is_kept() -> None:
    cp = sim_cluster(0, controllers="podgc")
    cp.apply(_hold("idle"))
    cp.advance(60)
    assert cp.client.get(Pod, "idle", "default").status.phase == "Pending"  # not terminating: kept


def test_default_threshold_is_12500() -> None:
    assert TERMINATED_POD_GC_THRESHOLD == 12_500
    cp = sim_cluster(0, controllers="podgc")
    gc = cp.manager.get("podgc").reconciler  # no options: kube-controller-manager's default
    assert isinstance(gc, PodGC) and gc.threshold == 12_500 and gc.period == 20.0


def test_12501_terminated_pods_under_the_default_threshold_lose_the_oldest() -> None:
    pods = [facts(f"p{i:05d}", float(i), "Failed" if i % 2 else "Succeeded") for i in range(12_501)]
    pods.reverse()  # the order of the list does not matter, only creationTimestamp
    running = [facts(f"r{i}", -1.0, "Running") for i in range(10)]
    assert [p.name for p in terminated_to_delete(pods + running, TERMINATED_POD_GC_THRESHOLD)] == ["p00000"]
    assert terminated_to_delete(pods[:12_500], TERMINATED_POD_GC_THRESHOLD) == []


def test_terminated_ties_on_creation_are_broken_by_name() -> None:
    pods = [facts("b", 5), facts("a", 5), facts("c", 6)]
    assert [p.name for p in terminated_to_delete(pods, 1)] == ["a", "b"]


def _terminated_pods(cp: ControlPlane, names: list[str]) -> None:
    for name in names:
        cp.apply(pod_yaml(name, "true"))
        pod = edit(cp.client.get(Pod, name, "default"))
        pod.status.phase = "Succeeded"
        cp.client.update_status(pod)


def test_sweeps_every_20_seconds_of_virtual_time() -> None:
    cp = sim_cluster(0, controllers="podgc", options={"podgc": {"terminated_pod_gc_threshold": 1}})
    cp.run_until_idle()  # the sweep at start (t=0) finds nothing
    cp.advance(1)
    _terminated_pods(cp, ["old"])  # t=1
    cp.advance(1)
    _terminated_pods(cp, ["new"])  # t=2: two terminated pods, one over the threshold
    cp.advance(17.999)  # t≈19.999: no sweep yet
    assert sorted(p.metadata.name for p in cp.client.list(Pod, "default").items) == ["new", "old"]
    cp.advance(0.001)  # t=20: the second sweep
    assert [p.metadata.name for p in cp.client.list(Pod, "default").items] == ["new"]
    _terminated_pods(cp, ["newer"])
    cp.advance(19.5)
    assert len(cp.client.list(Pod, "default").items) == 2
    cp.advance(0.5)  # t=40
    assert [p.metadata.name for p in cp.client.list(Pod, "default").items] == ["newer"]


def test_evicted_pods_are_deleted_first_then_oldest() -> None:
    """Upstream byEvictionAndCreationTimestamp: Failed pods with reason Evicted go first."""
    pods = [facts("old", 1), facts("evicted-new", 9, "Failed", reason="Evicted"), facts("mid", 5),
            facts("evicted-old", 3, "Failed", reason="Evicted"),
            facts("succeeded-evicted", 2, reason="Evicted")]  # only a Failed pod counts as evicted
    assert [p.name for p in terminated_to_delete(pods, 2)] == ["evicted-old", "evicted-new", "old"]


def test_orphaned_terminal_pod_is_deleted_without_a_condition() -> None:
    """markFailedAndDeletePodWithCondition patches only a pod that is not terminal yet."""
    cp = sim_cluster(1, controllers="scheduler,kubelet,podgc")
    cp.apply(pod_yaml("done", "true"))
    cp.advance(5)
    assert cp.client.get(Pod, "done", "default").status.phase == "Succeeded"
    watch = cp.client.watch(Pod, "default")
    delete_node(cp, "node-0")
    cp.advance(70)
    events = watch.poll()
    assert events and events[-1].type == "DELETED"
    assert all(e.object.status.condition("DisruptionTarget") is None for e in events)


def test_12501_terminated_pods_through_the_api_lose_the_oldest_at_the_default_threshold() -> None:
    """The default option on a real control plane (about 5 s: 25,002 writes and one sweep)."""
    cp = ControlPlane(controllers="podgc", trace=False)
    cp.run_until_idle()  # the sweep at t=0
    template = Pod.model_validate({"metadata": {"namespace": "default"}, "spec": {
        "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}})
    for i in range(TERMINATED_POD_GC_THRESHOLD + 1):
        pod = template.model_copy(deep=True)
        pod.metadata.name = f"p{i:05d}"
        created = edit(cp.client.create(pod))
        created.status.phase = "Failed" if i % 2 else "Succeeded"
        cp.client.update_status(created)
        if i == 0:
            cp.advance(1)  # p00000 is the only pod created at t=0
    cp.advance(19)  # t=20
    names = {p.metadata.name for p in cp.client.list(Pod, "default").items}
    assert len(names) == TERMINATED_POD_GC_THRESHOLD and "p00000" not in names
