"""core/v1 Node (k8s.io/api ``core/v1/types.go``): taints and capacity for the simulated cluster."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from kbatch.api.base import ApiInfo, KubeModel, Time
from kbatch.api.core_v1.common import ResourceList, Taint
from kbatch.api.meta import Resource

__all__ = [
    "AttachedVolume",
    "ContainerImage",
    "DaemonEndpoint",
    "Node",
    "NodeAddress",
    "NodeCondition",
    "NodeDaemonEndpoints",
    "NodeFeatures",
    "NodeRuntimeHandler",
    "NodeRuntimeHandlerFeatures",
    "NodeSpec",
    "NodeStatus",
    "NodeSwapStatus",
    "NodeSystemInfo",
]


class NodeSpec(KubeModel):
    pod_cidr: str | None = Field(default=None, alias="podCIDR")
    pod_cidrs: list[str] | None = Field(default=None, alias="podCIDRs")
    provider_id: str | None = Field(default=None, alias="providerID")
    unschedulable: bool | None = None
    taints: list[Taint] | None = None
    config_source: dict[str, Any] | None = None
    external_id: str | None = Field(default=None, alias="externalID")


class NodeCondition(KubeModel):
    type: str = ""
    status: str = ""
    last_heartbeat_time: Time | None = None
    last_transition_time: Time | None = None
    reason: str | None = None
    message: str | None = None


class NodeAddress(KubeModel):
    type: str = ""
    address: str = ""


class DaemonEndpoint(KubeModel):
    port: int = Field(default=0, alias="Port")  # upstream spells this one with a capital P


class NodeDaemonEndpoints(KubeModel):
    kubelet_endpoint: DaemonEndpoint | None = None


class NodeSwapStatus(KubeModel):
    capacity: int | None = None


class NodeSystemInfo(KubeModel):
    machine_id: str = Field(default="", alias="machineID")
    system_uuid: str = Field(default="", alias="systemUUID")
    boot_id: str = Field(default="", alias="bootID")
    kernel_version: str = ""
    os_image: str = ""
    container_runtime_version: str = ""
    kubelet_version: str = ""
    kube_proxy_version: str = ""
    operating_system: str = ""
    architecture: str = ""
    swap: NodeSwapStatus | None = None


class ContainerImage(KubeModel):
    names: list[str] | None = None
    size_bytes: int | None = None


class AttachedVolume(KubeModel):
    name: str = ""
    device_path: str = ""


class NodeRuntimeHandlerFeatures(KubeModel):
    recursive_read_only_mounts: bool | None = None
    user_namespaces: bool | None = None


class NodeRuntimeHandler(KubeModel):
    name: str | None = None
    features: NodeRuntimeHandlerFeatures | None = None


class NodeFeatures(KubeModel):
    supplemental_groups_policy: bool | None = None


class NodeStatus(KubeModel):
    capacity: ResourceList | None = None
    allocatable: ResourceList | None = None
    phase: str | None = None
    conditions: list[NodeCondition] | None = None
    addresses: list[NodeAddress] | None = None
    daemon_endpoints: NodeDaemonEndpoints | None = None
    node_info: NodeSystemInfo | None = None
    images: list[ContainerImage] | None = None
    volumes_in_use: list[str] | None = None
    volumes_attached: list[AttachedVolume] | None = None
    config: dict[str, Any] | None = None
    runtime_handlers: list[NodeRuntimeHandler] | None = None
    features: NodeFeatures | None = None
    declared_features: list[str] | None = None


class Node(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="", version="v1", kind="Node", plural="nodes", namespaced=False,
        short_names=("no",), singular="node", subresources=("status",),
    )

    spec: NodeSpec = Field(default_factory=NodeSpec)
    status: NodeStatus | None = None

    def condition_status(self, type_: str) -> str | None:
        """The status ("True", "False", "Unknown") of the node's condition ``type_``; None if absent."""
        for cond in (self.status.conditions if self.status else None) or ():
            if cond.type == type_:
                return cond.status
        return None
