"""A CompositePodGroup tree in kube-scheduler's workload cycle (KEP-6012, gate CompositePodGroup;
upstream ``pkg/scheduler/schedule_one_podgroup.go`` ``compositePodGroupSchedulingDefaultAlgorithm``,
``completeCompositePodGroupAlgorithmResultMap``, GangScheduling's ``preEnqueueWithHierarchies`` and
``PlacementFeasible``, ``hierarchy_tracker.go``), with a hypothesis property: a composite gang is
all-or-nothing."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gang.builders import bound, gpu_cluster, gpu_pod, scheduled_message
from gang.composite_builders import COMPOSITE, child_group, composite, composite_condition, group_condition
from kbatch.api.core_v1 import Event
from kbatch.api.scheduling_v1alpha3 import CompositePodGroup


def _pods(group: str, count: int, gpus: int) -> list[dict[str, object]]:
    return [gpu_pod(f"{group}{i}", group=group, gpus=gpus) for i in range(count)]


def test_a_composite_gang_that_fits_binds_every_child() -> None:
    cp = gpu_cluster(2, gates=COMPOSITE)
    cp.apply([composite("root", 2), child_group("a", 2, "root"), child_group("b", 2, "root")])
    cp.apply(_pods("a", 2, 4) + _pods("b", 2, 4))
    assert bound(cp, ["a0", "a1", "b0", "b1"]) == ["a0", "a1", "b0", "b1"]
    assert composite_condition(cp, "root") == ("True", "Scheduled", "")
    assert group_condition(cp, "a") == group_condition(cp, "b") == ("True", "Scheduled", "")


def test_a_composite_gang_that_does_not_fit_binds_nothing() -> None:
    """Child ``a`` fits alone, ``b`` does not: with minGroupCount 2 neither binds; ``a``'s placed pods
    are reverted and carry the composite's message, ``b``'s their own."""
    cp = gpu_cluster(2, gates=COMPOSITE)
    cp.apply([composite("root", 2), child_group("a", 2, "root"), child_group("b", 2, "root")])
    cp.apply(_pods("a", 2, 4) + _pods("b", 2, 16))
    assert bound(cp, ["a0", "a1", "b0", "b1"]) == []
    root = "pod group is unschedulable, minCount (2) cannot be satisfied: 1 scheduled, 0 remaining"
    assert composite_condition(cp, "root") == ("False", "Unschedulable", root)
    assert group_condition(cp, "a") == ("False", "Unschedulable", root)
    leaf = "pod group is unschedulable, minCount (2) cannot be satisfied: 0 scheduled, 1 remaining"
    assert group_condition(cp, "b") == ("False", "Unschedulable", leaf)
    assert scheduled_message(cp, "a0") == ("Unschedulable", f"pod group is unschedulable, {root}")
    assert scheduled_message(cp, "b0") == ("Unschedulable", "0/2 nodes are available: 2 Insufficient "
                                                            "nvidia.com/gpu.")


def test_min_group_count_below_the_children_lets_the_fitting_ones_bind() -> None:
    cp = gpu_cluster(2, gates=COMPOSITE)
    cp.apply([composite("root", 1), child_group("a", 2, "root"), child_group("b", 2, "root")])
    cp.apply(_pods("a", 2, 4) + _pods("b", 2, 16))
    assert bound(cp, ["a0", "a1", "b0", "b1"]) == ["a0", "a1"]
    assert composite_condition(cp, "root") == ("True", "Scheduled", "")
    assert group_condition(cp, "b") is not None and group_condition(cp, "b")[0] == "False"


def test_pods_wait_for_the_root_composite_and_its_quorum() -> None:
    """PreEnqueue holds the pods until the root exists with minGroupCount ready children; the
    composite's Add event (``CompositePodGroup Add``) lets them in."""
    cp = gpu_cluster(2, gates=COMPOSITE)
    cp.apply([child_group("a", 2, "root"), child_group("b", 2, "root")])
    cp.apply([*_pods("a", 2, 4), gpu_pod("b0", group="b", gpus=4)])
    cp.advance("1s")
    assert bound(cp, ["a0", "a1", "b0"]) == []
    cp.apply(composite("root", 2))
    cp.advance("1s")
    assert bound(cp, ["a0", "a1", "b0"]) == []  # b has 1 of its 2 pods: one ready child of 2
    cp.apply(gpu_pod("b1", group="b", gpus=4))
    assert bound(cp, ["a0", "a1", "b0", "b1"]) == ["a0", "a1", "b0", "b1"]


