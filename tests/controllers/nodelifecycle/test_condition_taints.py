"""TaintNodesByCondition: node-lifecycle keeps NoSchedule taints in step with node conditions and
spec.unschedulable (upstream node_lifecycle_controller.go ``doNoScheduleTaintingPass``,
``nodeConditionToTaintKeyStatusMap``), and the scheduler's TaintToleration filter then keeps pods off."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from kubelet.cluster import condition, get_pod, pod_yaml, sim_cluster

from kbatch.api.core_v1 import Event, Node
from kbatch.controllers.nodelifecycle.taints import (
    CONDITION_TAINT_KEYS,
    DISK_PRESSURE,
    MEMORY_PRESSURE,
    NETWORK_UNAVAILABLE,
    NOT_READY,
    PID_PRESSURE,
    UNREACHABLE,
    UNSCHEDULABLE,
    no_schedule_taints,
)
from kbatch.controllers.scheduler.types import Taint
from kbatch.sim import delete_node, set_node_condition

ALL = "scheduler,kubelet,node-lifecycle,taint-eviction-controller"
OWNED = {UNSCHEDULABLE, *(key for by_status in CONDITION_TAINT_KEYS.values() for key in by_status.values())}


@pytest.mark.parametrize(("type_", "status", "key"), [
    ("Ready", "False", NOT_READY), ("Ready", "Unknown", UNREACHABLE),
    ("MemoryPressure", "True", MEMORY_PRESSURE), ("DiskPressure", "True", DISK_PRESSURE),
    ("NetworkUnavailable", "True", NETWORK_UNAVAILABLE), ("PIDPressure", "True", PID_PRESSURE),
])
def test_each_condition_calls_for_its_no_schedule_taint(type_: str, status: str, key: str) -> None:
    assert no_schedule_taints([], [(type_, status)], False, 7.0) == [Taint(key, "NoSchedule", "", 7.0)]


@pytest.mark.parametrize("conditions", [
    [("Ready", "True")], [("MemoryPressure", "False")], [("MemoryPressure", "Unknown")],
    [("DiskPressure", "Unknown")], [("NetworkUnavailable", "False")], [("PIDPressure", "Unknown")],
    [("Example", "True")],
])
def test_healthy_or_unknown_pressure_calls_for_nothing(conditions: list[tuple[str, str]]) -> None:
    # the health monitor sets pressure conditions Unknown on a silent node: only Ready's taint follows
    assert no_schedule_taints([], conditions, False, 0.0) == []


def test_unschedulable_and_removal_leave_other_taints_where_they_are() -> None:
    user = Taint("example.com/gpu", "NoSchedule", "a100")
    execute = Taint(NOT_READY, "NoExecute", "", 3.0)  # the NoExecute pass's, not this one's
    prefer = Taint(MEMORY_PRESSURE, "PreferNoSchedule")  # same key, other effect: not the controller's
    old = Taint(DISK_PRESSURE, "NoSchedule", "", 1.0)
    current = [old, user, execute, prefer]
    got = no_schedule_taints(current, [("Ready", "False"), ("MemoryPressure", "True")], True, 9.0)
    assert got == [user, execute, prefer, Taint(NOT_READY, "NoSchedule", "", 9.0),
                   Taint(MEMORY_PRESSURE, "NoSchedule", "", 9.0), Taint(UNSCHEDULABLE, "NoSchedule", "", 9.0)]
    assert no_schedule_taints(got, [("Ready", "True")], False, 10.0) == [user, execute, prefer]


_keys = st.sampled_from([*sorted(OWNED), "example.com/a", "example.com/b"])
_taints = st.builds(Taint, _keys, st.sampled_from(["NoSchedule", "PreferNoSchedule", "NoExecute"]),
                    st.sampled_from(["", "v"]), st.one_of(st.none(), st.floats(0, 100)))
_conditions = st.lists(st.tuples(st.sampled_from([*CONDITION_TAINT_KEYS, "Example"]),
                                 st.sampled_from(["True", "False", "Unknown"])), max_size=6)


@given(st.lists(_taints, max_size=6), _conditions, st.booleans())
def test_the_pass_owns_exactly_the_condition_no_schedule_taints(current: list[Taint],
                                                                 conditions: list[tuple[str, str]],
                                                                 unschedulable: bool) -> None:
    got = no_schedule_taints(current, conditions, unschedulable, 50.0)
    wanted = {CONDITION_TAINT_KEYS[t][s] for t, s in conditions if s in CONDITION_TAINT_KEYS.get(t, {})}
    wanted |= {UNSCHEDULABLE} if unschedulable else set()

    def owned(t: Taint) -> bool:
        return t.effect == "NoSchedule" and t.key in OWNED

    assert {t.key for t in got if owned(t)} == wanted
    assert [t for t in got if not owned(t)] == [t for t in current if not owned(t)]  # untouched, in order
    assert all(owned(t) and (t.value, t.time_added) == ("", 50.0) for t in got if t not in current)
    assert no_schedule_taints(got, conditions, unschedulable, 60.0) == got  # a fixed point: no churn


def _taints_of(cp, node: str = "node-0") -> set[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return {(t.key, t.effect) for t in cp.client.get(Node, node).spec.taints or ()}


def test_a_memory_pressure_node_repels_pods_that_do_not_tolerate_it() -> None:
    cp = sim_cluster(1, controllers=ALL)
    set_node_condition(cp, "node-0", "MemoryPressure", reason="KubeletHasInsufficientMemory",
                       message="kubelet has insufficient memory available")
    node = cp.client.get(Node, "node-0")
    taint = next(t for t in node.spec.taints if t.key == MEMORY_PRESSURE)
    assert (taint.effect, taint.time_added) == ("NoSchedule", cp.now())
    cp.apply(pod_yaml("plain", "sleep 100"))
    tolerate = ("\n  tolerations: [{key: node.kubernetes.io/memory-pressure, operator: Exists, "
                "effect: NoSchedule}]")
    cp.apply(pod_yaml("tolerant", "sleep 100", extra_spec=tolerate))
    cp.advance(1)
    assert get_pod(cp, "tolerant").spec.node_name == "node-0"
    plain = get_pod(cp, "plain")
    assert plain.spec.node_name is None
    scheduled = condition(plain, "PodScheduled")
    # the message names no taint since kubernetes#134740 (1.35): "node(s) had untolerated taint(s)"
    assert scheduled.status == "False" and "1 node(s) had untolerated taint(s)" in scheduled.message
    set_node_condition(cp, "node-0", "MemoryPressure", "False", reason="KubeletHasSufficientMemory")
    assert _taints_of(cp) == set()
    cp.advance(10)  # the node update moves the pod out of the unschedulable queue
    assert get_pod(cp, "plain").spec.node_name == "node-0"


def test_cordoning_adds_the_unschedulable_taint_and_uncordoning_removes_it() -> None:
    cp = sim_cluster(1, controllers=ALL)
    cp.client.patch(Node, "node-0", {"spec": {"unschedulable": True}})
    cp.run_until_idle()
    assert _taints_of(cp) == {(UNSCHEDULABLE, "NoSchedule")}
    cp.apply(pod_yaml("p", "sleep 100"))
    cp.advance(1)
    assert "1 node(s) were unschedulable" in condition(get_pod(cp, "p"), "PodScheduled").message
    cp.client.patch(Node, "node-0", {"spec": {"unschedulable": None}})
    cp.run_until_idle()
    assert _taints_of(cp) == set()
    cp.advance(5)
    assert get_pod(cp, "p").spec.node_name == "node-0"


def _node_events(cp) -> list[tuple[str, str, str | None, str]]:  # type: ignore[no-untyped-def]
    return sorted((e.reason, e.involved_object.name, e.involved_object.uid, e.message)
                  for e in cp.client.list(Event, None).items
                  if e.reason in ("RegisteredNode", "RemovingNode"))


def test_registered_and_removing_node_events() -> None:
    cp = sim_cluster(2, controllers=ALL)
    uid = cp.client.get(Node, "node-1").metadata.uid
    set_node_condition(cp, "node-1", "DiskPressure")  # updates are not a first sighting
    cp.advance(30)
    delete_node(cp, "node-1")
    events = [e for e in cp.client.list(Event, None).items if e.reason == "RemovingNode"]
    assert [(e.type, e.source.component, e.involved_object.kind) for e in events] == [
        ("Normal", "node-controller", "Node")]
    assert _node_events(cp) == [
        ("RegisteredNode", "node-0", cp.client.get(Node, "node-0").metadata.uid,
         "Node node-0 event: Registered Node node-0 in Controller"),
        ("RegisteredNode", "node-1", uid, "Node node-1 event: Registered Node node-1 in Controller"),
        ("RemovingNode", "node-1", uid, "Node node-1 event: Removing Node node-1 from Controller"),
    ]
