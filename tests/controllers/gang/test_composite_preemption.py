"""Workload-aware preemption for CompositePodGroup trees (KEP-6012 with KEP-5710, 1.37:
kubernetes/kubernetes#140634; ``schedule_one_podgroup.go`` ``podGroupCycle`` runs PodGroupPostFilter
for the root, ``framework/preemption/types.go`` ``getHighestAllAncestor``/``getCrossNodesVictims``;
kubernetes/website ``workload-aware-preemption.md`` "Preemption for CompositePodGroups"): a tree
preempts as one preemptor at its root's priority, and a ``disruptionMode: all`` composite is one
victim with every pod under it. Hypothesis: a preempting tree stays all-or-nothing, evicts only
lower-priority pods, and the same run gives the same result."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gang.builders import bound, gpu_cluster, gpu_pod, pod, priority_class
from gang.composite_builders import COMPOSITE, child_group, composite, composite_condition, group_condition
from kbatch.api.core_v1 import Pod
from kbatch.api.scheduling_v1alpha3 import CompositePodGroup
from kbatch.runtime.controlplane import ControlPlane

WAITING = ", waiting for preemption to complete"


def _root(name: str, min_group_count: int, priority: str, *, whole: bool = False) -> dict[str, Any]:
    obj = composite(name, min_group_count)
    obj["spec"]["priorityClassName"] = priority
    if whole:
        obj["spec"]["disruptionMode"] = {"all": {}}
    return obj


def _pods(group: str, count: int, priority: str, gpus: int = 8) -> list[dict[str, Any]]:
    return [gpu_pod(f"{group}{i}", group=group, gpus=gpus, priority_class=priority, command="sleep 600")
            for i in range(count)]


def _fill(cp: ControlPlane, count: int) -> list[str]:
    """``count`` low-priority 8-GPU pods of no group, bound."""
    names = [f"low{i}" for i in range(count)]
    cp.apply([gpu_pod(n, priority_class="low", command="sleep 600") for n in names])
    assert bound(cp, names) == names
    return names


def _evicted(cp: ControlPlane, names: list[str]) -> list[str]:
    return [n for n in names if (p := pod(cp, n)) is None or p.metadata.deletion_timestamp is not None]


def _tree_over_low_pods(nodes: int) -> tuple[ControlPlane, list[str]]:
    """``nodes`` nodes full of low-priority pods, then a high-priority tree: ``a`` (2 pods) and ``b``
    (1 pod) under a root needing both."""
    cp = gpu_cluster(nodes, gates=COMPOSITE)
    cp.apply([priority_class("high", 1000), priority_class("low", 10)])
    low = _fill(cp, nodes)
    cp.apply([_root("root", 2, "high"), child_group("a", 2, "root"), child_group("b", 1, "root")])
    cp.apply(_pods("a", 2, "high") + _pods("b", 1, "high"))
    return cp, low


def test_a_tree_preempts_what_its_quorum_needs_and_then_binds_whole() -> None:
    cp, low = _tree_over_low_pods(4)
    assert len(_evicted(cp, low)) == 3  # three nodes' room; the fourth low pod is reprieved
    tree = ["a0", "a1", "b0"]
    assert bound(cp, tree) == []
    assert all(pod(cp, n).status.nominated_node_name for n in tree)
    status, reason, message = composite_condition(cp, "root")
    assert (status, reason) == ("False", "Unschedulable") and message.endswith(WAITING)
    assert group_condition(cp, "a")[2].endswith(WAITING) and group_condition(cp, "b")[2].endswith(WAITING)
    cp.advance(5)
    assert bound(cp, tree) == tree
    assert composite_condition(cp, "root") == ("True", "Scheduled", "")


def test_a_tree_that_cannot_fit_even_alone_preempts_nothing() -> None:
    cp, low = _tree_over_low_pods(2)
    assert _evicted(cp, low) == []
    assert not composite_condition(cp, "root")[2].endswith(WAITING)


def _low_tree(cp: ControlPlane, *, whole: bool) -> list[str]:
    """A low-priority composite of two one-pod PodGroups filling a 2-node cluster."""
    cp.apply([_root("lowtree", 2, "low", whole=whole), child_group("x", 1, "lowtree"),
              child_group("y", 1, "lowtree")])
    cp.apply(_pods("x", 1, "low") + _pods("y", 1, "low"))
    assert bound(cp, ["x0", "y0"]) == ["x0", "y0"]
    return ["x0", "y0"]


def _high_pod_group(cp: ControlPlane) -> None:
    cp.apply({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": {"name": "h"},
              "spec": {"schedulingPolicy": {"gang": {"minCount": 1}}, "priorityClassName": "high"}})
    cp.apply(_pods("h", 1, "high"))


def test_an_all_mode_composite_is_one_victim_with_every_pod_under_it() -> None:
    """The composite's ``disruptionMode: all`` overrides its PodGroups' ``single``: one pod's room
    costs the whole tree, and the composite is marked ``DisruptionTarget``."""
    cp = gpu_cluster(2, gates=COMPOSITE)
    cp.apply([priority_class("high", 1000), priority_class("low", 10)])
    victims = _low_tree(cp, whole=True)
    _high_pod_group(cp)
    assert _evicted(cp, victims) == victims
    tree = cp.client.get(CompositePodGroup, "lowtree", "default")
    target = next(c for c in tree.status.conditions if c.type == "DisruptionTarget")
    assert (target.status, target.reason) == ("True", "PreemptionByScheduler")
    assert target.message == "default/h: preempting to accommodate a higher priority pod group"
    cp.advance(5)
    assert bound(cp, ["h0"]) == ["h0"]


def test_a_single_mode_composite_gives_up_one_pod() -> None:
    cp = gpu_cluster(2, gates=COMPOSITE)
    cp.apply([priority_class("high", 1000), priority_class("low", 10)])
    victims = _low_tree(cp, whole=False)
    _high_pod_group(cp)
    assert len(_evicted(cp, victims)) == 1
    tree = cp.client.get(CompositePodGroup, "lowtree", "default")
    conditions = (tree.status.conditions if tree.status else None) or ()
    assert not any(c.type == "DisruptionTarget" for c in conditions)


def _run(sizes: list[int], min_group_count: int, lows: int, nodes: int) -> tuple[dict[str, str], list[str]]:
    cp = gpu_cluster(nodes, gates=COMPOSITE)
    cp.apply([priority_class("high", 1000), priority_class("low", 10)])
    low = _fill(cp, lows)
    groups = [f"g{i}" for i in range(len(sizes))]
    cp.apply([_root("root", min_group_count, "high"),
              *(child_group(g, size, "root") for g, size in zip(groups, sizes, strict=True))])
    cp.apply([p for g, size in zip(groups, sizes, strict=True) for p in _pods(g, size, "high")])
    cp.advance(5)
    placed = {p.metadata.name or "": p.spec.node_name or "" for p in cp.client.list(Pod, "default").items}
    return placed, _evicted(cp, low)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sizes=st.lists(st.integers(1, 3), min_size=1, max_size=3), data=st.data(),
       lows=st.integers(0, 4), nodes=st.integers(1, 4))
def test_a_preempting_tree_stays_all_or_nothing(sizes: list[int], data: st.DataObject, lows: int,
                                                 nodes: int) -> None:
    """Whatever the cluster, after preemption the tree binds a quorum of whole children or
    nothing, only lower-priority pods were evicted (the preemptor's own never), a tree that would
    fit on the empty cluster does bind (preemption helps), and a second run is the same run."""
    lows = min(lows, nodes)
    min_group_count = data.draw(st.integers(1, len(sizes)))
    placed, evicted = _run(sizes, min_group_count, lows, nodes)
    groups = [f"g{i}" for i in range(len(sizes))]
    complete = [g for g, size in zip(groups, sizes, strict=True)
                if all(placed.get(f"{g}{i}") for i in range(size))]
    partial = [g for g, size in zip(groups, sizes, strict=True)
               if g not in complete and any(placed.get(f"{g}{i}") for i in range(size))]
    assert partial == []
    assert complete == [] or len(complete) >= min_group_count
    assert all(n.startswith("low") for n in evicted)
    free, fitting = nodes, 0  # children placed in order, one 8-GPU pod per node, a failed one reverted
    for size in sizes:
        if size <= free:
            free, fitting = free - size, fitting + 1
    assert (fitting >= min_group_count) == bool(complete)
    assert _run(sizes, min_group_count, lows, nodes) == (placed, evicted)
