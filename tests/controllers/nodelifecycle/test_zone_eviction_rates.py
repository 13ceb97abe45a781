"""Rate-limited NoExecute tainting per zone (upstream pkg/controller/nodelifecycle/
node_lifecycle_controller.go handleDisruption / ComputeZoneState / doNoExecuteTaintingPass,
scheduler/rate_limited_queue.go, and the docs page "Nodes" -> "Rate limits on eviction")."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kubelet.cluster import get_pod, pod_yaml, sim_cluster

from kbatch.api.core_v1 import Node
from kbatch.controllers.nodelifecycle import NOT_READY, UNREACHABLE
from kbatch.controllers.nodelifecycle.health import NODE_MONITOR_PERIOD, monitor_tick
from kbatch.controllers.nodelifecycle.ratelimit import TaintQueue, TokenBucket
from kbatch.controllers.nodelifecycle.zones import (
    FULL,
    INITIAL,
    NORMAL,
    PARTIAL,
    EvictionConfig,
    handle_disruption,
    zone_key,
    zone_rate,
    zone_state,
)
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import (
    NodeTemplate,
    create_nodes,
    delete_node,
    mark_node_not_ready,
    mark_node_ready,
    start_kubelet,
    stop_kubelet,
)

ZONE = "topology.kubernetes.io/zone"
CONFIG = EvictionConfig()


def cluster(zones: dict[str, int], *, controllers: str = "node-lifecycle", **options: Any) -> ControlPlane:
    """Nodes ``<zone>-<i>`` labelled with their zone; no kubelet (no heartbeats, no timeouts)."""
    cp = ControlPlane(seed=0, controllers=controllers, options={"node-lifecycle": options})
    for zone, count in zones.items():
        create_nodes(cp, count, NodeTemplate(labels={ZONE: zone}), prefix=f"{zone}-")
    cp.run_until_idle()
    return cp


def no_execute(cp: ControlPlane) -> dict[str, tuple[str, float]]:
    """node -> (condition taint key, seconds when added) for nodes with a NoExecute condition taint."""
    out = {}
    for node in cp.client.list(Node).items:
        for t in node.spec.taints or ():
            if t.effect == "NoExecute" and t.key in (NOT_READY, UNREACHABLE):
                out[node.metadata.name] = (t.key, (t.time_added - cp.clock.to_datetime(0)).total_seconds())
    return out


class TaintLog:
    """Every NoExecute condition taint ever added, as (node, seconds), from the Node watch."""

    def __init__(self, cp: ControlPlane) -> None:
        self.cp, self.watch, self.seen = cp, cp.client.watch(Node), set()

    def added(self) -> list[tuple[str, float]]:
        for event in self.watch.poll():
            for t in event.object.spec.taints or ():
                if t.effect == "NoExecute" and t.key in (NOT_READY, UNREACHABLE):
                    at = (t.time_added - self.cp.clock.to_datetime(0)).total_seconds()
                    self.seen.add((event.object.metadata.name, at))
        return sorted(self.seen, key=lambda x: (x[1], x[0]))


# -- pure decisions -----------------------------------------------------------------------------------

def test_zone_key_joins_region_and_zone_with_the_beta_labels_first() -> None:
    assert zone_key({}) == "" and zone_key({"other": "x"}) == ""
    assert zone_key({"topology.kubernetes.io/region": "r", ZONE: "a"}) == "r:\x00:a"
    assert zone_key({ZONE: "a", "failure-domain.beta.kubernetes.io/zone": "b"}) == ":\x00:b"


@pytest.mark.parametrize(("ready", "not_ready", "state"), [
    (0, 1, FULL), (0, 0, NORMAL), (10, 2, NORMAL),  # at most two not-ready nodes: never partial
    (2, 3, PARTIAL),  # 3/5 = 0.6 >= 0.55
    (3, 3, NORMAL),  # 0.5 < 0.55
    (45, 55, PARTIAL), (46, 54, NORMAL)])
def test_compute_zone_state(ready: int, not_ready: int, state: str) -> None:
    assert zone_state(ready, not_ready, 0.55) == state


def test_zone_rates_follow_the_state_and_the_zone_size() -> None:
    assert zone_rate(NORMAL, 3, CONFIG) == 0.1 and zone_rate(FULL, 3, CONFIG) == 0.1  # HealthyQPSFunc
    assert zone_rate(PARTIAL, 50, CONFIG) == 0.0  # ReducedQPSFunc: <= largeClusterThreshold stops
    assert zone_rate(PARTIAL, 51, CONFIG) == 0.01


def test_handle_disruption_enters_and_leaves_master_disruption_mode() -> None:
    first = handle_disruption({}, {"a": (3, 0), "b": (0, 2)}, CONFIG)
    assert first.states == {"a": NORMAL, "b": FULL} and first.rates == {"a": 0.1, "b": 0.1}
    assert not first.enter_full and not first.exit_full
    down = handle_disruption(first.states, {"a": (0, 3), "b": (0, 2)}, CONFIG)
    assert down.enter_full and down.states == {"a": FULL, "b": FULL} and down.rates == {"a": 0.0, "b": 0.0}
    still = handle_disruption(down.states, {"a": (0, 3), "b": (0, 2)}, CONFIG)
    assert still.rates == {} and not still.enter_full
    up = handle_disruption(down.states, {"a": (1, 2), "b": (0, 2)}, CONFIG)
    assert up.exit_full and up.states == {"a": NORMAL, "b": FULL} and up.rates == {"a": 0.1, "b": 0.1}
    gone = handle_disruption(up.states, {"a": (3, 0)}, CONFIG)
    assert gone.states == {"a": NORMAL} and gone.rates == {}


def test_a_new_zone_starts_initial_so_a_fully_down_cluster_at_start_enters_master_mode() -> None:
    assert handle_disruption({}, {"a": (0, 1)}, CONFIG).enter_full
    assert handle_disruption({}, {}, CONFIG).states == {}
    assert handle_disruption({"z": INITIAL}, {"z": (1, 0)}, CONFIG).states == {"z": NORMAL}


def test_swap_limiter_drains_the_new_bucket_when_the_old_one_is_empty() -> None:
    granted, bucket = TokenBucket(0.1).try_accept(0.0)
    assert granted and bucket.ready_at(0.0) == pytest.approx(10.0)
    slower = bucket.swap(0.01, 5.0)
    assert slower.ready_at(5.0) == pytest.approx(105.0)
    assert TokenBucket(0.1).swap(0.01, 5.0).ready_at(5.0) == 5.0  # the old one had its token
    never = bucket.swap(0.0, 5.0)
    assert never.ready_at(1e9) is None and never.swap(0.1, 7.0).ready_at(7.0) == pytest.approx(17.0)
    assert bucket.swap(0.1, 6.0) is bucket  # same rate: kept


def test_taint_queue_spends_a_token_per_visited_node_and_remembers_processed_ones() -> None:
    queue, done = TaintQueue(0.1), []
    assert queue.add("a", 0.0) and queue.add("b", 0.0) and not queue.add("a", 1.0)
    queue.try_(0.0, lambda n: (done.append(n), (True, 0.0))[1])
    assert done == ["a"] and queue.wake_at(0.0) == pytest.approx(10.0)
    assert not queue.add("a", 1.0)  # processed, still known: not queued twice
    assert queue.remove("a") and queue.add("a", 2.0)
    queue.try_(10.0, lambda n: (done.append(n), (True, 0.0))[1])
    assert done == ["a", "b"]  # b was queued first
    assert queue.wake_at(10.0) == pytest.approx(20.0)


def test_eviction_options_come_from_the_controller_options() -> None:
    config = EvictionConfig.from_options({"node_eviction_rate": "0.5", "large_cluster_size_threshold": 3,
                                          "node_monitor_grace_period": 40})
    assert config.node_eviction_rate == 0.5 and config.large_cluster_size_threshold == 3
    with pytest.raises(ValueError, match="node_eviction_rate"):
        EvictionConfig.from_options({"node_eviction_rate": -1})


# -- the controller ------------------------------------------------------------------------------------

def test_healthy_zone_taints_one_node_per_ten_seconds() -> None:
    """Docs "Rate limits on eviction": --node-eviction-rate 0.1, one node every 10 s per zone."""
    cp = cluster({"a": 10, "b": 10})
    for name in ("a-3", "a-1", "b-0"):
        mark_node_not_ready(cp, name)
    assert no_execute(cp) == {"a-3": (NOT_READY, 0.0), "b-0": (NOT_READY, 0.0)}
    assert {(t.key, t.effect) for t in cp.client.get(Node, "a-1").spec.taints} == {(NOT_READY, "NoSchedule")}
    cp.advance(9.9)
    assert "a-1" not in no_execute(cp)
    cp.advance(0.1)
    assert no_execute(cp)["a-1"] == (NOT_READY, 10.0)


def test_small_partially_disrupted_zone_stops_tainting_until_it_recovers() -> None:
    """ReducedQPSFunc: a zone of <= 50 nodes in PartialDisruption gets rate 0; Normal again, 0.1/s."""
    cp = cluster({"a": 5, "b": 5})
    for name in ("a-0", "a-1", "a-2"):  # a-0 is tainted at once (Normal), then 3/5 are not ready
        mark_node_not_ready(cp, name)
    cp.advance(500)
    assert no_execute(cp) == {"a-0": (NOT_READY, 0.0)}  # taints already added stay
    mark_node_ready(cp, "a-2")  # 2/5: Normal; the never-limiter had no token, so the new one starts empty
    cp.advance(9)
    assert sorted(no_execute(cp)) == ["a-0"]
    cp.advance(1)
    assert no_execute(cp)["a-1"] == (NOT_READY, 510.0)


def test_large_partially_disrupted_zone_uses_the_secondary_rate() -> None:
    cp = cluster({"a": 60, "b": 2})
    for i in range(34):  # 34/60 = 0.57 >= 0.55, zone of 60 > 50: 0.01 nodes/s
        mark_node_not_ready(cp, f"a-{i}")
    log = TaintLog(cp)
    cp.advance(250)
    assert [at for _, at in log.added()] == [0.0, 100.0, 200.0]


def test_options_change_the_rates() -> None:
    cp = cluster({"a": 10}, node_eviction_rate=1.0)
    for name in ("a-0", "a-1"):
        mark_node_not_ready(cp, name)
    cp.advance(1)
    assert sorted(at for _, at in no_execute(cp).values()) == [0.0, 1.0]


def test_a_fully_disrupted_zone_keeps_the_normal_rate_while_another_zone_is_healthy() -> None:
    """handleDisruption: a fullDisruption zone gets HealthyQPSFunc unless all zones are down."""
    cp = cluster({"a": 3, "b": 1})
    for name in ("a-0", "a-1", "a-2"):
        mark_node_not_ready(cp, name)
    cp.advance(20)
    assert sorted(at for _, at in no_execute(cp).values()) == [0.0, 10.0, 20.0]


def test_all_zones_down_removes_the_eviction_taints_and_pods_stay() -> None:
    """Master disruption mode: the controller untaints every node and stops evictions; when a zone
    recovers, tainting resumes at each zone's rate."""
    cp = cluster({"a": 2, "b": 2}, controllers="node-lifecycle,taint-eviction-controller,scheduler")
    cp.apply(pod_yaml("p", "sleep 1000").replace("spec:\n", "spec:\n  nodeName: a-0\n"))
    mark_node_not_ready(cp, "a-0")
    assert no_execute(cp) == {"a-0": (NOT_READY, 0.0)}
    cp.advance(5)
    for name in ("a-1", "b-0", "b-1"):
        mark_node_not_ready(cp, name)
    assert no_execute(cp) == {}  # all zones FullDisruption: a-0's taint is gone too
    cp.advance(1000)
    assert no_execute(cp) == {} and get_pod(cp, "p").metadata.deletion_timestamp is None
    mark_node_ready(cp, "b-1")  # zone b Normal (1 of 2 ready), zone a FullDisruption: both at 0.1/s
    cp.advance(10)
    assert sorted(no_execute(cp)) == ["a-0", "b-0"]
    cp.advance(10)
    assert sorted(no_execute(cp)) == ["a-0", "a-1", "b-0"]