def test_the_pre_enqueue_message() -> None:
    """Held at GangScheduling's PreEnqueue (the queue's gate, where upstream keeps it: no pod condition)."""
    cp = gpu_cluster(1, gates=COMPOSITE)
    cp.apply([child_group("a", 1, "root"), gpu_pod("a0", group="a", gpus=1)])
    entry = cp.manager.get("scheduler").reconciler.queue.entry("default/a0")
    assert entry is not None and entry.gate is not None
    assert (entry.gating, entry.gate.message) == (
        "GangScheduling", 'waiting for composite pod group "root" tree to meet quorum')


def test_nested_composites_are_all_or_nothing_through_the_tree() -> None:
    """root (gang 2) → mid (gang 2) → {a, b}, and c. ``b`` cannot fit: mid fails, so root has one
    scheduled child of 2 and nothing binds, ``c`` included."""
    cp = gpu_cluster(2, gates=COMPOSITE)
    cp.apply([composite("root", 2), composite("mid", 2, parent="root"), child_group("a", 1, "mid"),
              child_group("b", 1, "mid"), child_group("c", 1, "root")])
    cp.apply(_pods("a", 1, 4) + _pods("b", 1, 16) + _pods("c", 1, 4))
    assert bound(cp, ["a0", "b0", "c0"]) == []
    for name in ("mid", "root"):
        got = composite_condition(cp, name)
        assert got is not None and got[1] == "Unschedulable"
    cp.apply(composite("other", 2))  # unrelated: the tree above still waits
    assert bound(cp, ["a0", "b0", "c0"]) == []


def test_nested_composites_that_fit_bind_together() -> None:
    cp = gpu_cluster(2, gates=COMPOSITE)
    cp.apply([composite("root", 2), composite("mid", 2, parent="root"), child_group("a", 1, "mid"),
              child_group("b", 1, "mid"), child_group("c", 1, "root")])
    cp.apply(_pods("a", 1, 4) + _pods("b", 1, 4) + _pods("c", 1, 8))
    assert bound(cp, ["a0", "b0", "c0"]) == ["a0", "b0", "c0"]
    assert composite_condition(cp, "mid") == composite_condition(cp, "root") == ("True", "Scheduled", "")


def test_a_cycle_is_invalid() -> None:
    cp = gpu_cluster(1, gates=COMPOSITE)
    cp.apply([composite("x", 1, parent="y"), composite("y", 1, parent="x"), child_group("a", 1, "x")])
    cp.apply(_pods("a", 1, 1))
    cp.advance("1s")
    assert bound(cp, ["a0"]) == []


def test_more_than_four_levels_is_invalid() -> None:
    cp = gpu_cluster(1, gates=COMPOSITE)
    cp.apply([composite("l1", 1), composite("l2", 1, parent="l1"), composite("l3", 1, parent="l2"),
              composite("l4", 1, parent="l3"), child_group("a", 1, "l4"), child_group("b", 1, "l1")])
    cp.apply(_pods("a", 1, 1) + _pods("b", 1, 1))
    assert bound(cp, ["a0", "b0"]) == []
    message = "composite pod group hierarchy of 'l1' exceeds the maximum depth of 4"
    assert composite_condition(cp, "l1") == ("False", "Invalid", message)
    assert scheduled_message(cp, "b0")[1] == message


def test_groups_of_several_workloads_are_invalid() -> None:
    cp = gpu_cluster(1, gates=COMPOSITE)
    cp.apply([composite("root", 1), child_group("a", 1, "root"), child_group("b", 1, "root", workload="v")])
    cp.apply(_pods("a", 1, 1) + _pods("b", 1, 1))
    assert bound(cp, ["a0", "b0"]) == []
    assert composite_condition(cp, "root") == (
        "False", "Invalid", "composite pod group hierarchy of 'root' references multiple workloads: v, w")


def test_without_the_gate_a_parent_is_dropped_and_the_group_schedules_alone() -> None:
    cp = gpu_cluster(2, gates="GenericWorkload=true")
    cp.apply([{**child_group("a", 2, "root"), "apiVersion": "scheduling.k8s.io/v1beta1"}])
    cp.apply(_pods("a", 2, 4))
    assert bound(cp, ["a0", "a1"]) == ["a0", "a1"]
    assert not [e for e in cp.client.list(Event, "default").items if "composite" in (e.message or "")]


