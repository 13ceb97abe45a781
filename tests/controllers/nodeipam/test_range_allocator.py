"""The node-ipam-controller on a control plane (upstream ``range_allocator.go``,
``range_allocator_test.go``'s cases: allocate, occupy a pre-allocated range, release on delete,
no range left)."""

from __future__ import annotations

from typing import Any

from kbatch import ControlPlane
from kbatch.api.core_v1 import Event, Node
from kbatch.sim import NodeTemplate, create_nodes, make_node


def _plane(**options: Any) -> ControlPlane:
    return ControlPlane(seed=0, controllers="node-ipam-controller",
                        options={"node-ipam-controller": options} if options else None)


def _cidrs(cp: ControlPlane) -> dict[str, list[str] | None]:
    return {n.metadata.name: n.spec.pod_cidrs for n in cp.client.list(Node).items}


def test_each_node_gets_the_next_range_and_a_pre_allocated_one_is_kept() -> None:
    cp = _plane()
    held = make_node("held")
    held.spec.pod_cidr, held.spec.pod_cidrs = "10.244.0.0/24", ["10.244.0.0/24"]  # "Correctly ignore ..."
    cp.client.create(held)
    create_nodes(cp, 2, NodeTemplate())
    assert _cidrs(cp) == {"held": ["10.244.0.0/24"], "node-0": ["10.244.1.0/24"], "node-1": ["10.244.2.0/24"]}
    assert cp.client.get(Node, "node-0").spec.pod_cidr == "10.244.1.0/24"


def test_a_deleted_nodes_range_is_released_and_handed_out_after_the_others() -> None:
    cp = _plane(cluster_cidr="10.10.0.0/22")  # four /24s
    create_nodes(cp, 3, NodeTemplate())
    cp.client.delete(Node, "node-0")
    cp.run_until_idle()
    create_nodes(cp, 2, NodeTemplate(), start=3)
    # AllocateNext scans on from the last range: 10.10.3.0 first, then round to the released 10.10.0.0
    assert _cidrs(cp) == {"node-1": ["10.10.1.0/24"], "node-2": ["10.10.2.0/24"], "node-3": ["10.10.3.0/24"],
                          "node-4": ["10.10.0.0/24"]}


def test_no_range_left_is_an_event_and_a_wait_for_a_released_one() -> None:
    cp = _plane(cluster_cidr="10.10.0.0/23")  # two /24s
    create_nodes(cp, 3, NodeTemplate())
    assert _cidrs(cp)["node-2"] is None
    events = [e for e in cp.client.list(Event).items if e.reason == "CIDRNotAvailable"]
    assert [(e.involved_object.name, e.type, e.message) for e in events] == [
        ("node-2", "Normal", "Node node-2 status is now: CIDRNotAvailable")]
    cp.client.delete(Node, "node-0")
    cp.run_until_idle()
    assert _cidrs(cp) == {"node-1": ["10.10.1.0/24"], "node-2": ["10.10.0.0/24"]}


def test_allocation_can_be_switched_off() -> None:
    cp = _plane(allocate_node_cidrs=False)
    create_nodes(cp, 1, NodeTemplate())
    assert _cidrs(cp) == {"node-0": None}