def test_excluded_nodes_do_not_count_for_the_zone_state() -> None:
    cp = cluster({"a": 2})
    cp.client.patch(Node, "a-1", {"metadata": {"labels": {"node.kubernetes.io/exclude-disruption": ""}}})
    mark_node_not_ready(cp, "a-0")  # the only counted node: zone a is fully disrupted, so is the cluster
    cp.advance(30)
    assert no_execute(cp) == {}
    mark_node_not_ready(cp, "a-1")
    cp.advance(30)
    assert no_execute(cp) == {}  # an excluded node is tainted through the queue, but the rate is 0


def test_a_node_that_recovers_while_queued_is_not_tainted() -> None:
    cp = cluster({"a": 6})
    mark_node_not_ready(cp, "a-0")
    mark_node_not_ready(cp, "a-1")  # waits for the token at 10 s
    cp.advance(5)
    mark_node_ready(cp, "a-1")
    cp.advance(100)
    assert sorted(no_execute(cp)) == ["a-0"]


def test_not_ready_to_unreachable_swaps_the_taint_at_once() -> None:
    """processTaintBaseEviction: an existing opposite taint is swapped without the rate limiter, in
    the next monitorNodeHealth pass (every 5 s); the NoSchedule taint follows the condition at once."""
    cp = cluster({"a": 6})
    mark_node_not_ready(cp, "a-0")
    mark_node_not_ready(cp, "a-1")
    cp.advance(1)
    mark_node_not_ready(cp, "a-0", unknown=True)
    assert no_execute(cp) == {"a-0": (NOT_READY, 0.0)}
    assert (UNREACHABLE, "NoSchedule") in {(t.key, t.effect) for t in cp.client.get(Node, "a-0").spec.taints}
    cp.advance(4)
    assert no_execute(cp) == {"a-0": (UNREACHABLE, 5.0)}
    taints = {(t.key, t.effect) for t in cp.client.get(Node, "a-0").spec.taints}
    assert taints == {(UNREACHABLE, "NoSchedule"), (UNREACHABLE, "NoExecute")}


