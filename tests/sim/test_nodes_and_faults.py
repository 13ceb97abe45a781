"""Node templates and node fault calls on a ControlPlane."""

from __future__ import annotations

from kbatch.api.core_v1 import Node
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import NodeTemplate, create_nodes, delete_node, make_node, taint_node, untaint_node


def test_node_template_fills_capacity_labels_and_ready() -> None:
    node = make_node("n1", NodeTemplate(cpu="64", memory="512Gi", gpus=8, labels={"zone": "a"}))
    alloc = node.status.allocatable
    assert {k: str(v) for k, v in alloc.items()} == {"cpu": "64", "memory": "512Gi", "pods": "110",
                                                     "nvidia.com/gpu": "8"}
    assert node.metadata.labels["kubernetes.io/hostname"] == "n1" and node.metadata.labels["zone"] == "a"
    assert node.status.conditions[0].type == "Ready" and node.status.conditions[0].status == "True"


def test_create_taint_untaint_delete() -> None:
    cp = ControlPlane(seed=0, controllers="")
    names = [n.metadata.name for n in create_nodes(cp, 3, NodeTemplate(), prefix="w-")]
    assert names == ["w-0", "w-1", "w-2"]
    assert cp.client.get(Node, "w-1").status.allocatable["pods"].value() == 110
    taint_node(cp, "w-0", "maintenance", "yes", "NoExecute")
    taint = cp.client.get(Node, "w-0").spec.taints[0]
    assert (taint.key, taint.value, taint.effect) == ("maintenance", "yes", "NoExecute")
    assert taint.time_added == cp.now()
    untaint_node(cp, "w-0", "maintenance")
    assert not cp.client.get(Node, "w-0").spec.taints
    delete_node(cp, "w-2")
    assert [n.metadata.name for n in cp.client.list(Node).items] == ["w-0", "w-1"]
