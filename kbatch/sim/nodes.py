"""Simulated nodes from a template: ``create_nodes(cp, 4, NodeTemplate(cpu="64", gpus=8))``.

A node is a plain ``v1.Node`` as a KWOK-managed node looks once KWOK's default node stage has run
(seed talk, "Create a Simulated Node"; kubernetes-sigs/kwok ``kustomize/stage/node/fast/node-initialize.yaml``
and its ``testdata/node-pending.output.yaml``):

* labels ``kubernetes.io/hostname``, ``kubernetes.io/os``, ``kubernetes.io/arch``, their ``beta.`` twins
  (as the kubelet registers a node), ``type: kbatch``
  plus the template's own; optional taints and ``spec.unschedulable``;
* ``status.capacity`` and ``status.allocatable`` (equal): cpu, memory, pods (110 by default, the
  kubelet's ``maxPods``), ``nvidia.com/gpu`` when ``gpus`` > 0 and any extended resources;
* ``status.conditions`` in KWOK's order (its ``NodeConditions``): ``Ready=True`` ``KubeletReady``,
  ``MemoryPressure`` / ``DiskPressure`` / ``PIDPressure`` ``False`` with the kubelet's reasons and
  messages (upstream ``pkg/kubelet/nodestatus/setters.go``) and ``NetworkUnavailable=False``
  ``RouteCreated`` "RouteController created a route" (the cloud route controller's,
  ``pkg/controller/route``, which KWOK posts too); heartbeat and transition times ``now``;
* ``status.addresses``: ``InternalIP`` and ``Hostname`` (the node name). The address is kind's: each
  node a container on kind's Docker network ``172.18.0.0/16``, whose IPAM gives them ``172.18.0.2``,
  ``.3``, ... in creation order (:func:`create_nodes` takes the lowest address no node holds, so
  nodes added later never share one); a template's ``internal_ip`` gives every node that one
  address instead (KWOK gives every node it manages its own ``--node-ip``);
* ``status.daemonEndpoints.kubeletEndpoint.Port`` 10250 (KubeletConfiguration ``port``);
* ``status.nodeInfo`` as KWOK fills it: ``operatingSystem: linux``, ``architecture: amd64``, the
  kubelet, kube-proxy, container runtime and kernel versions ``kbatch-v<version>`` (KWOK's are
  ``kwok-<version>``), ``osImage``, ``machineID``, ``systemUUID`` and ``bootID`` empty;
* ``status.phase: Running`` (deprecated and never set by a kubelet, but KWOK sets it).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from kbatch import __version__
from kbatch.api.base import format_time
from kbatch.sim.devices import DeviceTemplate, slice_manifests
from kbatch.sim.node_conditions import HEALTHY

__all__ = ["GPU_RESOURCE", "NodeTemplate", "create_nodes", "make_node", "node_manifest"]

GPU_RESOURCE = "nvidia.com/gpu"
NODE_NETWORK = ipaddress.IPv4Network("172.18.0.0/16")  # kind's Docker network ("kind")
KUBELET_PORT = 10250  # KubeletConfiguration port (pkg/kubelet/apis/config: the kubelet's default)
SIM_VERSION = f"kbatch-v{__version__}"  # KWOK: "kwok-<Version>"
CONDITIONS = (  # (type, status, reason, message), KWOK's order: the kubelet's four, the route controller's
    HEALTHY["Ready"], HEALTHY["MemoryPressure"], HEALTHY["DiskPressure"], HEALTHY["PIDPressure"],
    ("NetworkUnavailable", "False", "RouteCreated", "RouteController created a route"),
)
NODE_INFO = {  # KWOK node-initialize's defaults for an empty nodeInfo
    "architecture": "amd64", "bootID": "", "containerRuntimeVersion": SIM_VERSION,
    "kernelVersion": SIM_VERSION, "kubeProxyVersion": SIM_VERSION, "kubeletVersion": SIM_VERSION,
    "machineID": "", "operatingSystem": "linux", "osImage": "", "systemUUID": "",
}


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
    internal_ip: str | None = None  # None: one address per node (kind's); else every node this one
    devices: DeviceTemplate | None = None  # a simulated DRA driver publishing ResourceSlices (sim/devices.py)
    # the CRI handlers the node reports in status.runtimeHandlers ("" is the default one); () reports
    # none, and the simulated kubelet then runs any RuntimeClass's handler (docs/runtimeclass.md)
    runtime_handlers: tuple[str, ...] = ()

    def resources(self) -> dict[str, str]:
        out = {"cpu": self.cpu, "memory": self.memory, "pods": str(self.pods)}
        if self.gpus:
            out[GPU_RESOURCE] = str(self.gpus)
        if self.ephemeral_storage:
            out["ephemeral-storage"] = self.ephemeral_storage
        out.update(self.extended)
        return out


def _conditions(now: str | None) -> list[dict[str, Any]]:
    stamps = {} if now is None else {"lastHeartbeatTime": now, "lastTransitionTime": now}
    return [{"type": type_, "status": status, "reason": reason, "message": message, **stamps}
            for type_, status, reason, message in CONDITIONS]


def node_manifest(name: str, template: NodeTemplate, now: str | None = None,
                  address: str | None = None) -> dict[str, Any]:
    """``address``: the node's InternalIP when the template has none (default: the first of kind's)."""
    # The kubelet registers a node with the stable and the beta OS/arch labels (pkg/kubelet
    # kubelet_node_status.go initialNode), so node lifecycle's reconcileNodeLabels finds nothing to do.
    labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
              "beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64",
              "type": "kbatch", **template.labels}
    spec: dict[str, Any] = {}
    if template.taints:
        spec["taints"] = [dict(t) for t in template.taints]
    if template.unschedulable:
        spec["unschedulable"] = True
    meta: dict[str, Any] = {"name": name, "labels": labels}
    if template.annotations:
        meta["annotations"] = dict(template.annotations)
    status = {
        "capacity": template.resources(), "allocatable": template.resources(),
        "conditions": _conditions(now),
        "addresses": [{"type": "InternalIP", "address": template.internal_ip or address or _address(0)},
                      {"type": "Hostname", "address": name}],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": KUBELET_PORT}},
        "nodeInfo": dict(NODE_INFO), "phase": "Running",
    }
    if template.runtime_handlers:
        status["runtimeHandlers"] = [{"name": h} for h in template.runtime_handlers]
    return {"apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": spec, "status": status}


def make_node(name: str, template: NodeTemplate | None = None, now: str | None = None,
              address: str | None = None) -> Any:
    from kbatch.api.core_v1 import Node

    return Node.model_validate(node_manifest(name, template or NodeTemplate(), now, address))


def _address(index: int) -> str:
    return str(NODE_NETWORK.network_address + 2 + index)  # .1 is the network's gateway


def _free_addresses(client: Any) -> Iterator[str]:
    """kind's node addresses no node holds yet, lowest first."""
    from kbatch.api.core_v1 import Node

    taken = {a.address for n in client.list(Node).items
             for a in (n.status.addresses if n.status else None) or () if a.type == "InternalIP"}
    return (a for a in map(_address, range(NODE_NETWORK.num_addresses - 3)) if a not in taken)


def _publish_slices(client: Any, node: Any, devices: DeviceTemplate) -> None:
    from kbatch.api.resource_v1 import ResourceSlice

    for manifest in slice_manifests(node.to_dict(), devices):
        client.create(ResourceSlice.model_validate(manifest))


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
    addresses = _free_addresses(client) if template is None or template.internal_ip is None else None
    for index in range(start, start + count):
        node = make_node(f"{prefix}{index}", template, now, next(addresses) if addresses else None)
        obj = client.create(node)
        if obj.status is None or not obj.status.allocatable:
            obj = client.patch_status(Node, obj.metadata.name, {"status": node.status.to_dict()})
        created.append(obj)
        if template is not None and template.devices is not None:
            _publish_slices(client, obj, template.devices)
    settle = getattr(target, "run_until_idle", None)
    if settle is not None:
        settle()
    return created
