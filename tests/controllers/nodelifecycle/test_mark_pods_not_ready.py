"""MarkPodsNotReady: the pods of a node that node-lifecycle times out become not ready
(upstream pkg/controller/util/node/controller_utils.go, node_lifecycle_controller.go)."""

from __future__ import annotations

from kubelet.cluster import condition, get_pod, pod_yaml, sim_cluster

from kbatch.api.core_v1 import Event
from kbatch.api.frozen import edit
from kbatch.controllers.nodelifecycle.pods import not_ready_patch
from kbatch.sim import mark_node_not_ready, start_kubelet, stop_kubelet

ALL = "scheduler,kubelet,node-lifecycle"


def on(name: str, node: str) -> str:
    return pod_yaml(name, "sleep 100000").replace("spec:\n", f"spec:\n  nodeName: {node}\n")


def events(cp, reason: str) -> list[tuple[str, str, str, str]]:  # type: ignore[no-untyped-def]
    return sorted((e.involved_object.kind, e.involved_object.name, e.type, e.message)
                  for e in cp.client.list(Event, None).items if e.reason == reason)


def test_pods_on_a_timed_out_node_become_not_ready_with_an_event() -> None:
    cp = sim_cluster(2, controllers=ALL)
    cp.apply(on("a", "node-0"))
    cp.apply(on("b", "node-0"))
    cp.apply(on("c", "node-1"))
    cp.advance(5)
    before = condition(get_pod(cp, "a"), "Ready")
    assert before.status == "True"
    stop_kubelet(cp, "node-0")
    cp.advance(50)
    for name in ("a", "b"):
        ready = condition(get_pod(cp, name), "Ready")
        assert ready.status == "False"
        assert (ready.reason, ready.message) == (before.reason, before.message)  # kept, as upstream
        assert ready.last_transition_time == cp.clock.to_datetime(50.0)
        assert condition(get_pod(cp, name), "ContainersReady").status == "True"  # untouched
    assert condition(get_pod(cp, "c"), "Ready").status == "True"
    assert events(cp, "NodeNotReady") == [
        ("Node", "node-0", "Normal", "Node node-0 status is now: NodeNotReady"),
        ("Pod", "a", "Warning", "Node is not ready"),
        ("Pod", "b", "Warning", "Node is not ready"),
    ]
    cp.advance(100)  # the node stays Unknown: nothing is marked again
    assert len(events(cp, "NodeNotReady")) == 3
    start_kubelet(cp, "node-0")  # the kubelet writes its own Ready again (status manager reconcile)
    assert [condition(get_pod(cp, n), "Ready").status for n in ("a", "b")] == ["True", "True"]


def test_a_node_already_not_ready_is_not_marked_again() -> None:
    cp = sim_cluster(1, controllers=ALL)
    cp.apply(on("a", "node-0"))
    cp.advance(5)
    mark_node_not_ready(cp, "node-0")  # the kubelet itself posts Ready=False; upstream marks nothing
    stop_kubelet(cp, "node-0")
    cp.advance(60)
    assert events(cp, "NodeNotReady") == []


def test_not_ready_patch_only_for_a_ready_condition_not_false() -> None:
    cp = sim_cluster(1)
    cp.apply(on("a", "node-0"))
    pod = get_pod(cp, "a")
    patch = not_ready_patch(pod, "T")
    wanted = {"type": "Ready", "status": "False", "lastTransitionTime": "T"}
    assert patch == {"status": {"conditions": [wanted]}}
    pod = edit(pod)
    pod.status.conditions = [c for c in pod.status.conditions if c.type != "Ready"]
    assert not_ready_patch(pod, "T") is None
