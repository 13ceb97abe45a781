"""The kubelet's node status updates (upstream pkg/kubelet/kubelet_node_status.go tryUpdateNodeStatus,
KEP-589): computed every nodeStatusUpdateFrequency, posted when changed or when
nodeStatusReportFrequency (+ a one-time jitter after a change or start) has passed."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Event, Node
from kbatch.controllers.kubelet.nodestatus import (
    HEALTHY,
    Reporting,
    frequencies,
    kubelet_view,
    report_due,
    status_items,
)
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import mark_node_not_ready, start_kubelet, stop_kubelet

from .cluster import sim_cluster

ALL = "scheduler,kubelet,node-lifecycle"


class NodeWrites:
    """Every status write to a node, as (time, Ready lastHeartbeatTime) pairs, from the watch."""

    def __init__(self, cp: ControlPlane, name: str = "node-0") -> None:
        self.cp, self.name, self.beats = cp, name, []
        self.last: Any = None
        cp.cache.informer_for(Node).add_event_handler(self)

    def _ready(self, node: Any) -> Any:
        return next((c for c in node.status.conditions or () if c.type == "Ready"), None)

    def on_add(self, obj: Any) -> None:
        return None

    def on_update(self, old: Any, new: Any) -> None:
        if new.metadata.name == self.name and self._ready(new) is not None:
            beat = self._ready(new).last_heartbeat_time
            if beat != (self._ready(old).last_heartbeat_time if self._ready(old) else None):
                self.beats.append(self.cp.clock.now())

    def on_delete(self, obj: Any) -> None:
        return None


def ready(cp: ControlPlane, node: str = "node-0") -> Any:
    return next(c for c in cp.client.get(Node, node).status.conditions if c.type == "Ready")


def test_report_comes_every_report_frequency_after_a_jittered_first_one() -> None:
    cp = sim_cluster(1, controllers=ALL)
    writes = NodeWrites(cp)
    cp.advance(3600)
    first, rest = writes.beats[0], writes.beats[1:]
    assert 150 <= first <= 450 and first % 10 == 0  # 300 s +- 150 s, on a 10 s status-update tick
    assert [b - a for a, b in zip(writes.beats, rest, strict=False)] == [300.0] * len(rest)
    assert 11 <= len(writes.beats) <= 12  # first in [150, 450], then every 300 s up to 3600
    beat = ready(cp)
    assert beat.status == "True" and beat.last_heartbeat_time == cp.clock.to_datetime(writes.beats[-1])
    assert beat.last_transition_time == cp.clock.to_datetime(0)  # no status change: no transition
    assert not cp.timers.has_pending_work()  # housekeeping: an idle cluster stays idle


def test_report_is_deterministic_per_seed_and_spread_over_nodes() -> None:
    def firsts(seed: int) -> list[float]:
        cp = sim_cluster(6, controllers=ALL, seed=seed)
        cp.advance(460)
        return [ready(cp, f"node-{i}").last_heartbeat_time for i in range(6)]
    assert firsts(3) == firsts(3)
    assert len(set(firsts(3))) > 1  # nodes do not all report at the same instant


def test_report_frequency_option_and_its_defaulting() -> None:
    assert frequencies({}) == (10.0, 300.0)
    assert frequencies({"node_status_update_frequency": 20}) == (20.0, 20.0)  # upstream's defaulting
    both = {"node_status_update_frequency": 20, "node_status_report_frequency": 60}
    assert frequencies(both) == (20.0, 60.0)
    with pytest.raises(ValueError):
        frequencies({"node_status_report_frequency": 0})
    cp = sim_cluster(1, controllers=ALL, options={"kubelet": {"node_status_report_frequency": 60}})
    writes = NodeWrites(cp)
    cp.advance(600)
    assert 30 <= writes.beats[0] <= 90
    assert {b - a for a, b in zip(writes.beats, writes.beats[1:], strict=False)} == {60.0}


def test_a_node_lifecycle_unknown_is_answered_at_the_next_status_update() -> None:
    """A running kubelet whose Lease renewals are too rare for the grace period (renew every 25 s,
    grace 18 s): the node lifecycle controller marks it Unknown in its first monitor pass past the grace
    (every 5 s: at 20 s), and the kubelet's next status update (30 s) sees its view differ and posts
    Ready=True at once (not 5 minutes later), with a NodeReady event."""
    cp = sim_cluster(1, controllers=ALL, options={
        "kubelet": {"node_lease_duration_seconds": 100}, "node-lifecycle": {"node_monitor_grace_period": 18}})
    cp.advance(29)
    assert (ready(cp).status, ready(cp).last_transition_time) == ("Unknown", cp.clock.to_datetime(20))
    cp.advance(1)  # the 10 s status-update tick after the mark
    cond = ready(cp)
    assert (cond.status, cond.reason) == ("True", "KubeletReady")
    assert cond.last_transition_time == cond.last_heartbeat_time == cp.clock.to_datetime(30)
    events = [e for e in cp.client.list(Event, "default").items if e.reason == "NodeReady"]
    assert [(e.message, e.source.component, e.source.host, e.involved_object.kind) for e in events] == [
        ("Node node-0 status is now: NodeReady", "kubelet", "node-0", "Node")]


def test_a_fault_set_not_ready_is_kept_and_reported() -> None:
    cp = sim_cluster(1, controllers=ALL)
    mark_node_not_ready(cp, "node-0")
    before = ready(cp)
    cp.advance(900)
    after = ready(cp)
    assert (after.status, after.reason, after.last_transition_time) == ("False", before.reason,
                                                                          before.last_transition_time)
    assert after.last_heartbeat_time > before.last_heartbeat_time  # reported, unchanged


def test_a_restarted_kubelet_posts_at_once_then_reports_on_its_clock() -> None:
    cp = sim_cluster(1, controllers=ALL)
    cp.advance(5)
    stop_kubelet(cp, "node-0")
    cp.advance(600)
    assert ready(cp).status == "Unknown"
    writes = NodeWrites(cp)
    start_kubelet(cp, "node-0")
    restarted = cp.clock.now()
    assert ready(cp).last_heartbeat_time == cp.clock.to_datetime(restarted)
    cp.advance(1200)
    gaps = [b - restarted for b in writes.beats]
    assert gaps[0] == 0 and 150 <= gaps[1] <= 460
    assert {b - a for a, b in zip(writes.beats[1:], writes.beats[2:], strict=False)} == {300.0}


def test_a_heartbeat_only_post_does_not_recheck_the_pods() -> None:
    from kbatch.controllers.kubelet.heartbeat import NodeRunChanged

    cp = sim_cluster(1, controllers=ALL)
    node = cp.client.get(Node, "node-0")
    later = node.model_copy(deep=True)
    later.status.conditions[0].last_heartbeat_time = cp.clock.to_datetime(300)
    predicate = NodeRunChanged()
    assert not predicate.update(node, later)
    later.status.conditions[0].status = "False"
    assert predicate.update(node, later)
    stopped = node.model_copy(deep=True)
    stopped.metadata.annotations = {"sim.kbatch.io/kubelet": "stopped"}
    assert predicate.update(node, stopped)


# -- the pure decisions ---------------------------------------------------------------------------------

conditions = st.lists(st.tuples(
    st.sampled_from(sorted(HEALTHY)), st.sampled_from(["True", "False", "Unknown"]),
    st.sampled_from(["KubeletReady", "KubeletNotReady", "NodeStatusUnknown", "NodeStatusNeverUpdated", "X"]),
    st.sampled_from(["", "m"])), unique_by=lambda v: v[0], max_size=4)


@settings(max_examples=200, deadline=None)
@given(conditions, st.booleans())
def test_view_and_patch_properties(current: list[tuple[str, str, str, str]], restarted: bool) -> None:
    view = kubelet_view(current, restarted)
    types = {v[0] for v in current}
    assert {v[0] for v in view} == (types | {"Ready"} if restarted else types)
    assert all(v[2] not in ("NodeStatusUnknown", "NodeStatusNeverUpdated") for v in view)
    if not restarted:  # the kubelet's own (or fault-set) conditions are kept as they are
        by_type = {v[0]: v for v in view}
        for v in current:
            controllers = v[2] in ("NodeStatusUnknown", "NodeStatusNeverUpdated")
            assert by_type[v[0]] == (HEALTHY[v[0]] if controllers else v)
    items = status_items(current, view, "T")
    have = {v[0]: v for v in current}
    for item, v in zip(items, view, strict=True):
        assert item["type"] == v[0] and item["lastHeartbeatTime"] == "T"
        old = have.get(v[0])
        assert ("lastTransitionTime" in item) == (old is None or old[1] != v[1])
        assert ("status" in item) == (old is None or old[1:] != v[1:])
    assert kubelet_view(view, False) == view  # the kubelet's view is a fixed point: no change twice


@settings(max_examples=100, deadline=None)
@given(st.floats(0, 1e5), st.floats(-150, 150), st.floats(0, 1e4))
def test_report_due_after_frequency_plus_delay(last: float, delay: float, elapsed: float) -> None:
    due = report_due(Reporting(0.0, last, delay), last + elapsed, 300.0)
    assert due == (elapsed >= 300.0 + delay - 1e-6)
