"""The order in which a CompositePodGroup's children are placed (KEP-6012, gate CompositePodGroup):
upstream ``PodGroupInfo.GetChildGroups`` (``pkg/scheduler/framework/types.go``), which
``compositePodGroupSchedulingDefaultAlgorithm`` (``pkg/scheduler/algorithm_podgroup.go``) walks:
the earlier ``creationTimestamp`` first, then the name, then the kind (``compositepodgroup`` before
``podgroup``). On a node with room for one child, with ``minGroupCount: 1``, the child placed first
is the one that binds."""

from __future__ import annotations

from gang.builders import bound, gpu_cluster, gpu_pod
from gang.composite_builders import COMPOSITE, child_group, composite


def test_the_older_child_is_placed_first() -> None:
    cp = gpu_cluster(1, gates=COMPOSITE)
    cp.apply([composite("root", 1), child_group("b", 1, "root")])
    cp.advance(2)
    cp.apply(child_group("a", 1, "root"))
    cp.advance(2)
    cp.apply([gpu_pod("a0", group="a"), gpu_pod("b0", group="b")])
    assert bound(cp, ["a0", "b0"]) == ["b0"]


def test_children_created_together_go_by_name() -> None:
    cp = gpu_cluster(1, gates=COMPOSITE)
    cp.apply([composite("root", 1), child_group("b", 1, "root"), child_group("a", 1, "root")])
    cp.apply([gpu_pod("a0", group="a"), gpu_pod("b0", group="b")])
    assert bound(cp, ["a0", "b0"]) == ["a0"]


def test_a_composite_goes_before_a_pod_group_of_the_same_name_and_age() -> None:
    cp = gpu_cluster(1, gates=COMPOSITE)
    cp.apply([composite("root", 1), child_group("x", 1, "root"), composite("x", 1, parent="root"),
              child_group("inner", 1, "x")])
    cp.apply([gpu_pod("leaf0", group="x"), gpu_pod("inner0", group="inner")])
    assert bound(cp, ["inner0", "leaf0"]) == ["inner0"]