def test_a_deleted_node_leaves_the_zone_counts() -> None:
    cp = cluster({"a": 3})
    for name in ("a-0", "a-1"):
        mark_node_not_ready(cp, name)
    delete_node(cp, "a-2")  # no Ready node left: the cluster is fully disrupted
    cp.advance(30)
    assert no_execute(cp) == {}


# -- properties ------------------------------------------------------------------------------------------

failures = st.lists(st.tuples(st.integers(0, 7), st.floats(0, 60), st.booleans()), min_size=1, max_size=12)


def run_scenario(events: list[tuple[int, float, bool]], rate: float = 0.1) -> tuple[list[Any], ControlPlane]:
    """Nodes z0-0..3 and z1-0..3; each event marks node i not ready (or ready) at its time."""
    cp = cluster({"z0": 4, "z1": 4}, node_eviction_rate=rate)
    log = TaintLog(cp)
    for index, at, fail in sorted(events, key=lambda e: e[1]):
        cp.advance(max(0.0, at - cp.clock.now()))
        name = f"z{index // 4}-{index % 4}"
        (mark_node_not_ready if fail else mark_node_ready)(cp, name)
    cp.advance(300)
    return log.added(), cp


@settings(max_examples=25, deadline=None)
@given(failures, st.sampled_from([0.1, 0.25, 1.0]))
def test_no_zone_is_tainted_faster_than_its_rate(events: list[tuple[int, float, bool]], rate: float) -> None:
    added, _ = run_scenario(events, rate)
    for zone in ("z0", "z1"):
        times = [at for name, at in added if name.startswith(zone)]
        assert all(b - a >= 1 / rate - 1e-6 for a, b in itertools.pairwise(times)), (zone, times)