# -- the property --------------------------------------------------------------------------------------
CHILD = st.tuples(st.integers(1, 3), st.integers(1, 3), st.sampled_from([2, 4, 8, 12]))  # minCount, pods, gpu


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(children=st.lists(CHILD, min_size=1, max_size=3), min_groups=st.integers(1, 3))
def test_a_composite_gang_is_all_or_nothing(children: list[tuple[int, int, int]], min_groups: int) -> None:
    """Either nothing of the tree is bound, or at least minGroupCount children are, each with at least
    its own minCount pods; a child bound below its minCount never happens."""
    cp = gpu_cluster(2, gates=COMPOSITE)
    names = [f"g{i}" for i in range(len(children))]
    spec = dict(zip(names, children, strict=True))
    cp.apply([composite("root", min_groups), *(child_group(n, c[0], "root") for n, c in spec.items())])
    pods = {n: [f"{n}p{j}" for j in range(c[1])] for n, c in spec.items()}
    cp.apply([gpu_pod(p, group=n, gpus=c[2]) for n, c in spec.items() for p in pods[n]])
    cp.advance("1s")
    counts = {n: len(bound(cp, pods[n])) for n in names}
    satisfied = [n for n, c in spec.items() if counts[n] >= c[0]]
    if any(counts.values()):
        assert len(satisfied) >= min_groups
    assert all(counts[n] == 0 or counts[n] >= c[0] for n, c in spec.items())


def test_the_root_composite_gives_the_tree_its_priority() -> None:
    """Priority admission resolves a composite's class (``CompositePodGroupSpec.Priority``); the cycle
    wants every pod of the tree at the root's priority (``validatePodGroup``)."""
    from gang.builders import priority_class

    cp = gpu_cluster(2, gates=COMPOSITE)
    cp.apply(priority_class("high", 10))
    root = composite("root", 1)
    root["spec"]["priorityClassName"] = "high"
    cp.apply([root, child_group("a", 1, "root")])
    cpg = cp.client.get(CompositePodGroup, "root", "default")
    assert (cpg.spec.priority_class_name, cpg.spec.priority) == ("high", 10)
    cp.apply(_pods("a", 1, 1))
    assert bound(cp, ["a0"]) == []
    message = ("all pods in a single pod group should have the same priority as the pod group's priority, "
               "got 0 and 10")
    assert scheduled_message(cp, "a0") == ("SchedulerError", message)
    assert composite_condition(cp, "root") == ("False", "SchedulerError", message)
    cp.apply([child_group("b", 1, "root"), gpu_pod("b0", group="b", gpus=1, priority_class="high")])
    assert bound(cp, ["b0"]) == []  # its tree still holds a0 at priority 0


def test_an_unknown_priority_class_is_forbidden() -> None:
    from kbatch.api.errors import Forbidden

    cp = gpu_cluster(0, gates=COMPOSITE, controllers="")
    root = composite("root", 1)
    root["spec"]["priorityClassName"] = "nope"
    with pytest.raises(Forbidden) as info:
        cp.apply(root)
    assert info.value.message == ('compositepodgroups.scheduling.k8s.io "root" is forbidden: '
                                  "no PriorityClass with name nope was found")


LEAF = st.tuples(st.integers(1, 2), st.integers(1, 2), st.sampled_from([4, 8, 12]))  # minCount, pods, gpu


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(leaves=st.lists(LEAF, min_size=4, max_size=4), mids=st.tuples(st.integers(1, 2), st.integers(1, 2)),
       root_min=st.integers(1, 2))
def test_a_nested_composite_gang_is_all_or_nothing_at_every_level(
        leaves: list[tuple[int, int, int]], mids: tuple[int, int], root_min: int) -> None:
    """root (gang root_min) → m0, m1 (gang mids[i]) → two leaves each: a bound pod's leaf meets its
    minCount, its composite has minGroupCount satisfied leaves, and the root minGroupCount satisfied
    composites."""
    cp = gpu_cluster(2, gates=COMPOSITE)
    names = [f"l{i}" for i in range(4)]
    spec = dict(zip(names, leaves, strict=True))
    cp.apply([composite("root", root_min), composite("m0", mids[0], parent="root"),
              composite("m1", mids[1], parent="root"),
              *(child_group(n, c[0], f"m{i // 2}") for i, (n, c) in enumerate(spec.items()))])
    pods = {n: [f"{n}p{j}" for j in range(c[1])] for n, c in spec.items()}
    cp.apply([gpu_pod(p, group=n, gpus=c[2]) for n, c in spec.items() for p in pods[n]])
    cp.advance("1s")
    counts = {n: len(bound(cp, pods[n])) for n in names}
    leaf_ok = {n: counts[n] >= spec[n][0] for n in names}
    mid_ok = [sum(leaf_ok[n] for n in names[2 * i:2 * i + 2]) >= mids[i] for i in range(2)]
    for i, n in enumerate(names):
        if counts[n]:
            assert leaf_ok[n] and mid_ok[i // 2] and sum(mid_ok) >= root_min, (counts, mid_ok)
