"""node-lifecycle acts on node health only in its ``monitorNodeHealth`` pass, every 5 s.

Upstream (kubernetes ``pkg/controller/nodelifecycle/node_lifecycle_controller.go``, v1.37): ``Run``
starts ``wait.UntilWithContext(ctx, monitorNodeHealth, nodeMonitorPeriod)`` (``--node-monitor-period``
5 s), and only that pass observes heartbeats (``tryUpdateNodeHealth``: the probe time is the pass's
clock), times nodes out after ``--node-monitor-grace-period`` (50 s), queues or swaps the NoExecute
taints (``processTaintBaseEviction``) and registers or removes nodes (``classifyNodes``,
``RegisteredNode``/``RemovingNode`` events). Node events go to the node update worker, which only
reconciles the ``NoSchedule`` condition taints (``doNoScheduleTaintingPass``) and labels.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.coordination_v1 import NODE_LEASE_NAMESPACE, Lease
from kbatch.api.core_v1 import Event, Node
from kbatch.controllers.nodelifecycle import NOT_READY
from kbatch.controllers.nodelifecycle.health import monitor_tick
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import NodeTemplate, create_nodes, mark_node_not_ready


def _taints(cp: ControlPlane, node: str) -> dict[tuple[str, str], float]:
    out = {}
    for t in cp.client.get(Node, node).spec.taints or ():
        out[(t.key, t.effect)] = (t.time_added - cp.clock.to_datetime(0)).total_seconds()
    return out


def _ready(cp: ControlPlane, node: str) -> str:
    return next(c.status for c in cp.client.get(Node, node).status.conditions if c.type == "Ready")


def _registered(cp: ControlPlane) -> list[str]:
    return sorted(e.involved_object.name for e in cp.client.list(Event, "default").items
                  if e.reason == "RegisteredNode")


def test_the_pass_grid_starts_at_the_controller_start() -> None:
    assert [monitor_tick(0.0, 5.0, t) for t in (0.0, 0.1, 4.9999, 5.0, 5.0000000001, 7.5)] == [
        0.0, 5.0, 5.0, 5.0, 5.0, 10.0]
    assert monitor_tick(2.0, 5.0, 12.5) == 17.0


@given(st.floats(0, 1000), st.floats(0.5, 60), st.floats(0, 100_000))
def test_the_pass_is_the_first_grid_instant_not_before_now(started: float, period: float, now: float) -> None:
    tick = monitor_tick(started, period, now)
    passes = (tick - started) / period
    assert abs(passes - round(passes)) < 1e-6  # on the grid
    assert tick >= now - 1e-6 or tick == started  # not before now (or the first pass, for an early now)
    assert tick - period < max(now, started) + 1e-6  # and the first such instant


def test_a_not_ready_node_gets_its_no_execute_taint_at_the_next_pass() -> None:
    cp = ControlPlane(seed=0, controllers="node-lifecycle")
    create_nodes(cp, 3, NodeTemplate())
    cp.advance(6)
    mark_node_not_ready(cp, "node-0")
    assert _taints(cp, "node-0") == {(NOT_READY, "NoSchedule"): 6.0}  # the node update worker: now
    cp.advance(3.9)
    assert (NOT_READY, "NoExecute") not in _taints(cp, "node-0")
    cp.advance(0.1)
    assert _taints(cp, "node-0")[(NOT_READY, "NoExecute")] == 10.0


def test_a_new_node_is_registered_at_the_next_pass() -> None:
    cp = ControlPlane(seed=0, controllers="node-lifecycle")
    cp.advance(2)
    create_nodes(cp, 1, NodeTemplate())
    cp.run_until_idle()
    assert _registered(cp) == []
    cp.advance(3)
    assert _registered(cp) == ["node-0"]


def test_a_heartbeat_is_timed_from_the_pass_that_observes_it() -> None:
    """A Lease renewed at 12 s is observed by the pass at 15 s: the node goes Unknown at 65 s, not 62 s."""
    cp = ControlPlane(seed=0, controllers="node-lifecycle")
    create_nodes(cp, 1, NodeTemplate())
    cp.client.create(Lease.model_validate({
        "metadata": {"name": "node-0", "namespace": NODE_LEASE_NAMESPACE},
        "spec": {"holderIdentity": "node-0", "leaseDurationSeconds": 40,
                 "renewTime": cp.clock.now_datetime().isoformat()}}))
    cp.advance(12)
    cp.client.patch(Lease, "node-0", {"spec": {"renewTime": cp.clock.now_datetime().isoformat()}},
                    NODE_LEASE_NAMESPACE)
    cp.advance(64.9 - 12)
    assert _ready(cp, "node-0") == "True"
    cp.advance(0.1)
    assert _ready(cp, "node-0") == "Unknown"
