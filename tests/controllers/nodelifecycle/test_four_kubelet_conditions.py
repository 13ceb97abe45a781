"""The four kubelet conditions a simulated node carries (KWOK node-initialize; upstream
pkg/kubelet/nodestatus/setters.go) through a kubelet stop and start: the node lifecycle controller
(node_lifecycle_controller.go tryUpdateNodeHealth) marks each Unknown after the grace period; the
restarted kubelet posts each healthy again. NetworkUnavailable is not the kubelet's: untouched."""

from __future__ import annotations

from kubelet.cluster import sim_cluster

from kbatch.api.core_v1 import Event, Node
from kbatch.controllers.kubelet.nodestatus import HEALTHY
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import start_kubelet, stop_kubelet

ALL = "scheduler,kubelet,node-lifecycle"
KUBELET = ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure")
ROUTE = ("NetworkUnavailable", "False", "RouteCreated", "RouteController created a route")


def conditions(cp: ControlPlane, node: str = "node-0") -> dict[str, tuple[str, str, str]]:
    return {c.type: (c.status, c.reason, c.message) for c in cp.client.get(Node, node).status.conditions}


def times(cp: ControlPlane, type_: str, node: str = "node-0") -> tuple[float, float]:
    """(lastHeartbeatTime, lastTransitionTime) as virtual seconds."""
    cond = next(c for c in cp.client.get(Node, node).status.conditions if c.type == type_)
    start = cp.clock.to_datetime(0)
    return ((cond.last_heartbeat_time - start).total_seconds(),
            (cond.last_transition_time - start).total_seconds())


def test_a_new_node_carries_the_kubelet_conditions_and_kwoks_network_condition() -> None:
    cp = sim_cluster(1, controllers=ALL)
    assert conditions(cp) == {**{t: HEALTHY[t][1:] for t in KUBELET}, ROUTE[0]: ROUTE[1:]}
    assert {times(cp, t) for t in (*KUBELET, ROUTE[0])} == {(0.0, 0.0)}


def test_a_running_kubelet_posts_nothing_until_its_first_report() -> None:
    """The node's condition order (KWOK's, Ready first) differs from the kubelet's: no post for that."""
    cp = sim_cluster(1, controllers=ALL)
    version = cp.client.get(Node, "node-0").metadata.resource_version
    cp.advance(140)  # the first report comes at 300 s +- 150 s
    assert cp.client.get(Node, "node-0").metadata.resource_version == version


def test_stopped_kubelet_all_four_unknown_then_healthy_again_on_start() -> None:
    cp = sim_cluster(2, controllers=ALL)
    cp.advance(5)
    stop_kubelet(cp, "node-0")  # last Lease renewal at 0, last status at 0
    cp.advance(44.5)
    assert conditions(cp)["Ready"][0] == "True"
    cp.advance(1)  # 50.5 s: past node-monitor-grace-period (50 s)
    now = conditions(cp)
    assert {t: now[t] for t in KUBELET} == dict.fromkeys(
        KUBELET, ("Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status."))
    assert now[ROUTE[0]] == ROUTE[1:]
    assert {times(cp, t) for t in KUBELET} == {(0.0, 50.0)}  # heartbeat kept, transition at the mark
    assert all(s[0] != "Unknown" for s in conditions(cp, "node-1").values())
    cp.advance(99.5)
    start_kubelet(cp, "node-0")
    started = cp.clock.now()  # 150 s (condition times have whole seconds)
    assert conditions(cp) == {**{t: HEALTHY[t][1:] for t in KUBELET}, ROUTE[0]: ROUTE[1:]}
    assert {times(cp, t) for t in KUBELET} == {(started, started)}
    assert times(cp, ROUTE[0]) == (0.0, 0.0)
    reasons = sorted(e.reason for e in cp.client.list(Event, "default").items
                     if e.involved_object.name == "node-0" and e.source.component == "kubelet")
    assert reasons == ["NodeHasNoDiskPressure", "NodeHasSufficientMemory", "NodeHasSufficientPID",
                       "NodeReady"]