@settings(max_examples=25, deadline=None)
@given(failures)
def test_a_fully_disrupted_cluster_gets_no_new_eviction_taints(events: list[tuple[int, float, bool]]) -> None:
    _, cp = run_scenario(events)
    down_at = cp.clock.now()
    for i in range(8):
        mark_node_not_ready(cp, f"z{i // 4}-{i % 4}")
    log = TaintLog(cp)
    cp.advance(1000)
    assert no_execute(cp) == {}
    assert all(at <= down_at for _, at in log.added())


@settings(max_examples=25, deadline=None)
@given(st.floats(0.01, 2.0), st.floats(0, 30), st.integers(0, 3))
def test_a_healthy_zones_failed_node_is_tainted_within_one_over_the_rate(rate: float, later: float,
                                                                          other: int) -> None:
    cp = cluster({"z": 6}, node_eviction_rate=rate)
    mark_node_not_ready(cp, f"z-{other}")  # takes the zone's token at 0
    cp.advance(later)
    mark_node_not_ready(cp, "z-5")
    seen = monitor_tick(0.0, NODE_MONITOR_PERIOD, cp.clock.now())  # the next monitorNodeHealth pass queues it
    cp.advance(seen - cp.clock.now() + 1 / rate + 1e-6)
    assert "z-5" in no_execute(cp)
    assert no_execute(cp)["z-5"][1] <= seen + 1 / rate + 1e-6


@settings(max_examples=10, deadline=None)
@given(failures)
def test_taint_decisions_are_deterministic(events: list[tuple[int, float, bool]]) -> None:
    first, cp1 = run_scenario(events)
    second, cp2 = run_scenario(events)
    assert first == second and cp1.trace.digest() == cp2.trace.digest()


def test_a_cluster_whose_kubelets_all_go_silent_evicts_nothing() -> None:
    """Every node times out at the same instant: one zone pass sees the whole cluster down (master
    disruption mode), so no NoExecute taint is ever added and no pod is evicted; when one kubelet
    is back (seen by the next monitor pass) the others are tainted at the normal rate (upstream
    handleDisruption)."""
    cp = sim_cluster(3, controllers="scheduler,kubelet,node-lifecycle,taint-eviction-controller")
    for i in range(3):
        cp.apply(pod_yaml(f"p{i}", "sleep 100000").replace("spec:\n", f"spec:\n  nodeName: node-{i}\n"))
    cp.advance(1)
    log = TaintLog(cp)
    for i in range(3):
        stop_kubelet(cp, f"node-{i}")
    cp.advance(1000)
    assert log.added() == []
    assert all(get_pod(cp, f"p{i}").metadata.deletion_timestamp is None for i in range(3))
    start_kubelet(cp, "node-0")
    back = monitor_tick(0.0, NODE_MONITOR_PERIOD, cp.clock.now())  # the pass that sees it Ready
    cp.advance(30)
    assert [at - back for _, at in log.added()] == [10.0, 20.0]
