"""Simulated nodes from a template: ``create_nodes(cp, 4, NodeTemplate(cpu="64", gpus=8))``.

A node is a plain ``v1.Node`` as a KWOK-managed node looks (seed talk, "Create a Simulated
Node"): labels ``kubernetes.io/hostname``, ``kubernetes.io/os``, ``kubernetes.io/arch``,
``type: kbatch`` plus the template's own; ``status.capacity`` and ``status.allocatable`` (equal)
with cpu, memory, pods (110 by default, the kubelet's ``maxPods``), ``nvidia.com/gpu`` when
``gpus`` > 0 and any extended resources; a ``Ready=True`` condition; optional taints.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kbatch.api.base import format_time

__all__ = ["GPU_RESOURCE", "NodeTemplate", "create_nodes", "make_node", "node_manifest"]

GPU_RESOURCE = "nvidia.com/gpu"


@dataclass(frozen=True)
class NodeTemplate:
    cpu: str = "8"
    memory: str = "32Gi"
    pods: int = 110
    gpus: int = 0
    ephemeral_storage: str | None = None
    extended: Mapping[str, str] = field(default_factory=dict)
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Mapping[str, str], ...] = ()  # {"key", "value", "effect"}
    unschedulable: bool = False

    def resources(self) -> dict[str, str]:
        out = {"cpu": self.cpu, "memory": self.memory, "pods": str(self.pods)}
        if self.gpus:
            out[GPU_RESOURCE] = str(self.gpus)
        if self.ephemeral_storage:
            out["ephemeral-storage"] = self.ephemeral_storage
        out.update(self.extended)
        return out


def node_manifest(name: str, template: NodeTemplate, now: str | None = None) -> dict[str, Any]:
    labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
              "type": "kbatch", **template.labels}
    ready: dict[str, Any] = {"type": "Ready", "status": "True", "reason": "KubeletReady",
                             "message": "kubelet is posting ready status"}
    if now is not None:
        ready["lastHeartbeatTime"] = ready["lastTransitionTime"] = now
    spec: dict[str, Any] = {}
    if template.taints:
        spec["taints"] = [dict(t) for t in template.taints]
    if template.unschedulable:
        spec["unschedulable"] = True
    meta: dict[str, Any] = {"name": name, "labels": labels}
    if template.annotations:
        meta["annotations"] = dict(template.annotations)
    return {
        "apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": spec,
        "status": {"capacity": template.resources(), "allocatable": template.resources(),
                   "conditions": [ready], "phase": "Running"},
    }


def make_node(name: str, template: NodeTemplate | None = None, now: str | None = None) -> Any:
    from kbatch.api.core_v1 import Node

    return Node.model_validate(node_manifest(name, template or NodeTemplate(), now))


def create_nodes(target: Any, count: int, template: NodeTemplate | None = None, *,
                 prefix: str = "node-", start: int = 0) -> list[Any]:
    """Create ``count`` nodes named ``<prefix><i>``; ``target`` is a ControlPlane or a client.

    Status (capacity, conditions) is written through the status subresource after the create, as
    a kubelet registering itself would, so it survives a strategy that drops status on create.
    """
    from kbatch.api.core_v1 import Node

    client = getattr(target, "client", target)
    clock = getattr(target, "clock", None)
    now = format_time(clock.now_datetime()) if clock is not None else None
    created = []
    for index in range(start, start + count):
        node = make_node(f"{prefix}{index}", template, now)
        obj = client.create(node)
        if obj.status is None or not obj.status.allocatable:
            obj = client.patch_status(Node, obj.metadata.name, {"status": node.status.to_dict()})
        created.append(obj)
    settle = getattr(target, "run_until_idle", None)
    if settle is not None:
        settle()
    return created
